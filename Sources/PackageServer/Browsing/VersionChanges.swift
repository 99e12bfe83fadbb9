import DocumentPackage

/// What changed in each version from the one before it (issue 38, point 4): the counts of `docpkg diff --stat`
/// and the first paths, for the Versions tab's rows. The first version is compared with an empty package.
/// Versions that cannot be read (damaged, pending) are left out; the versions after them are compared with the
/// last one that could be read.
package struct VersionChanges: Sendable, Codable, Equatable {
  /// The changes of one version.
  package struct Item: Sendable, Codable, Equatable {
    /// The version.
    package var id: Int
    /// The version it is compared with; `nil` for the first (compared with nothing).
    package var previous: Int?
    /// How many files and links of each kind changed: `added`, `deleted`, `modified`, `renamed`, `typeChanged`.
    package var counts: [String: Int]
    /// The first changed paths, in walk order (a rename as `OLD → NEW`), at most ``VersionChanges/shownPaths``.
    package var paths: [String]
    /// How many changed files and links there are in all (directories are not counted, as `diff --stat`).
    package var total: Int
  }

  /// The newest versions' changes, oldest first: at most ``versionLimit``.
  package var versions: [Item]

  /// How many paths a version's row names.
  static let shownPaths = 5
  /// How many versions, the newest, are compared (each comparison walks two trees).
  static let versionLimit = 50

  /// The item of version `id`, compared with `previous` by `difference`.
  /// Directories are not counted, as `docpkg diff --stat` counts them: a folder removed with the one file it held
  /// is one file deleted, not three entries (issue 38).
  static func item(id: Int, previous: Int?, difference: PackageDifference) -> Item {
    let changes = difference.changes.filter { change in
      ![change.old?.kind, change.new?.kind].allSatisfy { $0 == nil || $0 == .directory }
    }
    var counts: [String: Int] = [:]
    for change in changes { counts[change.kind.description, default: 0] += 1 }
    let paths = changes.prefix(shownPaths).map { change in
      change.oldPath.map { "\($0) → \(change.path)" } ?? change.path
    }
    return Item(id: id, previous: previous, counts: counts, paths: paths, total: changes.count)
  }
}
