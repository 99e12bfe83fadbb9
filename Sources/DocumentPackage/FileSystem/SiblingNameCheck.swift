import SystemPackage

/// Finds, among the entries about to be written to a file system, a name it cannot hold or two it takes for one.
///
/// The rules are the file system's (``FileSystemNaming``). Siblings are compared with siblings only:
/// `A/x` and `a/x` clash as `A` and `a`, never as their children.
///
/// Two ways to feed it: a whole directory's names at once (``clash(among:in:)``: a save walking its
/// model), or entry by entry as they come (``add(_:)``: an unpack's archive, a remote tree), which
/// remembers each directory's names seen so far.
///
/// Names the model takes for one (canonically equivalent: `é` precomposed and `e` + U+0301) are one
/// entry here too, never a clash.
package struct SiblingNameCheck {
  package let naming: FileSystemNaming
  /// The directory whose file system was probed, for messages.
  package let fileSystem: FilePath
  /// The file system's device and mount, when they could be read.
  package let identity: FileSystemIdentity?
  /// For ``add(_:)``: each directory's names met so far, by key, by the directory's path.
  private var seen: [String: [FileSystemNaming.Key: String]] = [:]
  /// The parent of the entry added last, as components and as a path (its ancestors were added
  /// when it came: entries of one directory usually come together).
  private var lastParents: ArraySlice<String> = []
  private var lastParent = ""

  package init(naming: FileSystemNaming, fileSystem: FilePath, identity: FileSystemIdentity? = nil) {
    self.naming = naming
    self.fileSystem = fileSystem
    self.identity = identity
  }

  /// The check for the file system that holds the directory `directory` (probed there once per file
  /// system, ``FileSystemNaming/of(directory:)``).
  package init(forDirectory directory: FilePath) {
    let (naming, identity) = FileSystemNaming.of(directory: directory)
    self.init(naming: naming, fileSystem: Self.shown(directory, naming), identity: identity)
  }

  /// The check for the file system that holds the open directory `fd`, at `directory`.
  package init(forDirectory fd: CInt, at directory: FilePath) {
    let (naming, identity) = FileSystemNaming.of(directoryFD: fd)
    self.init(naming: naming, fileSystem: Self.shown(directory, naming), identity: identity)
  }

  /// The check for the file system that holds the open directory `fd`, at `directory`, probed (the first
  /// time) in the directory `scratch` made in `fd` and removed right after (see
  /// ``FileSystemNaming/of(directoryFD:probingIn:)``).
  /// - Throws: `Errno` when `scratch` cannot be made.
  package init(forDirectory fd: CInt, at directory: FilePath, probingIn scratch: RawName) throws(Errno) {
    let (naming, identity) = try FileSystemNaming.of(directoryFD: fd, probingIn: scratch)
    self.init(naming: naming, fileSystem: Self.shown(directory, naming), identity: identity)
  }

  /// `directory` as messages show it: absolute (`.` says little), when it can come up in one.
  private static func shown(_ directory: FilePath, _ naming: FileSystemNaming) -> FilePath {
    guard naming.restricts, !directory.isAbsolute else { return directory }
    return Syscalls.resolvingLinks(directory) ?? directory
  }

  /// Whether the file system may refuse a name or take two for one: when not, nothing needs checking.
  package var isNeeded: Bool { naming.restricts }

  /// The first clash among `names`, the entries of the directory at `directory` (`""` for the top).
  /// - Complexity: O(*n*) in the names' total length (expected).
  package func clash(among names: some Sequence<String>, in directory: String) -> NameClash? {
    var keys: [FileSystemNaming.Key: String] = [:]
    for name in names {
      if let clash = Self.clash(adding: name, in: directory, to: &keys, naming, fileSystem) { return clash }
    }
    return nil
  }

  /// Adds the entry whose path has `components`, with the directories above it, to the entries
  /// added before.
  /// - Returns: The first clash the entry or a directory above it makes.
  /// - Complexity: O(*n*) in the entry's name, or in its path when its parent differs from the last entry's.
  package mutating func add(_ components: [String]) -> NameClash? {
    guard let name = components.last else { return nil }
    let (naming, fileSystem) = (self.naming, self.fileSystem)
    let parents = components.dropLast()
    if !parents.elementsEqual(lastParents, by: { $0.utf8.elementsEqual($1.utf8) }) {
      var parent = ""
      for component in parents {
        if let clash = Self.clash(adding: component, in: parent, to: &seen[parent, default: [:]], naming, fileSystem) {
          return clash
        }
        parent = parent.isEmpty ? component : parent + "/" + component
      }
      lastParents = parents
      lastParent = parent
    }
    let parent = lastParent
    return Self.clash(adding: name, in: parent, to: &seen[parent, default: [:]], naming, fileSystem)
  }

  /// Checks `name` in `directory` against the file system and the names in `keys`, then adds it there.
  private static func clash(
    adding name: String, in directory: String, to keys: inout [FileSystemNaming.Key: String],
    _ naming: FileSystemNaming, _ fileSystem: FilePath
  ) -> NameClash? {
    func path(_ name: String) -> String { directory.isEmpty ? name : directory + "/" + name }
    if let problem = naming.problem(with: name) {
      return NameClash(path: path(name), reason: problem, fileSystem: fileSystem)
    }
    let key = naming.key(name)
    guard let earlier = keys[key] else {
      keys[key] = name
      return nil
    }
    if earlier == name { return nil }  // the same entry again (a directory described twice, or implied)
    return NameClash(
      path: path(name), sibling: path(earlier), reason: naming.difference(between: name, and: earlier),
      fileSystem: fileSystem)
  }
}
