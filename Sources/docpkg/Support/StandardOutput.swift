#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered standard output: the CLI writes a line per entry of a 100,000-file package, so
/// writes are gathered into 64 KiB blocks instead of one `write` each.
final class StandardOutput {
  nonisolated(unsafe) static let shared = StandardOutput(fd: 1)

  private let fd: CInt
  private var buffer: [UInt8] = []
  private let capacity = 1 << 16

  init(fd: CInt) {
    self.fd = fd
    buffer.reserveCapacity(capacity)
  }

  /// Whether the output is a terminal (colors, progress bars).
  var isTerminal: Bool { isatty(fd) == 1 }

  func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= capacity { flush() }
  }

  func write(bytes: UnsafeRawBufferPointer) {
    if bytes.count >= capacity {
      flush()
      writeAll(bytes)
    } else {
      buffer.append(contentsOf: bytes)
      if buffer.count >= capacity { flush() }
    }
  }

  func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { writeAll($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { exit(0) }  // the reader went away (`docpkg cat ... | head`): stop quietly
        StandardError.write("docpkg: error: cannot write to standard output: \(String(cString: strerror(errno)))\n")
        exit(1)
      }
      offset += n
    }
  }
}

enum StandardError {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
  }
}
