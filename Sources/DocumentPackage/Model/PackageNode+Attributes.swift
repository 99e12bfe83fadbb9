import SystemPackage

extension PackageNode {
  /// Sets the node's POSIX permission bits. Setting the bits it has changes nothing.
  /// Undo name: "Change Permissions".
  /// - Throws: ``PackageError`` with code `invalidArgument` if the tree is read-only here (see
  ///   ``Document/read(_:)``); the ``permissions`` setter then leaves the bits unchanged.
  public func setPermissions(_ permissions: FilePermissions) throws {
    try setAttribute(\.storedPermissions, to: permissions, actionName: "Change Permissions")
  }

  /// Sets the node's modification time (`nil`: the time it is saved). Setting the time it has
  /// changes nothing. Undo name: "Change Date".
  /// - Throws: As ``setPermissions(_:)``.
  public func setModificationTime(_ time: FileTime?) throws {
    try setAttribute(\.storedModificationTime, to: time, actionName: "Change Date")
  }

  /// Sets one attribute (permissions or time) through the one mutation path, marking it edited.
  private func setAttribute<Value: Equatable>(
    _ attribute: ReferenceWritableKeyPath<PackageNode, Value>, to value: Value, actionName: String
  ) throws {
    guard value != self[keyPath: attribute] else { return }
    guard treeRecorder != nil else {  // nothing to tell: one assignment is all or nothing anyway
      self[keyPath: attribute] = value
      edits.insert(.attributes)
      return
    }
    try mutate(actionName, at: displayPath) { changes in
      changes.touch(self)
      self[keyPath: attribute] = value
      edits.insert(.attributes)
    }
  }

  /// Points a symbolic link somewhere else (not checked: links may dangle). Undo name: "Change Link".
  /// - Throws: ``PackageError`` with code `notASymbolicLink` if this is not a link, or as ``setPermissions(_:)``.
  public func setSymbolicLinkDestination(_ destination: String) throws {
    try requireKind(.symlink)
    guard destination != linkDestination else { return }
    try mutate("Change Link", at: displayPath) { changes in
      changes.touch(self)
      linkDestination = destination
      edits.insert(.contents)
    }
  }

  /// Sets the permissions of the node at `path`: ``setPermissions(_:)`` by path.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there, or as ``setPermissions(_:)``.
  public func setPermissions(_ permissions: FilePermissions, at path: String) throws {
    try node(at: path).setPermissions(permissions)
  }

  /// Sets the modification time of the node at `path`: ``setModificationTime(_:)`` by path.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there, or as ``setPermissions(_:)``.
  public func setModificationTime(_ time: FileTime?, at path: String) throws {
    try node(at: path).setModificationTime(time)
  }

  /// Points the symbolic link at `path` somewhere else: ``setSymbolicLinkDestination(_:)`` by path.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if nothing is there, `notASymbolicLink` if
  ///   it is not a link, or as ``setPermissions(_:)``.
  public func setSymbolicLinkDestination(_ destination: String, at path: String) throws {
    try node(at: path).setSymbolicLinkDestination(destination)
  }
}
