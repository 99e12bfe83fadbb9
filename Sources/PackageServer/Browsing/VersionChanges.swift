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
    /// How many entries of each kind changed: `added`, `deleted`, `modified`, `renamed`, `typeChanged`.
    package var counts: [String: Int]
    /// The first changed paths, in walk order (a rename as `OLD → NEW`), at most ``VersionChanges/shownPaths``.
    package var paths: [String]
    /// How many changed entries there are in all.
    package var total: Int
  }

  /// The newest versions' changes, oldest first: at most ``versionLimit``.
  package var versions: [Item]

  /// How many paths a version's row names.
  static let shownPaths = 5
  /// How many versions, the newest, are compared (each comparison walks two trees).
  static let versionLimit = 50

  /// The item of version `id`, compared with `previous` by `difference`.
  static func item(id: Int, previous: Int?, difference: PackageDifference) -> Item {
    var counts: [String: Int] = [:]
    for (kind, count) in difference.counts { counts[kind.description] = count }
    let paths = difference.changes.prefix(shownPaths).map { change in
      change.oldPath.map { "\($0) → \(change.path)" } ?? change.path
    }
    return Item(id: id, previous: previous, counts: counts, paths: paths, total: difference.changes.count)
  }
}
