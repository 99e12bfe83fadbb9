#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageEditor {
  /// Adds `child` to `directory` under its preferred name or a unique variant, undoably:
  /// ``PackageNode/addChild(_:)``.
  /// - Returns: The name the child was given.
  @discardableResult
  public func addChild(_ child: PackageNode, to directory: PackageNode) throws -> String {
    try record("Add") { recorder in
      let existing = try directory.children()
      try PackageNode.validate(name: child.preferredName)
      let key = PackageNode.uniqueName(for: child.preferredName) { existing[$0] != nil }
      try recorder.attach(child, to: directory, as: key)
      return key
    }
  }

  /// Adds a new regular file to `directory`, undoably: ``PackageNode/addRegularFile(contents:preferredName:)``.
  /// - Returns: The name the file was given.
  @discardableResult
  public func addRegularFile(contents: Data, preferredName: String, to directory: PackageNode) throws -> String {
    try addChild(PackageNode(regularFileWithContents: contents, preferredName: preferredName), to: directory)
  }

  /// Removes `child` from `directory`, undoably: ``PackageNode/removeChild(_:)``.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if `child` is not a child of `directory`.
  public func removeChild(_ child: PackageNode, from directory: PackageNode) throws {
    try record("Delete") { recorder in
      guard try directory.children()[child.name] === child else {
        throw PackageError(
          .noSuchEntry, "not a child of", path: directory.path.isEmpty ? directory.name : directory.path,
          context: ": \(child.name)")
      }
      recorder.detach(child)
    }
  }

  /// Removes the child called `name` from `directory`, undoably: ``PackageNode/removeChild(named:)``.
  /// - Returns: The removed node.
  @discardableResult
  public func removeChild(named name: String, from directory: PackageNode) throws -> PackageNode {
    try record("Delete") { recorder in
      guard let child = try directory.children()[name] else { throw directory.noSuchChild(name) }
      recorder.detach(child)
      return child
    }
  }

  /// Puts `node` where `directory`'s child called `name` is, undoably: ``PackageNode/replaceChild(named:with:)``.
  /// - Returns: The child that was replaced, if any.
  @discardableResult
  public func replaceChild(named name: String, in directory: PackageNode, with node: PackageNode) throws -> PackageNode?
  {
    try record("Replace") { recorder in try replace(named: name, in: directory, with: node, recorder) }
  }

  /// Renames `directory`'s child called `name` to `newName`, undoably: ``PackageNode/renameChild(named:to:)``.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no such child, `nameTaken` if
  ///   another child is called `newName`, `invalidName` if `newName` cannot be a file name.
  public func renameChild(named name: String, in directory: PackageNode, to newName: String) throws {
    try record("Rename") { recorder in
      try PackageNode.validate(name: newName)
      let existing = try directory.children()
      guard let child = existing[name] else { throw directory.noSuchChild(name) }
      guard name != newName else { return }
      guard existing[newName] == nil else {
        throw PackageError(.nameTaken, "name already taken:", path: directory.joined(newName))
      }
      recorder.touch(child)
      recorder.detach(child)
      child.preferredName = newName
      try recorder.attach(child, to: directory, as: newName)
    }
  }

  /// Renames the node at `path` (its last component) to `newName`, undoably.
  public func renameNode(at path: String, to newName: String) throws {
    let node = try root.node(at: path)
    guard let parent = node.parent else {
      throw PackageError(.invalidArgument, "cannot rename the package root:", path: path)
    }
    try renameChild(named: node.name, in: parent, to: newName)
  }

  func replace(named name: String, in directory: PackageNode, with node: PackageNode, _ recorder: ChangeRecorder) throws
    -> PackageNode?
  {
    try PackageNode.validate(name: name)
    let old = try directory.children()[name]
    if let old { recorder.detach(old) }
    recorder.touch(node)
    node.preferredName = name
    try recorder.attach(node, to: directory, as: name)
    return old
  }
}
