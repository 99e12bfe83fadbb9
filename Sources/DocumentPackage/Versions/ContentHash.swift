import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SHA-256 of contents, as 64 lowercase hex digits: the name of a blob in a ``VersionStore``.
package enum ContentHash {
  /// `digest` as lowercase hex digits (also DocumentSync's object keys and request signatures).
  package static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 { HexDigits.encode(digest) }

  static func of(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

  /// Hashes an open file from its current offset, in 1 MiB chunks.
  static func of(fd: CInt, path: FilePath) throws -> String {
    var hasher = SHA256()
    try Syscalls.readChunks(fd, path: path) { hasher.update(bufferPointer: $0) }
    return hex(hasher.finalize())
  }

  /// The SHA-256 of the file at `path` (a link is not followed), read in 1 MiB chunks.
  /// - Throws: ``PackageError`` (code `io`) naming `path` if it cannot be opened or read.
  package static func ofFile(at path: FilePath) throws -> String {
    let fd: CInt
    do { fd = try Syscalls.openFile(path, [.readOnly, .noFollow]) } catch {
      throw PackageError.io(error, "cannot open", path: path, context: "to hash it")
    }
    defer { Syscalls.closeFile(fd) }
    return try of(fd: fd, path: path)
  }

  /// Whether `hash` is a SHA-256 in 64 lower-case hex digits.
  package static func isValid(_ hash: Substring) -> Bool {
    hash.utf8.count == 64 && hash.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
  }
}

extension ContentHash {
  /// An incremental SHA-256.
  struct Hasher {
    private var inner = SHA256()
    mutating func update(_ bytes: UnsafeRawBufferPointer) { inner.update(bufferPointer: bytes) }
    func finalize() -> String { ContentHash.hex(inner.finalize()) }
  }
}
