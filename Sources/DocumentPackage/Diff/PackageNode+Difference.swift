extension PackageNode {
  /// The changes that turn the tree `old` into this one.
  ///
  /// Both trees are walked together in ``sortedChildren()`` order, so each is listed once and its
  /// files are read in that order, each once (an archive read in place reads forward; only files on
  /// disk may be read a second time, to score renames with edits).
  /// Two different trees that are both on disk are instead listed on two threads, one tree each,
  /// and their same-size files compared on two threads: do not use either tree from another
  /// thread during the call. Contents are read only where needed:
  /// - files of different sizes are modified without reading either;
  /// - files of the same size are compared byte by byte, stopping at the first difference, unless
  ///   both are the same file on disk (same device and inode, as hard-linked versions are), which
  ///   makes them equal without reading;
  /// - deleted and added files are read (SHA-256 and a text fingerprint) only when there are both,
  ///   to find renames.
  ///
  /// Renames: a deleted and an added file with the same SHA-256 (or links with the same
  /// destination) are an exact rename, similarity 100; among several candidates one with the same
  /// file name wins, then the first in walk order. Then, for text files (no NUL byte in the first
  /// 8,000 bytes) up to ``PackageDifference/Options/maximumTextSize``, a deleted and an added file
  /// are a rename with edits when their similarity reaches ``PackageDifference/Options/renameThreshold``
  /// (50% by default, like `git diff -M`): the bytes of lines they have in common (lines longer
  /// than 64 bytes cut into 64-byte pieces, carriage returns before line feeds ignored) over the
  /// size of the larger file, as git estimates it; the best scores pair first. Empty files are
  /// never paired. Directories are never renamed: their entries are.
  ///
  /// Modification times are compared only with ``PackageDifference/Options/comparesModificationTimes``.
  /// The permissions of symbolic links are not compared (Linux ignores them).
  ///
  /// - Parameters:
  ///   - old: The older tree. It may be this same kind of tree or another (on disk, in memory,
  ///     read from an archive): only ``PackageNode``'s public reading API is used.
  ///   - options: What to compare and report.
  /// - Returns: The changes, in walk order.
  /// - Throws: ``PackageError`` from listing a directory or reading a file of either tree, or what
  ///   the ``PackageDifference/Options/expandingContainers`` hook throws.
  /// - Complexity: O(*n* log *k*) to walk *n* entries in directories of at most *k* children,
  ///   plus O(*b*) for the *b* bytes of same-size files that have to be compared, plus, when
  ///   there are both deleted and added files, O(*b*′) to read them and O(*d* · *a* · *p*) to
  ///   compare the fingerprints of *d* deleted and *a* added text files of at most *p* distinct
  ///   pieces (skipped past ``PackageDifference/Options/renamePairLimit`` pairs). Patches add
  ///   O((*l* + *l*′) · *e*) per changed text file of *l* and *l*′ lines with *e* differing lines.
  public func difference(from old: PackageNode, options: PackageDifference.Options = .init()) throws
    -> PackageDifference
  {
    var engine = DiffEngine(options: options)
    return try engine.run(old: old, new: self)
  }
}
