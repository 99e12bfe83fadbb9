import DocumentPackage
import SystemPackage

extension RemoteCipher {
  /// Seals the file at `source`, blob `hash`, into a new file at `destination` (replaced if there), a segment at a
  /// time. Blocking: run it on ``BlockingIO``.
  /// - Throws: ``SyncError`` with code `corrupt` naming `source` if its bytes no longer hash to `hash` (it
  ///   changed since it was hashed); `PackageError` naming the path that cannot be read or written.
  package func sealFile(at source: FilePath, blob hash: String, to destination: FilePath) throws {
    var sealer = sealer(kind: .blob, contentHash: hash)
    var hasher = SHA256()
    try Self.transform(
      source, to: destination, header: sealer.header,
      { chunk in
        hasher.update(bufferPointer: chunk)
        return sealer.update(chunk)
      }, finish: { sealer.finish() })
    guard ContentHash.hex(hasher.finalize()) == hash else {
      try? LocalFiles.remove(destination)
      throw SyncError(
        .corrupt, "the file changed while it was uploaded (its bytes no longer hash to \(hash)):",
        key: source.string)
    }
  }

  /// Opens the sealed blob at `source` (fetched from `key`) into a new file at `destination` (replaced if there),
  /// a segment at a time, and returns the plaintext's SHA-256 (hex). Blocking: run it on ``BlockingIO``.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if a segment does not open (nothing is left at
  ///   `destination`); `PackageError` naming the path that cannot be read or written.
  package func openFile(at source: FilePath, key: String, to destination: FilePath) throws -> String {
    var opener = opener(kind: .blob)
    var hasher = SHA256()
    do {
      try Self.transform(
        source, to: destination, header: [],
        { chunk in
          let plain = try opener.update(chunk)
          hasher.update(data: plain)
          return plain
        },
        finish: {
          let plain = try opener.finish()
          hasher.update(data: plain)
          return plain
        })
    } catch let error as SealedFormatError {
      try? LocalFiles.remove(destination)
      throw Self.refused(error, key: key)
    }
    return ContentHash.hex(hasher.finalize())
  }

  /// Writes `header`, then what `body` makes of each chunk of `source`, then what `finish` returns, to a new file
  /// at `destination`.
  private static func transform(
    _ source: FilePath, to destination: FilePath, header: [UInt8],
    _ body: (UnsafeRawBufferPointer) throws -> [UInt8], finish: () throws -> [UInt8]
  ) throws {
    let input: CInt
    do throws(Errno) { input = try Syscalls.openFile(source, [.readOnly, .noFollow]) } catch {
      throw PackageError.io(error, "cannot open", path: source)
    }
    defer { Syscalls.closeFile(input) }
    let output: CInt
    do throws(Errno) {
      output = try Syscalls.openFile(destination, [.writeOnly, .create, .truncate, .noFollow], mode: 0o600)
    } catch {
      throw PackageError.io(error, "cannot create", path: destination)
    }
    defer { Syscalls.closeFile(output) }
    func write(_ bytes: [UInt8]) throws {
      guard !bytes.isEmpty else { return }
      let result = bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try Syscalls.writeAll(output, raw) } }
      do throws(Errno) { try result.get() } catch { throw PackageError.io(error, "cannot write", path: destination) }
    }
    try write(header)
    try Syscalls.readChunks(input, path: source) { chunk in try write(try body(chunk)) }
    try write(try finish())
  }
}
