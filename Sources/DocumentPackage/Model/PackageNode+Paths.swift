#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// The node at `path` below this one: `"Data/img001.raw"`. Empty components and `.` are ignored.
  ///
  /// Loads only the directories on the way.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if a component does not exist,
  ///   `notADirectory` if the path goes through a file or link, `invalidName` for `..`.
  /// - Complexity: One directory listing per component not yet loaded.
  public func node(at path: String) throws -> PackageNode {
    var node = self
    for component in try Self.components(of: path) {
      guard node.kind == .directory else {
        throw PackageError(.notADirectory, "not a directory:", path: node.displayPath,
                           context: "(on the way to '\(path)') \(node.packageContext)")
      }
      guard let child = try node.children()[component] else { throw node.noSuchChild(component) }
      node = child
    }
    return node
  }

  /// The node at `path`, or `nil` if nothing is there. Other failures still throw.
  public func nodeIfPresent(at path: String) throws -> PackageNode? {
    do { return try node(at: path) } catch let error as PackageError where error.code == .noSuchEntry {
      return nil
    }
  }

  /// Writes a regular file at `path` below this directory: replaces the contents of a file that is
  /// there, or adds a new one, creating missing directories on the way if asked.
  /// - Returns: The file's node.
  /// - Throws: ``PackageError`` with code `notARegularFile` if a directory or link is at `path`,
  ///   `noSuchEntry` if a directory on the way is missing and `createIntermediates` is false.
  @discardableResult
  public func setFile(at path: String, contents: Data, createIntermediates: Bool = true) throws -> PackageNode {
    let (directory, name) = try parentAndName(of: path, create: createIntermediates)
    if let existing = try directory.child(named: name) {
      try existing.setContents(contents)
      return existing
    }
    let file = PackageNode(regularFileWithContents: contents, preferredName: name)
    try directory.adopt(file, as: name)
    return file
  }

  /// Makes a directory at `path` (and any missing directories on the way); returns the existing
  /// one if there is a directory already.
  @discardableResult
  public func makeDirectory(at path: String) throws -> PackageNode {
    var node = self
    for component in try Self.components(of: path) {
      if let child = try node.children()[component] {
        try child.requireKind(.directory)
        node = child
      } else {
        let directory = try PackageNode(directoryWithChildren: [:])
        try node.adopt(directory, as: component)
        node = directory
      }
    }
    return node
  }

  /// Puts `node` at `path`, replacing what is there.
  /// - Returns: The node that was replaced, if any.
  @discardableResult
  public func setNode(_ node: PackageNode, at path: String, createIntermediates: Bool = true) throws -> PackageNode? {
    let (directory, name) = try parentAndName(of: path, create: createIntermediates)
    return try directory.replaceChild(named: name, with: node)
  }

  /// Removes the node at `path` and returns it.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there.
  @discardableResult
  public func removeNode(at path: String) throws -> PackageNode {
    let (directory, name) = try parentAndName(of: path, create: false)
    return try directory.removeChild(named: name)
  }

  /// Moves the node at `source` to `destination` (which must not exist), creating directories on the way.
  public func moveNode(at source: String, to destination: String) throws {
    let node = try self.node(at: source)
    let (directory, name) = try parentAndName(of: destination, create: true)
    guard try directory.child(named: name) == nil else {
      throw PackageError(.nameTaken, "destination already exists:", path: directory.joined(name))
    }
    try node.parent?.removeChild(node)
    do { try directory.adopt(node, as: name) } catch {
      _ = try? self.setNode(node, at: source)
      throw error
    }
    node.preferredName = name
  }

  /// Splits `path` into its directory (looked up, or created) and last name.
  func parentAndName(of path: String, create: Bool) throws -> (PackageNode, String) {
    var components = try Self.components(of: path)
    guard let name = components.popLast() else {
      throw PackageError(.invalidName, "path names no entry:", path: path)
    }
    let directoryPath = components.joined(separator: "/")
    let directory = create ? try makeDirectory(at: directoryPath) : try node(at: directoryPath)
    try directory.requireKind(.directory)
    return (directory, name)
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
