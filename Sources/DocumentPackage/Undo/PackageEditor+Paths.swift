#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageEditor {
  /// Writes a regular file at `path`, undoably: ``PackageNode/setFile(at:contents:createIntermediates:)``.
  ///
  /// Replaces the contents of the file there, or adds a new file (and missing directories on the
  /// way, if asked). Consecutive writes to the same file coalesce into one undo step.
  /// - Returns: The file's node.
  /// - Throws: ``PackageError`` with code `notARegularFile` if a directory or link is at `path`,
  ///   `noSuchEntry` if a directory on the way is missing and `createIntermediates` is false.
  @discardableResult
  public func setFile(at path: String, contents: Data, createIntermediates: Bool = true) throws -> PackageNode {
    try record("Edit") { recorder in
      let (directory, name) = try parentAndName(of: path, create: createIntermediates, recorder)
      if let existing = try directory.child(named: name) {
        try existing.requireKind(.file)
        recorder.touch(existing)
        try existing.setContents(contents)
        recorder.coalescingKey = ContentsKey(node: ObjectIdentifier(existing))
        return existing
      }
      let file = PackageNode(regularFileWithContents: contents, preferredName: name)
      try recorder.attach(file, to: directory, as: name)
      recorder.coalescingKey = ContentsKey(node: ObjectIdentifier(file))
      return file
    }
  }

  /// Makes a directory at `path` and any missing on the way, undoably: ``PackageNode/makeDirectory(at:)``.
  /// - Returns: The directory (the existing one if there is one; nothing is registered then).
  @discardableResult
  public func makeDirectory(at path: String) throws -> PackageNode {
    try record("New Folder") { recorder in try makeDirectories(PackageNode.components(of: path), recorder) }
  }

  /// Puts `node` at `path`, replacing what is there, undoably: ``PackageNode/setNode(_:at:createIntermediates:)``.
  /// - Returns: The node that was replaced, if any.
  @discardableResult
  public func setNode(_ node: PackageNode, at path: String, createIntermediates: Bool = true) throws -> PackageNode? {
    try record("Replace") { recorder in
      let (directory, name) = try parentAndName(of: path, create: createIntermediates, recorder)
      return try replace(named: name, in: directory, with: node, recorder)
    }
  }

  /// Removes the node at `path`, undoably: ``PackageNode/removeNode(at:)``.
  /// - Returns: The removed node (undo puts this same node back).
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there.
  @discardableResult
  public func removeNode(at path: String) throws -> PackageNode {
    try record("Delete") { recorder in
      let (directory, name) = try parentAndName(of: path, create: false, recorder)
      guard let child = try directory.child(named: name) else { throw directory.noSuchChild(name) }
      recorder.detach(child)
      return child
    }
  }

  /// Moves the node at `source` to `destination`, which must not exist, creating directories on
  /// the way, undoably: ``PackageNode/moveNode(at:to:)``.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is at `source`, `nameTaken` if
  ///   something is at `destination`, `invalidArgument` for a move into the node itself.
  public func moveNode(at source: String, to destination: String) throws {
    try record("Move") { recorder in
      let node = try root.node(at: source)
      let (directory, name) = try parentAndName(of: destination, create: true, recorder)
      guard try directory.child(named: name) == nil else {
        throw PackageError(.nameTaken, "destination already exists:", path: directory.joined(name))
      }
      recorder.touch(node)
      recorder.detach(node)
      try recorder.attach(node, to: directory, as: name)
      node.preferredName = name
    }
  }

  /// Replaces a regular file's contents at `path`, undoably: ``PackageNode/setContents(_:)``.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there, `notARegularFile` if
  ///   it is not a regular file.
  public func setContents(_ contents: Data, at path: String) throws {
    try setContents(contents, of: root.node(at: path))
  }
}
