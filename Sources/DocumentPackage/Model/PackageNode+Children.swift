#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PackageNode {
  /// A directory's children by name: `FileWrapper.fileWrappers`.
  ///
  /// Listed from disk on first access (one `getdents` pass and one `lstat` per entry), then kept.
  /// FIFOs, sockets and device files in the directory are not part of the model and are left out.
  /// - Throws: ``PackageError`` with code `notADirectory` for other kinds, `changedOnDisk` if the
  ///   directory vanished or changed kind since it was loaded, `io` if it cannot be listed.
  public func children() throws -> [String: PackageNode] {
    try requireKind(.directory)
    if let loadedChildren { return loadedChildren }
    let (listed, sorted) = mergingProbedChildren(
      into: try listingSource.map(listChildrenFromSource) ?? listChildrenFromDisk())
    loadedChildren = listed
    sortedChildrenCache = sorted
    probedChildren = nil
    probedRemovals = nil
    return listed
  }

  /// A directory's children in sorted order, listed from disk now and not kept by the model, so
  /// that a walk over a large package holds only the directories on its way (`docpkg pack`); the
  /// model's own, as ``sortedChildren()``, when it has listed them or they are not on disk. Listed
  /// as the model lists, below the package's root without following links.
  /// - Throws: As ``children()``.
  package func sortedChildrenListedAnew() throws -> [PackageNode] {
    try requireKind(.directory)
    guard loadedChildren == nil, listingSource == nil, origin != nil else { return try sortedChildren() }
    return try listChildrenFromDisk().1
  }

  /// The special files (FIFOs, sockets, devices) in this directory on disk, which the model does
  /// not hold, listed as ``sortedChildrenListedAnew()`` lists; nil when the directory is not on disk
  /// as the model has it.
  /// - Throws: ``PackageError`` naming the directory.
  package func specialEntriesOnDisk() throws -> [(name: RawName, kind: String)]? {
    guard kind == .directory, diskLocation != nil, let origin else { return nil }
    do { return try Syscalls.specialEntries(beneath: origin.location.root, origin.relativePath) } catch {
      throw onDiskError(error, path: origin.absolutePath, action: "list directory")
    }
  }

  /// A directory's children sorted by name, byte-wise in UTF-8 (the order is the same in every locale).
  /// - Complexity: O(*k* log *k*) for *k* children the first time after a change; O(1) after that.
  public func sortedChildren() throws -> [PackageNode] {
    let children = try children()  // lists from disk if needed, which fills the cache
    if let sortedChildrenCache { return sortedChildrenCache }
    let sorted = children.values.sorted { $0.name.utf8Precedes($1.name) }
    sortedChildrenCache = sorted
    return sorted
  }

  /// The child called `name`, or `nil` if there is none.
  ///
  /// In a directory not listed yet, the one name is looked up on disk without listing the others.
  public func child(named name: String) throws -> PackageNode? {
    try lookUpChild(named: name)
  }

  /// The name under which `child` is held by this directory, or `nil` if it is not a child:
  /// `FileWrapper.keyForChildFileWrapper(_:)`.
  public func key(for child: PackageNode) -> String? {
    guard child.parent === self, heldChildren?[child.name] === child else { return nil }
    return child.name
  }

  /// Adds `child` under its ``preferredName``, or under a unique variant of it if that is taken:
  /// `FileWrapper.addFileWrapper(_:)`.
  ///
  /// The unique-name rule is Finder's: `notes.txt` becomes `notes 2.txt`, then `notes 3.txt`, and so
  /// on; the extension is what follows the last dot, unless that dot starts the name (`.hidden 2`).
  /// Undo name: "Add".
  /// - Returns: The name the child was given.
  /// - Throws: ``PackageError`` with code `notADirectory` if this is not a directory, `invalidName`
  ///   if the preferred name cannot be a file name, `invalidArgument` if `child` already has a
  ///   parent or is an ancestor of this directory, or if the tree is read-only here.
  @discardableResult
  public func addChild(_ child: PackageNode) throws -> String {
    try mutate("Add", at: joined(child.preferredName)) { changes in
      let existing = try children()
      try Self.validate(name: child.preferredName)
      let key = Self.uniqueName(for: child.preferredName) { existing[$0] != nil }
      try changes.attach(child, to: self, as: key)
      return key
    }
  }

  /// Adds a new regular file with `contents` under `preferredName` (or a unique variant):
  /// `FileWrapper.addRegularFile(withContents:preferredFilename:)`. Undo name: "Add".
  /// - Returns: The name the file was given.
  /// - Throws: As ``addChild(_:)``.
  @discardableResult
  public func addRegularFile(contents: Data, preferredName: String) throws -> String {
    try addChild(PackageNode(regularFileWithContents: contents, preferredName: preferredName))
  }

  /// Removes `child` from this directory: `FileWrapper.removeFileWrapper(_:)`. Undo name: "Delete".
  /// - Throws: ``PackageError`` with code `noSuchEntry` if `child` is not a child of this directory.
  public func removeChild(_ child: PackageNode) throws {
    try mutate("Delete", at: joined(child.name)) { changes in
      guard try children()[child.name] === child else {
        throw PackageError(.noSuchEntry, "not a child of", path: displayPath, context: ": \(child.name)")
      }
      try changes.detach(child)
    }
  }

  /// Removes and returns the child called `name`. Undo name: "Delete" (undo puts this same node back).
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is none.
  @discardableResult
  public func removeChild(named name: String) throws -> PackageNode {
    try mutate("Delete", at: joined(name)) { changes in
      guard let child = try children()[name] else { throw noSuchChild(name) }
      try changes.detach(child)
      return child
    }
  }

  /// Puts `node` where the child called `name` is (or adds it under `name` if there is none).
  /// Undo name: "Replace".
  /// - Returns: The child that was replaced, if any.
  @discardableResult
  public func replaceChild(named name: String, with node: PackageNode) throws -> PackageNode? {
    try mutate("Replace", at: joined(name)) { changes in try replace(named: name, with: node, changes) }
  }

  /// Renames the child called `name` to `newName`. Undo name: "Rename".
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no such child, `nameTaken` if
  ///   another child is called `newName`, `invalidName` if `newName` cannot be a file name.
  public func renameChild(named name: String, to newName: String) throws {
    try mutate("Rename", at: joined(name)) { changes in
      try Self.validate(name: newName)
      let existing = try children()
      guard let child = existing[name] else { throw noSuchChild(name) }
      guard name != newName else { return }
      guard existing[newName] == nil else {
        throw PackageError(.nameTaken, "name already taken:", path: joined(newName))
      }
      changes.touch(child)
      try changes.detach(child)
      child.preferredName = newName
      try changes.attach(child, to: self, as: newName)
    }
  }

  /// The primitive changes of ``replaceChild(named:with:)``, inside a mutator.
  func replace(named name: String, with node: PackageNode, _ changes: ChangeCollector) throws -> PackageNode? {
    try Self.validate(name: name)
    let old = try children()[name]
    if let old { try changes.detach(old) }
    changes.touch(node)
    node.preferredName = name
    try changes.attach(node, to: self, as: name)
    return old
  }

  /// Whether `name` can be a file name: not empty, `.` or `..`, no `/` or NUL, at most 255 bytes.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name != "." && name != ".." && name.utf8.count <= 255
      && !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
  }

  /// A name built from `preferred` that `isTaken` says is free, by Finder's rule (see ``addChild(_:)``).
  public static func uniqueName(for preferred: String, isTaken: (String) -> Bool) -> String {
    guard isTaken(preferred) else { return preferred }
    var stem = Substring(preferred)
    var suffix: Substring = ""
    if let dot = preferred.lastIndex(of: "."), dot != preferred.startIndex {
      stem = preferred[..<dot]
      suffix = preferred[dot...]
    }
    var number = 2
    while true {
      let candidate = "\(stem) \(number)\(suffix)"
      if !isTaken(candidate) { return candidate }
      number += 1
    }
  }

  static func validate(name: String) throws {
    guard isValidName(name) else {
      throw PackageError(
        .invalidName, "invalid name:", path: name,
        context: "(names must be 1-255 bytes, not '.' or '..', without '/' or NUL)")
    }
  }

  /// Makes `child` this directory's child under `key`. `key` must be free and valid.
  ///
  /// A primitive: records nothing. Mutators call it through ``ChangeCollector/attach(_:to:as:)``.
  func adopt(_ child: PackageNode, as key: String) throws {
    guard child.parent == nil else {
      throw PackageError(.invalidArgument, "node already belongs to a directory:", path: child.path)
    }
    var ancestor: PackageNode? = self
    while let node = ancestor {
      if node === child {
        throw PackageError(.invalidArgument, "cannot add a directory inside itself:", path: child.name)
      }
      ancestor = node.parent
    }
    try child.listEverythingFromSources()  // this tree saves and copies directories by the children they hold
    child.name = key
    child.parent = self
    if loadedChildren == nil { _ = try children() }
    loadedChildren![key] = child
    edits.insert(.membership)
  }

  /// Takes `child` out of this directory. A primitive: records nothing (see ``adopt(_:as:)``).
  func detach(_ child: PackageNode) {
    loadedChildren?[child.name] = nil
    if probedChildren?.removeValue(forKey: child.name) != nil, loadedChildren == nil {
      probedRemovals = (probedRemovals ?? []).union([child.name])
    }
    child.parent = nil
    edits.insert(.membership)
    child.origin?.location.detachedNodes.append(child)
  }

  func noSuchChild(_ name: String) -> PackageError {
    PackageError(.noSuchEntry, "no such entry", path: joined(name), context: packageContext)
  }

  /// The node's path for messages: its path in the tree, or its own name for a root.
  var displayPath: String {
    let path = self.path
    return path.isEmpty ? name : path
  }

  /// `in '/path/of/package'` for a tree read from disk, so that a message names the package too;
  /// empty for trees made in memory.
  var packageContext: String {
    guard let location = root.origin?.location else { return "" }
    return "in '\(location.root.string)'"
  }

  /// `name` appended to this node's path.
  func joined(_ name: String) -> String {
    let base = path
    return base.isEmpty ? name : base + "/" + name
  }
}
