import SystemPackage

extension PackageNode {
  /// Opens the package at `path` lazily and runs `body` on it while no save by any process can put
  /// a new state in place: whatever `body` lists and reads belongs to one saved state.
  ///
  ///     let (index, pages) = try PackageNode.reading(contentsOf: "/home/ann/Trip.mydoc") { root in
  ///       (try root.node(at: "Index.json").contents(), try root.node(at: "Pages").sortedChildren().count)
  ///     }
  ///
  /// A ``PackageReadLock`` is held during `body` (see it for how long a reader may wait and how
  /// long it may hold up a writer). Reads of the tree after `body` returns are not coordinated:
  /// read what you need inside, or pass ``ReadingOptions/immediate``. Do not save the same package
  /// from inside `body` on the same thread: the save would wait for this read and fail.
  /// - Parameters:
  ///   - path: The package on disk.
  ///   - options: As for ``init(contentsOf:options:)``.
  ///   - body: Reads the package.
  /// - Returns: What `body` returns.
  /// - Throws: What the lock (``PackageError`` `locked` when a save held the package too long),
  ///   the opening, or `body` throws.
  public static func reading<T>(
    contentsOf path: FilePath, options: ReadingOptions = [], _ body: (PackageNode) throws -> T
  ) throws -> T {
    let lock = try PackageReadLock(forPackageAt: path)
    defer { lock.unlock() }
    return try body(PackageNode(contentsOf: path, options: options))
  }
}
