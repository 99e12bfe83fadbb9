extension PackageDifference {
  /// How two trees are compared.
  public struct Options {
    /// Report entries whose modification times differ (off by default: copies and archives
    /// rarely keep times exactly). A directory's time is compared only when both sides have one
    /// (a version keeps files' and links' times, not directories').
    public var comparesModificationTimes = false
    /// Pair deleted and added entries into renames (on by default).
    public var detectsRenames = true
    /// The least similarity, in percent, for a deleted and an added text file with different
    /// contents to count as a rename: 50 by default, like `git diff -M`.
    public var renameThreshold = 50
    /// Inexact rename detection is skipped when deleted × added text files exceed this many
    /// pairs (exact renames are still found): 1,000,000, git's `diff.renameLimit` of 1,000 squared.
    public var renamePairLimit = 1_000_000
    /// Compute ``Change/patch`` for changed text files, and SHA-256 for changed binary files.
    /// Reads every changed file, even when sizes alone show it changed.
    public var includesTextPatches = false
    /// Lines of context around each change in a patch: 3, like `diff -u`.
    public var patchContext = 3
    /// Files larger than this are not read into memory for similarity or patches: they are
    /// compared by streaming and reported as binary. 8 MiB by default.
    public var maximumTextSize: Int64 = 8 << 20
    /// Opens a changed file as a tree of its own (such as a zip inside the package), so that the
    /// difference inside it is reported as ``Change/nested``. Called with a file node and its
    /// path, on both sides of a file that changed; return `nil` for files that are not containers.
    /// The core library reads no archive formats itself: the caller supplies them.
    public var expandingContainers: ((_ file: PackageNode, _ path: String) throws -> PackageNode?)?
    /// Stops the comparison from another thread (a server whose client went away): asked at each entry walked,
    /// each file read, each rename candidate scored, and while a patch's lines are matched. Once it returns
    /// `true`, the comparison throws ``PackageError`` with code `cancelled`.
    public var isCancelled: (() -> Bool)?

    /// Creates the default options.
    public init() {}
  }
}
