import SystemPackage

extension PackageReference {
  /// How far ``resolve(options:)`` looks for a package that is no longer at its recorded path.
  public struct ResolutionOptions: Sendable, Hashable {
    /// The most folders the search lists before giving up (10,000 by default: 0.9 s measured on
    /// a loaded 2-core Linux machine with a local ext4 disk, a debug build, when nothing was found).
    public var maximumFolders: Int

    /// Options with the default budget, or the given one.
    public init(maximumFolders: Int = 10_000) { self.maximumFolders = maximumFolders }
  }

  /// Where a reference led.
  public struct Resolution: Sendable, Hashable {
    /// The package's current path.
    public var path: FilePath
    /// Whether the package was not where the reference said (it was found by searching, or a copy
    /// stands at its path): store ``reference`` instead of the old one.
    public var isStale: Bool
    /// A reference to the package as it is now (its current path and root).
    public var reference: PackageReference
  }

  /// Finds the package: at the recorded path if it is still there, else by a bounded search near
  /// it (see the type's documentation for the order and where it looks).
  ///
  /// Blocking file I/O: call it off the cooperative pool.
  /// - Parameter options: The search's budget.
  /// - Returns: The package's path, whether the reference was stale, and a fresh reference.
  /// - Throws: ``PackageError`` with code `noSuchEntry` when the package is gone: deleted, moved to
  ///   another file system, or (the message says so) not within the folders the budget allowed.
  /// - Complexity: O(1) system calls when the package did not move; otherwise up to
  ///   `options.maximumFolders` directory listings, plus one `lstat` and one `getxattr` per folder seen.
  public func resolve(options: ResolutionOptions = ResolutionOptions()) throws -> Resolution {
    let here = try? Syscalls.statusNoFollow(path)
    let identityHere = here.flatMap { $0.kind == .directory ? PackageIdentity.read(at: path) : nil }
    if let here, matches(identityHere, here, requireBound: true) {
      return Resolution(path: path, isStale: false, reference: refreshed(at: path, here))
    }
    var search = ReferenceSearch(reference: self, maximumFolders: max(options.maximumFolders, 0))
    if let found = search.run(), let status = try? Syscalls.statusNoFollow(found) {
      return Resolution(path: found, isStale: true, reference: refreshed(at: found, status))
    }
    if let here, matches(identityHere, here, requireBound: false) {
      return Resolution(path: path, isStale: true, reference: refreshed(at: path, here))
    }
    throw notFound(search, somethingHere: here != nil)
  }

  private func refreshed(at path: FilePath, _ status: FileStatus) -> PackageReference {
    PackageReference(path: path, device: status.device, inode: status.inode, identifier: identifier)
  }

  private func notFound(_ search: ReferenceSearch, somethingHere: Bool) -> PackageError {
    let there = somethingHere ? "another directory or file is there now" : "nothing is there"
    let context: String
    if let start = search.start {
      let count = search.foldersListed
      if search.budgetExhausted {
        context =
          "(\(there), and it is not in the \(count) folders searched from '\(start.string)'; "
          + "the search stops there: it may lie further away)"
      } else {
        let top = search.searchedUpTo?.string ?? start.string
        context =
          "(\(there), and it is not in any of the \(count) folders of its file system from "
          + "'\(start.string)' up to '\(top)': it was deleted or moved to another file system)"
      }
    } else {
      context = "(\(there), and no folder on the way to it is left on its file system)"
    }
    return PackageError(.noSuchEntry, "package not found:", path: path.string, context: context)
  }
}
