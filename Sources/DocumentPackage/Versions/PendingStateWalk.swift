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
/// **What the walk takes as the version's own.** An entry found in the package is the version's
/// (and judged by its times, below) unless a pending record from *T* on accounts for it: a path a
/// save replaced is read from that save's `ID.old` instead, and an entry a save added (`replaced
/// absent`) is left out. That save renamed it in where nothing had its name (`RENAME_NOREPLACE`),
/// so the directory had none at *T* either if no other program changed the directory's entries
/// between *T* and that rename: the directory's times recorded around each of our renames in it
/// say so when the first rename's times before are not after *T* and each next one's times before
/// are the previous one's times after (``addedSinceCapture(_:in:)``; no time after the adding
/// rename is needed). Otherwise the added entry's name, never what is in it, is named as not kept.
/// So a save that renames an entry in leaves a record even when killed right after the rename:
/// recovery writes it from the capture marker, to which the save appended the directory's times
/// just before the rename (``SaveIntent/BeforeSwap``); without one, the earlier pending versions
/// would take the added entry for theirs and name all of it.
///
/// A file is kept only if its modification time is not after the capture time *T* (an in-place
/// write sets it: `write`, `>>`, `dd conv=notrunc`, and a write through `mmap`, which the kernel
/// stamps at the first write fault), and if its name still leads to the inode it led to at *T*
/// with the contents it had then. That second part is where the change time comes in: a rename
/// onto the name, a `chmod`, a write whose modification time was set back, but also a new hard
/// link (a `cp -al` backup of the package, a sync client) all set it. So a file whose change time
/// is after *T* is still kept when one of these vouches for it:
/// - a save since relinked it (it is in a subtree a save replaced, where our own links set it);
/// - its directory is *stable*, so no name in it leads to another inode than at *T*: neither of the
///   directory's times is after *T*, or, where saves since renamed an entry in it, its times
///   before the first such rename are not after *T*, each save's "before" times are the previous
///   one's "after" times, and its times now are the last one's "after" times
///   (``PendingVersion/ContainerTimes``). The file is then the same inode, unwritten (its
///   modification time says so), and is copied; the directory (as opened, not as found at its
///   path) is checked again after the copy, so a rename into it meanwhile is caught;
/// - the store already holds a copy of this very content identity (the ``HashCache`` knows its
///   device, inode, size, modification and change time, and the store owns that blob): the version gets
///   that blob, and the package file is not read at all.
///
/// Otherwise the file is named in ``PackageVersion/unkeptPaths``. **The residual window**: a
/// program that writes a file in place during the window and then sets its modification time
/// back to before *T* (`touch -d`, `utimensat`; a backup tool that restores times after writing)
/// in a stable directory, or without a new inode, is not detected: the version keeps the new
/// bytes (never bytes the store copied under that identity earlier: the hash cache compares the
/// change time too, which such a write moves). Editors and `>>`, `dd`,
/// `mmap` writers do not do that. A `chmod` in the window is likewise not seen (the version
/// records the new permissions, with the right bytes). And file times have the granularity of
/// the kernel's clock tick (a few milliseconds): a rename by another program into a directory in
/// the same tick as a save's own rename there leaves the directory's times as that save recorded
/// them.
///
/// Files are re-checked after their copy is made, so a write racing with the copy is caught too.
/// A directory outside the replaced subtrees whose entries changed after *T* (not by our own
/// saves' renames) is named as well: entries removed from it since are missing.
struct PendingStateWalk {
  let store: VersionStore
  /// The version to settle first, then the later pending versions, oldest first.
  let pending: [PendingVersion]
  var writer: ObjectWriter
  fileprivate(set) var unkept: [String] = []
  fileprivate let start: FileTime
  fileprivate let changedPaths: Set<String>
  fileprivate let containers: Set<String>

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
      switch pending[index].replaced {
      case .kept: break
      case .absent: return nil  // no package before that save (not a path of a kept save)
      case .lost:
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
    let underChanged = source < pending.count
    let rootStable = !underChanged && (try? Syscalls.statusNoFollow(root)).map { isStable("", $0) } == true
    let top = try Directory(
      relative: "", physical: root, source: source, underChanged: underChanged, stable: rootStable, self)
    let result = try TreeFold.run(top, &self)
    try writer.finish()
    return result
  }

  private func oldPath(_ index: Int) -> FilePath {
    store.pendingPath.appending("\(pending[index].id).old")
  }

  /// One directory of the version being written: the package's directory at `physical` (or a
  /// replaced subtree's), `relative` in the version.
  struct Directory: TreeFoldFrame {
    typealias Context = PendingStateWalk
    typealias Output = (tree: String, size: Int64)

    let relative: String
    let physical: FilePath
    /// The pending version whose replaced subtree holds it (`pending.count`: the package).
    let source: Int
    /// It is in a subtree a save since *T* replaced (its files were relinked).
    let underChanged: Bool
    /// Its status as listed, when it was judged stable (see the type's discussion).
    private let opened: FileStatus?
    /// No entry of it can lead to another inode than at *T*.
    private let stable: Bool
    /// Its entries' names: as the version's tree has them (``RawName/text``) and as on disk.
    private let names: [(text: String, raw: RawName)]
    private var next = 0
    private var text = ""
    private var total: Int64 = 0
    /// The subdirectory handed out last, awaiting its tree.
    private var awaiting: (name: String, status: FileStatus)?

    init(
      relative: String, physical: FilePath, source: Int, underChanged: Bool, stable: Bool, _ walk: PendingStateWalk
    ) throws {
      self.relative = relative
      self.physical = physical
      self.source = source
      self.underChanged = underChanged
      let fd: CInt
      do { fd = try Syscalls.openFile(physical, [.readOnly, .directory, .noFollow]) } catch {
        throw PackageError.io(
          error, "cannot open directory", path: physical.string, context: "while keeping a version")
      }
      defer { Syscalls.closeFile(fd) }
      // Judged on the directory opened (not the one at the path a moment ago), and re-checked after
      // each copy that relies on it: a rename into it while it is walked makes it unstable.
      opened = stable ? try? Syscalls.status(of: fd) : nil
      self.stable = opened.map { walk.isStable(relative, $0) } ?? false
      do {
        names = try Syscalls.entries(ofDirectory: fd).map { ($0.name.text, $0.name) }.sorted {
          $0.text.utf8Precedes($1.text)
        }
      } catch {
        throw PackageError.io(error, "cannot list", path: physical.string, context: "while keeping a version")
      }
    }

    /// Whether the directory at the path is still the one listed, with the same entries.
    private func stillStable() -> Bool {
      guard let opened, let now = try? Syscalls.statusNoFollow(physical) else { return false }
      return now.inode == opened.inode && now.device == opened.device
        && now.modificationTime == opened.modificationTime && now.changeTime == opened.changeTime
    }

    mutating func nextSubdirectory(_ walk: inout PendingStateWalk) throws -> Directory? {
      while next < names.count {
        let (name, raw) = names[next]
        let path = relative.isEmpty ? name : relative + "/" + name
        guard let component = raw.component else {
          next += 1
          continue
        }
        var childPhysical = physical.appending(component)
        var childSource = source
        if let index = walk.pending.indices.first(where: { $0 < source && walk.pending[$0].changed == path }) {
          switch walk.pending[index].replaced {
          case .kept:
            childPhysical = walk.oldPath(index)
            childSource = index
          case .absent:
            // Added by that save: not in this state, unless another program removed it between *T*
            // and that save, which only the directory's times can rule out.
            if !stable && !underChanged && !walk.addedSinceCapture(index, in: relative) { walk.unkept.append(path) }
            next += 1
            continue
          case .lost:
            walk.unkept.append(path)
            next += 1
            continue
          }
        }
        let relinked = underChanged || walk.changedPaths.contains(path)
        guard let status = try? Syscalls.statusNoFollow(childPhysical) else {
          walk.unkept.append(path)  // listed, then gone: removed since T, its bytes with it
          next += 1
          continue
        }
        switch status.kind {
        case .directory?:
          if childSource != 0, status.modificationTime > walk.start, !walk.containers.contains(path),
            !walk.changedPaths.contains(path)
          {
            walk.unkept.append(path + "/")
          }
          awaiting = (name, status)
          return try Directory(
            relative: path, physical: childPhysical, source: childSource, underChanged: relinked,
            stable: !relinked && walk.isStable(path, status), walk)
        case .file?:
          try file(name, path: path, at: childPhysical, status: status, relinked: relinked, &walk)
        case .symlink?:
          // A link's target cannot be written in place; a new link at the name changes the directory.
          if walk.unchanged(status, relinked: relinked || stable),
            let target = try? Syscalls.readLink(at: childPhysical)
          {
            text +=
              TreeEntry(
                kind: .symlink, permissions: status.permissions, time: status.modificationTime, size: status.size,
                reference: target, name: name
              ).line
          } else {
            walk.unkept.append(path)
          }
        case nil: break  // not a kind a package holds (a FIFO, a socket)
        }
        next += 1
      }
      return nil
    }

    /// Keeps the file `name`, or names it as not kept (see the type's discussion).
    private mutating func file(
      _ name: String, path: String, at location: FilePath, status: FileStatus, relinked: Bool,
      _ walk: inout PendingStateWalk
    ) throws {
      guard status.modificationTime <= walk.start else {
        walk.unkept.append(path)  // written in place (or replaced by a newer file) after T
        return
      }
      let reliesOnDirectory = !relinked && status.changeTime > walk.start
      let hash: String
      if reliesOnDirectory && !stable {
        // Linked, renamed onto or chmod'ed since T, in a directory that changed too: keep it
        // only if the store already has its own copy of this content identity.
        guard let known = try walk.writer.ownedBlob(for: status) else {
          walk.unkept.append(path)
          return
        }
        hash = known
      } else {
        hash = try walk.writer.storeFile(at: location, status: status)
        try walk.writer.commitIfMany()
        guard let after = try? Syscalls.statusNoFollow(location), after.inode == status.inode,
          after.size == status.size, after.modificationTime == status.modificationTime,
          after.changeTime == status.changeTime, !reliesOnDirectory || stillStable()
        else {
          walk.unkept.append(path)  // written while it was being copied
          return
        }
      }
      total += status.size
      text +=
        TreeEntry(
          kind: .file, permissions: status.permissions, time: status.modificationTime, size: status.size,
          reference: hash, name: name
        ).line
    }

    mutating func adopt(_ output: Output, _ walk: inout PendingStateWalk) throws {
      guard let (name, status) = awaiting else { return }
      awaiting = nil
      total += output.size
      text +=
        TreeEntry(
          kind: .directory, permissions: status.permissions, time: status.modificationTime, size: 0,
          reference: output.tree, name: name
        ).line
      next += 1
    }

    func finish(_ walk: inout PendingStateWalk) throws -> Output {
      let data = Data(text.utf8)
      let hash = ContentHash.of(data)
      try walk.writer.writeObject(hash) { fd throws(Errno) in try StoreFiles.write(data, to: fd) }
      return (hash, total)
    }
  }

  /// Whether an entry's times say it is as it was at the capture (see the type's discussion).
  func unchanged(_ status: FileStatus, relinked: Bool) -> Bool {
    status.modificationTime <= start && (relinked || status.changeTime <= start)
  }

  /// Whether the entries of the package's directory at `path` (whose status is `status`) cannot
  /// lead to other inodes than at *T*, apart from those our saves renamed in it (see the type's
  /// discussion).
  func isStable(_ path: String, _ status: FileStatus) -> Bool {
    guard containers.contains(path) else {
      return status.modificationTime <= start && status.changeTime <= start
    }
    guard let last = pending.lastIndex(where: { $0.container == path }),
      renamesFollowEachOther(in: path, through: last), let after = pending[last].containerTimes?.after
    else { return false }
    return status.modificationTime == after.modification && status.changeTime == after.change
  }

  /// Whether the entry `pending[index]` added to the package's directory `path` was not in it at
  /// *T*: no other program changed the directory's entries between *T* and that save's rename,
  /// which found no entry of its name (see the type's discussion).
  func addedSinceCapture(_ index: Int, in path: String) -> Bool {
    pending[index].replaced == .absent && pending[index].container == path
      && renamesFollowEachOther(in: path, through: index)
  }

  /// Whether each rename our saves made in the package's directory `path` from *T* on, up to
  /// `pending[last]`'s, found the directory as the rename before left it (its times before are
  /// that one's times after), the first as it was at *T* (not after it): then only our renames
  /// changed its entries between *T* and `pending[last]`'s rename.
  private func renamesFollowEachOther(in path: String, through last: Int) -> Bool {
    var previous: PendingVersion.ContainerTimes?
    for version in pending[...last] where version.container == path {
      guard let times = version.containerTimes else { return false }
      if let previous {
        guard let after = previous.after, times.before == after else { return false }
      } else {
        guard times.before.modification <= start, times.before.change <= start else { return false }
      }
      previous = times
    }
    return previous != nil
  }
}
