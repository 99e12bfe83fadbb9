import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a file of a stored version: a blob of a ``VersionStore``. Every read checks
/// the blob's SHA-256 *before* handing out its bytes, so a damaged blob (or one an older release
/// hard-linked to a package file that was then written in place) fails with a `corrupt` error
/// and no other bytes are ever returned as the version's.
final class VersionBlob: FileCopySource, ContentAddressed {
  let store: VersionStore
  let hash: String
  let size: Int64
  /// The version the blob is read for, if any: a blob that vanished because that version was
  /// removed meanwhile says so (see ``VersionStore/removedWhileReading(_:)``).
  let version: Int?

  /// The store's path and the blob's hash: equal for equal contents in one store.
  var contentAddress: String { store.path.string + "#" + hash }

  init(store: VersionStore, hash: String, size: Int64, version: Int? = nil) {
    self.store = store
    self.hash = hash
    self.size = size
    self.version = version
  }

  var path: FilePath { store.objectPath(hash) }

  func open() throws -> CInt {
    do { return try Syscalls.openFile(path, [.readOnly, .noFollow]) } catch {
      if error == .noSuchFileOrDirectory, let version, let removed = store.removedWhileReading(version) {
        throw removed
      }
      if error == .noSuchFileOrDirectory, let version, let remote = try? store.record(version).version.remote {
        throw store.notFetched(version, remote: remote)
      }
      throw PackageError(
        error == .noSuchFileOrDirectory ? .corrupt : .io, "cannot open version blob", path: path.string,
        errno: error)
    }
  }

  func readAll() throws -> Data {
    var data = Data()
    try read(chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  /// Hands `body` the blob's bytes only once they are known to be the version's: a blob of up to
  /// ``checkedInMemory`` bytes is read whole and checked first; a bigger one is checked in a
  /// first pass, then streamed and checked again (a blob is the store's own file, read-only,
  /// so the second pass differs only if something wrote into the store itself).
  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let fd = try open()
    defer { Syscalls.closeFile(fd) }
    if size <= Self.checkedInMemory {
      var data = Data()
      var hasher = ContentHash.Hasher()
      try Syscalls.readChunks(fd, path: path, chunkSize: min(chunkSize, 1 << 20)) { chunk in
        hasher.update(chunk)
        data.append(contentsOf: chunk)
      }
      try check(hasher.finalize())
      try data.withUnsafeBytes { bytes in
        var offset = 0
        repeat {
          let end = min(offset + max(chunkSize, 1), bytes.count)
          try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
          offset = end
        } while offset < bytes.count
      }
      return
    }
    try check(try ContentHash.of(fd: fd, path: path))
    do { _ = try Syscalls.seek(fd, to: 0) } catch {
      throw PackageError.io(error, "cannot read", path: path.string)
    }
    var hasher = ContentHash.Hasher()
    try Syscalls.readChunks(fd, path: path, chunkSize: chunkSize) { chunk in
      hasher.update(chunk)
      try body(chunk)
    }
    try check(hasher.finalize())
  }

  /// Blobs up to this size are read into memory, checked, then handed out.
  static let checkedInMemory: Int64 = 8 << 20

  var copyDescription: String { "copy version blob" }

  func openForCopying() throws -> CInt { try openVerified() }

  /// Opens the blob, checks its hash, and returns the descriptor at offset 0; the caller closes it.
  func openVerified() throws -> CInt {
    let fd = try open()
    do {
      try check(try ContentHash.of(fd: fd, path: path))
      do { _ = try Syscalls.seek(fd, to: 0) } catch { throw PackageError.io(error, "cannot read", path: path.string) }
    } catch {
      Syscalls.closeFile(fd)
      throw error
    }
    return fd
  }

  /// Reads the blob through to check its hash.
  func verify() throws {
    let fd = try open()
    defer { Syscalls.closeFile(fd) }
    try check(try ContentHash.of(fd: fd, path: path))
  }

  private func check(_ actual: String) throws {
    guard actual == hash else {
      throw PackageError(
        .corrupt, "version blob is damaged (its bytes no longer match its SHA-256):",
        path: path.string, context: "expected SHA-256 \(hash), found \(actual)")
    }
  }
}

extension VersionStore {
  /// The error for a file of version `id` that is on `remote` and not fetched yet.
  func notFetched(_ id: Int, remote: String) -> PackageError {
    PackageError(
      .onRemote, "version \(id) of", path: packagePath.lastComponent?.string ?? packagePath.string,
      context: "keeps some files on remote '\(remote)': fetch them first (docpkg remote fetch PACKAGE \(id))")
  }

  /// When version `id` is no longer in the store (a missing object was read for it): the error
  /// that says it was removed while it was being read; nil while it is still there.
  func removedWhileReading(_ id: Int) -> PackageError? {
    guard (try? record(id)) == nil else { return nil }
    return PackageError(
      .noSuchEntry, "version \(id) of", path: packagePath.lastComponent?.string ?? packagePath.string,
      context: "was removed while it was being read (pruned by a save, or versions remove)")
  }
}
