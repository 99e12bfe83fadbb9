/// What changed between two package trees: the result of ``PackageNode/difference(from:options:)``.
///
/// In the spirit of `CollectionDifference`: a value listing the changes that turn the old tree into
/// the new one, one ``Change`` per path, so an app can show "what changed since the last version":
///
///     let changes = try current.difference(from: lastVersion)
///     for change in changes {
///       if case .renamed(let from, let to, let similarity, _, _, _, _) = change {
///         print("\(from) → \(to) (\(similarity)% similar)")
///       } else {
///         print(change)  // "M Index.json [contents]"
///       }
///     }
///
/// Changes come in the order of a depth-first walk with children in ``PackageNode/sortedChildren()``
/// order (byte-wise UTF-8): a directory comes right before what is inside it. Directories are
/// entries like files: an added directory is one change, and each entry inside it is another.
/// The root of each tree is not compared with the other root, only what is inside it (unless both
/// roots are files or links, which are then compared as the entry with the empty path).
///
/// A difference is `Codable`: `docpkg diff --json` is its JSON encoding (the schema is on the conformance, in
/// `PackageDifference+Codable.swift`).
public struct PackageDifference: Hashable, Sendable {
  /// The changes, in walk order (see above).
  public var changes: [Change]

  /// Creates a difference from changes already in walk order.
  public init(changes: [Change] = []) {
    self.changes = changes
  }

  /// Whether the two trees are the same (under the options they were compared with).
  public var isEmpty: Bool { changes.isEmpty }

  /// How many changes there are of each kind.
  public var counts: [Change.Kind: Int] {
    changes.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
  }
}

/// The changes as a collection: `for change in difference`, `difference.count`, `difference[0]`.
extension PackageDifference: RandomAccessCollection {
  /// The position of the first change: 0.
  public var startIndex: Int { changes.startIndex }
  /// The position after the last change: the number of changes.
  public var endIndex: Int { changes.endIndex }
  /// The change at `position`, in walk order.
  public subscript(position: Int) -> Change { changes[position] }
}
