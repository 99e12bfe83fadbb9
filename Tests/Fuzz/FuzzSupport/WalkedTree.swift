import DocumentPackage

/// What reading one file of a tree gave.
public enum FuzzRead {
  case bytes([UInt8])
  /// The reader threw this error.
  case failed(String)
  /// Longer than what was left of the budget: not read to the end.
  case skipped

  /// The most bytes read from one input's files (a few KB of deflate can declare and make megabytes).
  public static let budget = 4 << 20

  /// The contents of `node`, or `nil` when they are longer than what is left of `budget`.
  /// - Throws: The reader's error.
  public static func read(_ node: PackageNode, budget: inout Int) throws -> [UInt8]? {
    var bytes: [UInt8] = []
    var left = budget
    defer { budget = max(0, left) }
    do {
      try node.readContents(chunkSize: 1 << 16) { chunk in
        left -= chunk.count
        guard left >= 0 else { throw EnoughRead() }
        bytes += chunk
      }
    } catch is EnoughRead {
      return nil
    }
    return bytes
  }
}

/// A tree walked as `docpkg inspect` walks it, every file read within a budget (as `diff` and `pack` read them).
public struct WalkedTree {
  public var fileCount = 0
  public var directoryCount = 0
  public var symlinkCount = 0
  public var bytes: Int64 = 0
  /// The root's children, as "name kind".
  public var topLevel: [String] = []
  /// Files by path, with what reading them gave.
  public var files: [(path: String, read: FuzzRead)] = []

  /// Walks `root`, reading its files in walk order while `budget` lasts.
  /// - Throws: An error listing a directory.
  public init(_ root: PackageNode, budget: inout Int) throws {
    topLevel = try root.sortedChildren().map { "\($0.name) \($0.kind)" }
    var visited: [(PackageNode, String)] = []
    try root.walk { node, path, depth in
      if depth > 0 { visited.append((node, path)) }
      return true
    }
    for (node, path) in visited {
      switch node.kind {
      case .directory: directoryCount += 1
      case .symlink:
        symlinkCount += 1
        _ = node.symbolicLinkDestination
      case .file:
        fileCount += 1
        bytes += node.size
        let read: FuzzRead
        do { read = try FuzzRead.read(node, budget: &budget).map { .bytes($0) } ?? .skipped } catch {
          read = .failed("\(error)")
        }
        files.append((path, read))
      }
    }
  }
}
