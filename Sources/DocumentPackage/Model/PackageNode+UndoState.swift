import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// Everything about a node that an edit can change, other than its place in the tree: the hook
  /// that lets undo put a node back exactly as it was, change tracking included.
  ///
  /// Holds references, never copies: `Data` shares its storage, so keeping the state of a node
  /// with a 100 MB body costs a reference, and an unread file's state holds no bytes at all.
  struct UndoState {
    var edits: Edits
    var preferredName: String
    var permissions: FilePermissions
    var modificationTime: FileTime?
    var fileBody: FileBody
    var cachedContents: Data?
    var linkDestination: String
    /// Where the node's file was when the state was taken: tells whether a save happened since.
    var origin: DiskOrigin?
    /// The node's ``PackageNode/diskGeneration`` then: the same means `origin` is still its entry.
    var generation: UInt32
  }

  /// The node's state now.
  var undoState: UndoState {
    UndoState(
      edits: edits, preferredName: preferredName, permissions: permissions,
      modificationTime: modificationTime, fileBody: fileBody, cachedContents: cachedContents,
      linkDestination: linkDestination, origin: origin, generation: diskGeneration)
  }

  /// Sets every part of the node's state, including which parts count as edited. Pass a state
  /// from ``restorable(_:)``, which accounts for saves since the state was taken.
  func restore(_ state: UndoState) {
    preferredName = state.preferredName
    storedPermissions = state.permissions
    storedModificationTime = state.modificationTime
    fileBody = state.fileBody
    cachedContents = state.cachedContents
    linkDestination = state.linkDestination
    origin = state.origin
    edits = state.edits
  }

  /// `state` as it must be set now to make the node look as it did when `state` was taken.
  ///
  /// If the node still has the file it had then, that is `state` itself. If a save (or a reload)
  /// gave it another file since, the node keeps its current origin, and whatever differs from
  /// that file counts as edited, so the next save writes it: when no save gave the node new bytes
  /// since (its ``diskGeneration`` is the state's: the file was carried by a link, moved or
  /// renamed), the contents are unchanged; else they come from the state's cached bytes (see
  /// ``UndoHistory/pinForSave(root:)``). Never from a file judged by its inode number: a save
  /// removes the earlier file, and the file system may give its number to a later file, here or at
  /// the earlier path.
  /// - Throws: ``PackageError`` with code `changedOnDisk` if the earlier contents are gone.
  func restorable(_ state: UndoState) throws -> UndoState {
    let sameEntry = state.generation == diskGeneration
    if sameEntry && Self.sameFile(state.origin, origin) { return state }
    var result = state
    result.origin = origin
    result.generation = diskGeneration
    let status = origin?.status
    switch kind {
    case .file:
      if case .onDisk = state.fileBody {
        if sameEntry, state.origin != nil, origin != nil {
          result.cachedContents = state.cachedContents ?? cachedContents
          result.edits.remove(.contents)
        } else {
          guard let earlier = state.cachedContents else { throw earlierContentsGone }
          result.fileBody = .data(earlier)
          result.cachedContents = nil
          result.edits.insert(.contents)
        }
      } else {
        result.edits.insert(.contents)
      }
    case .symlink:
      if state.linkDestination != linkDestination || edits.contains(.contents) { result.edits.insert(.contents) }
    case .directory:
      result.edits.insert(.membership)
    }
    if let status, state.permissions == status.permissions, state.modificationTime == status.modificationTime {
      result.edits.remove(.attributes)
    } else {
      result.edits.insert(.attributes)
    }
    return result
  }

  /// Whether `now` is the origin `was`, with nothing changed on disk since: no save (or reload)
  /// happened in between. A directory's entries count (a root entry a save renamed in leaves the
  /// root's inode as it was). Only for two origins of one ``diskGeneration``: across generations
  /// the same inode number may be another entry.
  static func sameFile(_ was: DiskOrigin?, _ now: DiskOrigin?) -> Bool {
    guard let was, let now else { return was == nil && now == nil }
    return was.location === now.location && was.directory == now.directory && was.name == now.name
      && now.status.isUnchanged(since: was.status, listing: true)
  }

  /// Reads a file's contents from `origin`, if that file is still there (the node's current origin,
  /// before a save replaces it: ``UndoHistory/pinForSave(root:)``).
  static func readEarlierContents(_ origin: DiskOrigin?, of node: PackageNode) throws -> Data {
    let gone = node.earlierContentsGone
    guard let origin, let status = try? Syscalls.statusNoFollow(origin.absolutePath),
      status.isSameEntry(as: origin.status)
    else { throw gone }
    let reader = PackageNode(kind: .file, name: node.name, permissions: origin.status.permissions, origin: origin)
    do { return try reader.contents() } catch { throw gone }
  }

  /// The error of an undo whose earlier contents were neither kept nor still on disk.
  private var earlierContentsGone: PackageError {
    PackageError(
      .changedOnDisk, "cannot undo: the earlier contents are no longer on disk:", path: path.isEmpty ? name : path)
  }
}
