import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the tree of the oldest pending version from what is on disk now (see
/// ``DeferredKeeping``): each path is read from the replaced subtree of the earliest save at or
/// after the version's capture that replaced it (`pending/ID.old`), else from the package.
///
/// A file is kept only if it cannot have changed since the capture time *T*: its modification
/// time is not after *T* (an in-place write, `mmap` included, sets it), and, where no save since
/// relinked it, neither is its change time (a rename onto it, `chmod`, or a write whose time was
/// set back). Files are re-checked after their copy is made, so a write racing with the copy is
/// caught too. A directory outside the replaced subtrees whose entries changed after *T* (not by
/// our own saves' renames) is named as well: entries removed from it since are missing.
struct PendingStateWalk {
  let store: VersionStore
  /// The version to settle first, then the later pending versions, oldest first.
  let pending: [PendingVersion]
  var writer: ObjectWriter
  private(set) var unkept: [String] = []
  private let start: FileTime
  private let changedPaths: Set<String>
  private let containers: Set<String>

  init(store: VersionStore, pending: [PendingVersion]) {
    self.store = store
    self.pending = pending
    writer = ObjectWriter(store: store, cache: HashCache(path: store.hashesPath))
    start = pending[0].start
    changedPaths = Set(pending.map(\.changed))
    containers = Set(pending.compactMap(\.container))
  }

  /// Writes the version's objects; returns its root tree and size, or nil if its whole previous
  /// state was lost.
  mutating func run() throws -> (tree: String, size: Int64)? {
    var root = store.packagePath
    var source = pending.count
    if let index = pending.firstIndex(where: { $0.changed.isEmpty }) {
      guard pending[index].replacedKept else {
        unkept.append(".")
        return nil
      }
      root = oldPath(index)
      source = index
    } else if let status = try? Syscalls.statusNoFollow(root), status.modificationTime > start,
      !containers.contains("")
    {
      unkept.append("./")
    }
    let result = try directory(relative: "", physical: root, source: source, underChanged: source < pending.count)
    try writer.finish()
    return result
  }

  private func oldPath(_ index: Int) -> FilePath {
    store.pendingPath.appending("\(pending[index].id).old")
  }

  private mutating func directory(relative: String, physical: FilePath, source: Int, underChanged: Bool) throws
    -> (String, Int64)
  {
    let fd: CInt
    do { fd = try Syscalls.openFile(physical, [.readOnly, .directory, .noFollow]) } catch {
      throw PackageError.io(error, "cannot open directory", path: physical.string, context: "while keeping a version")
    }
    defer { Syscalls.closeFile(fd) }
    let names: [String]
    do { names = try Syscalls.entries(ofDirectory: fd).map(\.name.string) } catch {
      throw PackageError.io(error, "cannot list", path: physical.string, context: "while keeping a version")
    }
    var text = ""
    var total: Int64 = 0
    for name in names.sorted(by: { $0.utf8Precedes($1) }) {
      let path = relative.isEmpty ? name : relative + "/" + name
      var childPhysical = physical.appending(name)
      var childSource = source
      if let index = pending.indices.first(where: { $0 < source && pending[$0].changed == path }) {
        guard pending[index].replacedKept else {
          unkept.append(path)
          continue
        }
        childPhysical = oldPath(index)
        childSource = index
      }
      let relinked = underChanged || changedPaths.contains(path)
      guard let status = try? Syscalls.statusNoFollow(childPhysical), let kind = status.kind else { continue }
      let entry: TreeEntry
      switch kind {
      case .directory:
        if childSource != 0, status.modificationTime > start, !containers.contains(path), !changedPaths.contains(path) {
          unkept.append(path + "/")
        }
        let (tree, size) = try directory(
          relative: path, physical: childPhysical, source: childSource, underChanged: relinked)
        total += size
        entry = TreeEntry(
          kind: .directory, permissions: status.permissions, time: status.modificationTime, size: 0, reference: tree,
          name: name)
      case .file:
        guard unchanged(status, relinked: relinked) else {
          unkept.append(path)
          continue
        }
        let hash = try writer.storeFile(at: childPhysical, status: status)
        try writer.commitIfMany()
        guard let after = try? Syscalls.statusNoFollow(childPhysical), after.inode == status.inode,
          after.size == status.size, after.modificationTime == status.modificationTime,
          after.changeTime == status.changeTime
        else {
          unkept.append(path)  // written while it was being copied
          continue
        }
        total += status.size
        entry = TreeEntry(
          kind: .file, permissions: status.permissions, time: status.modificationTime, size: status.size,
          reference: hash, name: name)
      case .symlink:
        guard unchanged(status, relinked: relinked), let target = try? Syscalls.readLink(at: childPhysical) else {
          unkept.append(path)
          continue
        }
        entry = TreeEntry(
          kind: .symlink, permissions: status.permissions, time: status.modificationTime, size: status.size,
          reference: target, name: name)
      }
      text += entry.line
    }
    let data = Data(text.utf8)
    let hash = ContentHash.of(data)
    try writer.writeObject(hash) { fd throws(Errno) in try StoreFiles.write(data, to: fd) }
    return (hash, total)
  }

  /// Whether an entry's times say it is as it was at the capture (see the type's discussion).
  private func unchanged(_ status: FileStatus, relinked: Bool) -> Bool {
    status.modificationTime <= start && (relinked || status.changeTime <= start)
  }
}
