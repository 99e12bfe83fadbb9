#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// The node at `path` below this one: `"Data/img001.raw"`. Empty components and `.` are ignored.
  ///
  /// Lists no directory: each component not listed yet is looked up alone on disk (a directory is
  /// listed only when the name is not found so, see `PackageNode+Probing.swift`).
  /// - Throws: ``PackageError`` with code `noSuchEntry` if a component does not exist,
  ///   `notADirectory` if the path goes through a file or link, `invalidName` for `..`.
  /// - Complexity: One `lstat` per component not yet loaded.
  public func node(at path: String) throws -> PackageNode {
    var node = self
    for component in try Self.components(of: path) {
      guard node.kind == .directory else {
        throw PackageError(
          .notADirectory, "not a directory:", path: node.displayPath,
          context: "(on the way to '\(path)')" + (node.packageContext.isEmpty ? "" : " " + node.packageContext))
      }
      guard let child = try node.child(at: component) else {
        throw node.noSuchChild(component)
      }
      node = child
    }
    return node
  }

  /// The child `name` names: by its name, or by the bytes `name` stands for (``child(withBytes:)``). The one
  /// lookup of a path's component, for reading, replacing, removing and moving alike.
  private func child(at name: String) throws -> PackageNode? {
    try child(named: name) ?? child(withBytes: name)
  }

  /// The child whose name on disk is the bytes `name` stands for, when `name` holds raw-byte scalars
  /// (``RawByteNames``, as an archive's names and the CLI's `\xNN` give them) and the child's name is not UTF-8.
  private func child(withBytes name: String) throws -> PackageNode? {
    guard name.unicodeScalars.contains(where: RawByteNames.isRawByte) else { return nil }
    return try children().values.first { $0.byteExactName == name }
  }

  /// The node at `path`, or `nil` if nothing is there. Other failures still throw.
  public func nodeIfPresent(at path: String) throws -> PackageNode? {
    do { return try node(at: path) } catch let error as PackageError where error.code == .noSuchEntry {
      return nil
    }
  }

  /// Writes a regular file at `path` below this directory: replaces the contents of a file that is
  /// there, or adds a new one, creating missing directories on the way if asked.
  ///
  /// Undo name: "Edit" for a file that was there, "Add File" for a new one. Consecutive writes to
  /// the same file coalesce into one undo step (typing).
  /// - Returns: The file's node.
  /// - Throws: ``PackageError`` with code `notARegularFile` if a directory or link is at `path`,
  ///   `noSuchEntry` if a directory on the way is missing and `createIntermediates` is false.
  @discardableResult
  public func setFile(at path: String, contents: Data, createIntermediates: Bool = true) throws -> PackageNode {
    try mutate("Edit", at: joined(path)) { changes in
      let (directory, name) = try parentAndName(of: path, create: createIntermediates, changes)
      if let existing = try directory.child(at: name) {
        try existing.requireKind(.file)
        changes.touch(existing)
        existing.replaceContents(.data(contents))
        changes.coalescingKey = ContentsKey(node: ObjectIdentifier(existing))
        return existing
      }
      let file = PackageNode(regularFileWithContents: contents, preferredName: name)
      try changes.attach(file, to: directory, as: name)
      changes.coalescingKey = ContentsKey(node: ObjectIdentifier(file))
      changes.actionName = "Add File"
      return file
    }
  }

  /// Replaces the contents of the regular file at `path`: ``setContents(_:)`` by path.
  /// Undo name: "Typing"; consecutive edits to one file coalesce.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there, `notARegularFile` if
  ///   it is not a regular file.
  public func setContents(_ contents: Data, at path: String) throws {
    try node(at: path).setContents(contents)
  }

  /// Makes a directory at `path` (and any missing directories on the way); returns the existing
  /// one if there is a directory already (nothing changes then). Undo name: "New Folder".
  /// - Throws: ``PackageError`` with code `notADirectory` if a file or link is on the way.
  @discardableResult
  public func makeDirectory(at path: String) throws -> PackageNode {
    try mutate("New Folder", at: joined(path)) { changes in try makeDirectories(Self.components(of: path), changes) }
  }

  /// Puts `node` at `path`, replacing what is there. Undo name: "Replace".
  /// - Returns: The node that was replaced, if any.
  @discardableResult
  public func setNode(_ node: PackageNode, at path: String, createIntermediates: Bool = true) throws -> PackageNode? {
    try mutate("Replace", at: joined(path)) { changes in
      let (directory, name) = try parentAndName(of: path, create: createIntermediates, changes)
      return try directory.replace(named: name, with: node, changes)
    }
  }

  /// Removes the node at `path` and returns it. Undo name: "Delete" (undo puts this same node back).
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there.
  @discardableResult
  public func removeNode(at path: String) throws -> PackageNode {
    try mutate("Delete", at: joined(path)) { changes in
      let (directory, name) = try parentAndName(of: path, create: false, changes)
      guard let child = try directory.child(at: name) else { throw directory.noSuchChild(name) }
      try changes.detach(child)
      return child
    }
  }

  /// Moves the node at `source` to `destination` (which must not exist), creating directories on
  /// the way. Undo name: "Move".
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is at `source`, `nameTaken` if
  ///   something is at `destination`, `invalidArgument` for a move into the node itself.
  public func moveNode(at source: String, to destination: String) throws {
    try mutate("Move", at: joined(source)) { changes in
      let node = try self.node(at: source)
      let (directory, name) = try parentAndName(of: destination, create: true, changes)
      guard try directory.child(at: name) == nil else {
        throw PackageError(.nameTaken, "destination already exists:", path: directory.joined(name))
      }
      changes.touch(node)
      try changes.detach(node)
      try changes.attach(node, to: directory, as: name)
      node.preferredName = name
    }
  }

  /// Renames the node at `path` (its last component) to `newName`: ``renameChild(named:to:)`` by
  /// path. Undo name: "Rename".
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is at `path`, `invalidArgument`
  ///   if `path` names the root, or as ``renameChild(named:to:)``.
  public func renameNode(at path: String, to newName: String) throws {
    let node = try self.node(at: path)
    guard let parent = node.parent else {
      throw PackageError(.invalidArgument, "cannot rename the package root:", path: path)
    }
    try parent.renameChild(named: node.name, to: newName)
  }

  /// Splits `path` into its directory (looked up, or created through `changes`) and last name.
  func parentAndName(of path: String, create: Bool, _ changes: ChangeCollector) throws -> (PackageNode, String) {
    var components = try Self.components(of: path)
    guard let name = components.popLast() else {
      throw PackageError(.invalidName, "path names no entry:", path: path)
    }
    let directory =
      create ? try makeDirectories(components, changes) : try node(at: components.joined(separator: "/"))
    try directory.requireKind(.directory)
    return (directory, name)
  }

  /// Follows `components` down from this node, making the directories that are missing.
  func makeDirectories(_ components: [String], _ changes: ChangeCollector) throws -> PackageNode {
    var node = self
    for component in components {
      if let child = try node.lookUpChild(named: component) {
        try child.requireKind(.directory)
        node = child
      } else {
        let directory = try PackageNode(directoryWithChildren: [:])
        try changes.attach(directory, to: node, as: component)
        node = directory
      }
    }
    return node
  }

  /// The names in `path`, without empty components and `.`; `..` and invalid names are refused.
  static func components(of path: String) throws -> [String] {
    try path.split(separator: "/", omittingEmptySubsequences: true).compactMap { part in
      if part == "." { return nil }
      let name = String(part)
      try validate(name: name)
      return name
    }
  }
}
