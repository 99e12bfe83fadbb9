import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The new objects of one version: written as files of their own under the store's `tmp/`,
/// made durable together, then renamed into `objects/`.
///
/// **Every blob is the store's own copy.** A file of the package is never hard-linked into the
/// store (nor a blob into the package): a program that writes a package file in place would
/// write the version too. A blob is a `FICLONE` reflink of the package file where the file system
/// has them (btrfs, xfs: no data is copied, blocks are shared copy-on-write, so a later write to
/// the package file leaves the blob's blocks alone), else a copy made by reading the file once.
/// Its name is the SHA-256 of the bytes *in the copy* (the copy is hashed, never the package
/// file), so a write racing with the copy changes which bytes the version keeps, never whether
/// the blob matches its name. The copy is made from the package as it is before the save's swap:
/// those are the bytes of the state being kept.
///
/// **Crash safety.** An object is renamed into `objects/` only after it is durable: the first
/// ``DurabilityPlan/perItemLimit`` are `fsync`ed as written, a version with more is made durable with
/// one `syncfs` before the renames. A kill before the renames leaves files in `tmp/` only (cleared
/// when the store is next prepared); after them, only objects that no record names yet (removed
/// by the next prune). A blob in `objects/` is therefore always whole.
///
/// **Older stores.** Blobs kept by earlier releases are hard links of package files. A save that
/// meets one (its link count is above 1) copies the package file again and renames the copy over
/// it, so the store stops sharing inodes with the package as saves go by.
final class ObjectStaging {
  let store: VersionStore
  private var temporaryFD: CInt = -1
  private var objectsFD: CInt = -1
  private var durability = DurabilityPlan()
  private var staged: [(name: RawName, hash: String)] = []
  private var stagedHashes: Set<String> = []
  /// The objects committed since ``takeCommitted()``, each with its status in `objects/` and its hash.
  private var committed: [(status: FileStatus, hash: String)] = []
  private var counter = 0
  private let buffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: 1 << 20, alignment: Syscalls.readBufferAlignment)

  init(store: VersionStore) { self.store = store }

  /// Closes the descriptors and frees the copy buffer; removes staged files never committed.
  deinit {
    if temporaryFD >= 0 {
      for (name, _) in staged { try? Syscalls.unlink(in: temporaryFD, name, directory: false) }
      Syscalls.closeFile(temporaryFD)
    }
    if objectsFD >= 0 { Syscalls.closeFile(objectsFD) }
    buffer.deallocate()
  }

  /// How many objects are staged and not committed yet.
  var stagedCount: Int { staged.count }

  /// Whether the store has object `hash` as a file of its own (staged now, or in `objects/` with
  /// one link): `false` for a blob an older release hard-linked to a package file.
  func owns(_ hash: String) throws -> Bool {
    if stagedHashes.contains(hash) { return true }
    try openDirectories()
    guard let status = try? Syscalls.status(in: objectsFD, Self.relativeName(hash)) else { return false }
    return status.kind == .file && status.linkCount == 1
  }

  /// Whether object `hash` exists (staged now or in `objects/`), however many links it has.
  func has(_ hash: String) throws -> Bool {
    if stagedHashes.contains(hash) { return true }
    try openDirectories()
    return (try? Syscalls.exists(in: objectsFD, Self.relativeName(hash))) ?? false
  }

  /// Stages a copy of the regular file at `file` and returns the SHA-256 of the copy.
  /// - Parameter directory: A directory held open and the file's name in it: the file is opened
  ///   there (the entry a walk stat'ed there), not by its path.
  func copy(_ file: FilePath, in directory: (fd: CInt, name: FilePath.Component)? = nil) throws -> String {
    let input: CInt
    do {
      if let directory {
        input = try Syscalls.openFile(in: directory.fd, directory.name, Syscalls.readOnlyNoFollow)
      } else {
        input = try Syscalls.openFile(file, [.readOnly, .noFollow])
      }
    } catch {
      throw PackageError.io(error, "cannot open", path: file.string, context: "while keeping a version")
    }
    defer { Syscalls.closeFile(input) }
    let buffer = self.buffer
    return try stage(replacingShared: true) { output, path throws in
      // No reflinks (ext4, tmpfs: EOPNOTSUPP; another file system: EXDEV): copy, hashing the bytes written.
      if (try? Syscalls.cloneFile(from: input, to: output)) != nil {
        return try Self.hash(output, buffer: buffer, path: path)
      }
      // The ranges that hold data are copied, the holes between them hashed as zeros and left holes.
      var hasher = ContentHash.Hasher()
      let ranges: [Range<Int64>]
      let size: Int64
      do throws(Errno) {
        size = try Syscalls.status(of: input).size
        ranges = try Syscalls.dataRanges(input, size: size)
      } catch {
        throw PackageError.io(error, "cannot read", path: file.string, context: "while keeping a version")
      }
      let copied: Int64
      do {
        copied = try Syscalls.readSparse(input, size: size, dataRanges: ranges, buffer: buffer) {
          chunk, offset, isHole in
          hasher.update(chunk)
          if isHole { return }
          do throws(Errno) { try Syscalls.writeAll(output, chunk, at: offset) } catch {
            throw PackageError.io(error, "cannot write", path: path.string)
          }
        }
      } catch let error as Errno {
        throw PackageError.io(error, "cannot read", path: file.string, context: "while keeping a version")
      }
      if copied < size {
        // The file shrank while it was copied: the copy ends in a hole, hashed as the zeros it reads as
        // (a "file" with no data ranges is all hole).
        _ = try Syscalls.readSparse(input, size: size - copied, dataRanges: [], buffer: buffer) { chunk, _, _ in
          hasher.update(chunk)
        }
      }
      do throws(Errno) { try Syscalls.setSize(output, size) } catch {
        throw PackageError.io(error, "cannot write", path: path.string)
      }
      return hasher.finalize()
    }
  }

  /// Stages an object whose bytes `body` writes to the descriptor; `body` returns their hash.
  /// - Parameter replacingShared: Rename the object over an existing one that has other links.
  func stage(replacingShared: Bool = false, _ body: (CInt, FilePath) throws -> String) throws -> String {
    try openDirectories()
    counter += 1
    let name = RawName("\(Self.namePrefix)\(counter)")
    let path = store.temporaryPath.appending(name.string)
    let fd: CInt
    do {
      fd = try Syscalls.openFile(in: temporaryFD, name, [.readWrite, .create, .exclusive, .noFollow], mode: 0o444)
    } catch { throw PackageError.io(error, "cannot create", path: path.string) }
    var keep = false
    defer {
      Syscalls.closeFile(fd)
      if !keep { try? Syscalls.unlink(in: temporaryFD, name, directory: false) }
    }
    let hash = try body(fd, path)
    if replacingShared ? try owns(hash) : try has(hash) { return hash }
    do { try durability.finished(fd) } catch { throw PackageError.io(error, "cannot write", path: path.string) }
    keep = true
    staged.append((name, hash))
    stagedHashes.insert(hash)
    return hash
  }

  /// Makes the staged objects durable and renames them into `objects/`; returns the names of the
  /// `objects/` subdirectories that got entries (the caller syncs them).
  func commit() throws -> Set<String> {
    guard !staged.isEmpty else { return [] }
    do { try durability.complete(through: temporaryFD) } catch {
      throw PackageError.io(error, "cannot flush file system of", path: store.temporaryPath.string)
    }
    var touched: Set<String> = []
    for (name, hash) in staged {
      let prefix = String(hash.prefix(2))
      if !touched.contains(prefix) {
        let directory = store.objectsPath.appending(prefix)
        do { try StoreFiles.makeDirectory(directory) } catch {
          throw PackageError.io(error, "cannot create", path: directory.string)
        }
        touched.insert(prefix)
      }
      do { try Syscalls.rename(from: temporaryFD, name, to: objectsFD, Self.relativeName(hash)) } catch {
        throw PackageError.io(error, "cannot rename object into", path: store.objectPath(hash).string)
      }
      // Its status in place (the rename moved its change time), for the store's `verified` log.
      if let status = try? Syscalls.status(in: objectsFD, Self.relativeName(hash)) { committed.append((status, hash)) }
    }
    staged.removeAll()
    stagedHashes.removeAll()  // committed: `owns` and `has` find them in objects/
    return touched
  }

  /// The objects committed since the last call, each with its status in `objects/` and the hash of the bytes
  /// written into it: verified as they were written (``VersionStore/damagedVersions(thorough:)`` need not read them).
  func takeCommitted() -> [(status: FileStatus, hash: String)] {
    defer { committed = [] }
    return committed
  }

  private func openDirectories() throws {
    if temporaryFD < 0 {
      do { temporaryFD = try Syscalls.openFile(store.temporaryPath, [.readOnly, .directory]) } catch {
        throw PackageError.io(error, "cannot open", path: store.temporaryPath.string)
      }
    }
    if objectsFD < 0 {
      do { objectsFD = try Syscalls.openFile(store.objectsPath, [.readOnly, .directory]) } catch {
        throw PackageError.io(error, "cannot open", path: store.objectsPath.string)
      }
    }
  }

  /// How staged objects' names in `tmp/` start.
  static let namePrefix = "object-"

  /// `ab/cdef…`: an object's name relative to `objects/` (building a `FilePath` per file costs
  /// more than the call).
  static func relativeName(_ hash: String) -> RawName {
    RawName(String(hash.prefix(2)) + "/" + String(hash.dropFirst(2)))
  }

  /// Hashes all of `fd` from its start.
  static func hash(_ fd: CInt, buffer: UnsafeMutableRawBufferPointer, path: FilePath) throws -> String {
    var hasher = ContentHash.Hasher()
    var offset: Int64 = 0
    while true {
      let count: Int
      do { count = try Syscalls.readBytes(fd, into: buffer, at: offset) } catch {
        throw PackageError.io(error, "cannot read", path: path.string)
      }
      if count == 0 { return hasher.finalize() }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      offset += Int64(count)
    }
  }
}
