import DocumentPackage

/// The history of one entry (issue 38, point 4): the states in which it changed, oldest first — each version
/// compared with the one before, then the served state with the last version — each with how it changed, its
/// size, and the text patch when both sides are text of at most ``patchLimit`` bytes.
package struct FileHistory: Sendable, Codable, Equatable {
  /// One state in which the entry changed.
  package struct Step: Sendable, Codable, Equatable {
    /// A version's id, or `current`.
    package var state: String
    /// The state it is compared with (as ``state`` is written); `nil` for the first.
    package var previous: String?
    /// `added`, `deleted`, `modified` (contents or link target) or `typeChanged` (a file became a folder or a link,
    /// or the other way).
    package var change: String
    /// The entry's size in this state; `nil` when deleted.
    package var size: Int64?
    /// The unified diff from the state before (`docpkg diff -p`'s hunks), for text.
    package var patch: String?
  }

  /// The entry's path.
  package var path: String
  /// The states in which it changed, oldest first.
  package var steps: [Step]

  /// The largest file a patch is made for (both sides are read whole).
  static let patchLimit = 1 << 20
  /// The bytes compared at a time, for a file of the same size on both sides.
  private static let chunk = 1 << 20

  /// The step of the entry at `path` from `old` to `new` (the roots of two states, `old` `nil` for the first);
  /// `nil` when it did not change.
  /// - Throws: ``/DocumentPackage/PackageError`` when a file cannot be read.
  static func step(
    at path: String, from old: PackageNode?, to new: PackageNode, state: String, previous: String?
  ) throws -> Step? {
    let before = try old.flatMap { try entry(at: path, in: $0) }
    let after = try entry(at: path, in: new)
    let (change, size): (String, Int64?)
    switch (before, after) {
    case (nil, nil): return nil
    case (_?, nil): (change, size) = ("deleted", nil)
    case (nil, let node?): (change, size) = ("added", node.size)
    case (let before?, let after?):
      guard try differ(before, after) else { return nil }
      // A file that became a folder (or a link) changed its type, as `docpkg diff` says (issue 38).
      (change, size) = before.kind == after.kind ? ("modified", after.size) : ("typeChanged", after.size)
    }
    return Step(
      state: state, previous: previous, change: change, size: size, patch: try patch(from: before, to: after))
  }

  /// The node at `path` in `root`, or `nil` when there is none.
  private static func entry(at path: String, in root: PackageNode) throws -> PackageNode? {
    do { return try root.node(at: path) } catch let error as PackageError
      where error.code == .noSuchEntry || error.code == .notADirectory
    {
      return nil
    }
  }

  /// Whether two entries differ in kind, link target, size or bytes (compared a chunk at a time).
  private static func differ(_ a: PackageNode, _ b: PackageNode) throws -> Bool {
    guard a.kind == b.kind else { return true }
    switch a.kind {
    case .symlink: return a.symbolicLinkDestination != b.symbolicLinkDestination
    case .file:
      guard a.size == b.size else { return true }
      var offset: Int64 = 0
      while offset < a.size {
        let count = Int(min(Int64(chunk), a.size - offset))
        if try a.bytes(at: offset, count: count) != b.bytes(at: offset, count: count) { return true }
        offset += Int64(count)
      }
      return false
    default: return false
    }
  }

  /// The patch from `old` to `new` (either `nil` for nothing), when both are text files of at most
  /// ``patchLimit`` bytes.
  private static func patch(from old: PackageNode?, to new: PackageNode?) throws -> String? {
    func text(_ node: PackageNode?) throws -> [UInt8]? {
      guard let node else { return [] }
      guard node.kind == .file, node.size <= Int64(patchLimit) else { return nil }
      let bytes = try node.bytes(at: 0, count: Int(node.size))
      return bytes.contains(0) ? nil : bytes
    }
    guard let before = try text(old), let after = try text(new) else { return nil }
    return TextPatch(from: before, to: after).unifiedText
  }
}
