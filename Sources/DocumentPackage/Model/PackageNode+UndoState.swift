#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemPackage

extension PackageNode {
  /// Everything about a node that an edit can change, other than its place in the tree: the hook
  /// that lets ``PackageEditor`` put a node back exactly as it was, change tracking included.
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
  }

  /// The node's state; setting it restores every part, including which parts count as edited.
  var undoState: UndoState {
    get {
      UndoState(edits: edits, preferredName: preferredName, permissions: permissions,
                modificationTime: modificationTime, fileBody: fileBody, cachedContents: cachedContents,
                linkDestination: linkDestination)
    }
    set {
      preferredName = newValue.preferredName
      permissions = newValue.permissions
      modificationTime = newValue.modificationTime
      fileBody = newValue.fileBody
      cachedContents = newValue.cachedContents
      linkDestination = newValue.linkDestination
      edits = newValue.edits  // last: the setters above mark edits
    }
  }
}
