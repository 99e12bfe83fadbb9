import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageEditor {
  /// Replaces a regular file's contents, undoably: ``PackageNode/setContents(_:)``.
  ///
  /// Consecutive edits to the same file within ``UndoStack/coalescingInterval`` are one undo step.
  /// The undo step keeps the previous `Data` (sharing its storage), not a copy.
  /// - Throws: ``PackageError`` with code `notARegularFile` if `node` is not a regular file.
  public func setContents(_ contents: Data, of node: PackageNode) throws {
    try node.requireKind(.file)
    try record("Typing") { recorder in
      recorder.touch(node)
      try node.setContents(contents)
      recorder.coalescingKey = ContentsKey(node: ObjectIdentifier(node))
    }
  }

  /// Makes a regular file's contents come from `source` (read when saved), undoably:
  /// ``PackageNode/setContents(from:)``.
  /// - Throws: ``PackageError`` with code `notARegularFile` if `node` is not a regular file.
  public func setContents(from source: any FileContentSource, of node: PackageNode) throws {
    try node.requireKind(.file)
    try record("Typing") { recorder in
      recorder.touch(node)
      try node.setContents(from: source)
      recorder.coalescingKey = ContentsKey(node: ObjectIdentifier(node))
    }
  }

  /// Sets a node's POSIX permission bits, undoably. Setting the same bits registers nothing.
  public func setPermissions(_ permissions: FilePermissions, of node: PackageNode) {
    guard node.permissions != permissions else { return }
    try? record("Change Permissions") { recorder in
      recorder.touch(node)
      node.permissions = permissions
    }
  }

  /// Sets the permissions of the node at `path`, undoably.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there.
  public func setPermissions(_ permissions: FilePermissions, at path: String) throws {
    setPermissions(permissions, of: try root.node(at: path))
  }

  /// Sets a node's modification time, undoably. Setting the same time registers nothing.
  public func setModificationTime(_ time: FileTime?, of node: PackageNode) {
    guard node.modificationTime != time else { return }
    try? record("Change Date") { recorder in
      recorder.touch(node)
      node.modificationTime = time
    }
  }

  /// Sets the modification time of the node at `path`, undoably.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there.
  public func setModificationTime(_ time: FileTime?, at path: String) throws {
    setModificationTime(time, of: try root.node(at: path))
  }

  /// Points a symbolic link somewhere else, undoably: ``PackageNode/symbolicLinkDestination``.
  /// - Throws: ``PackageError`` with code `notASymbolicLink` if `node` is not a link.
  public func setSymbolicLinkDestination(_ destination: String, of node: PackageNode) throws {
    try node.requireKind(.symlink)
    guard node.symbolicLinkDestination != destination else { return }
    try record("Change Link") { recorder in
      recorder.touch(node)
      node.symbolicLinkDestination = destination
    }
  }

  /// Points the symbolic link at `path` somewhere else, undoably.
  public func setSymbolicLinkDestination(_ destination: String, at path: String) throws {
    try setSymbolicLinkDestination(destination, of: root.node(at: path))
  }
}
