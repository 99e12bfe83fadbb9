import DocumentPackage

/// Buffered standard output: the CLI writes a line per entry of a 100,000-file package, so
/// writes are gathered into 64 KiB blocks instead of one `write` each, and copied with `memcpy`.
package final class StandardOutput {
  /// Standard output of the process.
  nonisolated(unsafe) package static let shared = StandardOutput(fd: 1)

  private let fd: CInt
  private let buffer: UnsafeMutableRawBufferPointer
  private var filled = 0

  /// Output buffered in front of `fd`.
  package init(fd: CInt) {
    self.fd = fd
    buffer = .allocate(byteCount: 1 << 16, alignment: 16)
  }

  deinit { buffer.deallocate() }

  /// Whether the output is a terminal (colors, progress bars).
  package var isTerminal: Bool { Syscalls.isTerminal(fd) }

  /// Writes `text`.
  package func write(_ text: StaticString) {
    write(bytes: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Writes `text`.
  package func write(_ text: String) {
    var text = text
    text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Writes `bytes`.
  package func write(bytes: UnsafeRawBufferPointer) {
    if filled + bytes.count > buffer.count { flush() }
    if bytes.count >= buffer.count {
      writeAll(bytes)
    } else if bytes.count > 0 {
      (buffer.baseAddress! + filled).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
      filled += bytes.count
    }
  }

  /// Writes what is buffered.
  package func flush() {
    guard filled > 0 else { return }
    writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
    filled = 0
  }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      switch Syscalls.writeOnce(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
      case .success(let n): offset += n
      case .failure(.interrupted): continue
      case .failure(.brokenPipe): Syscalls.exitProcess(0)  // the reader went away (`docpkg cat ... | head`): stop quietly
      case .failure(let error):
        StandardError.write("docpkg: error: cannot write to standard output: \(error.description)\n")
        Syscalls.exitProcess(1)
      }
    }
  }
}

/// Standard error, unbuffered: each message is one `write`.
package enum StandardError {
  /// Writes `text` at once.
  package static func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = Syscalls.writeOnce(2, UnsafeRawBufferPointer(bytes)) }
  }
}
