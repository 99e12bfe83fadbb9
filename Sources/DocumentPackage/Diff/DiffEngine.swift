/// Computes a ``PackageDifference`` in three phases:
/// 1. walk both trees together, comparing what needs no reading (kinds, sizes, modes, links, inodes);
/// 2. read, in walk order, the files that need it: same-size pairs, and deleted and added files
///    when renames are possible;
/// 3. pair deleted and added entries into renames.
///
/// Its memory is that of the directories on its way and of what differs, not of the trees: same-size
/// pairs that can be compared on any thread are compared in windows of ``window`` pairs during the walk,
/// and each directory the walk listed itself is forgotten as the walk leaves it
/// (``PackageNode/forgetListing()``), as `docpkg inspect` does — or, when it holds a pair still to be
/// compared, once that pair is (its open directory then serves the reads of its files).
struct DiffEngine {
  typealias Change = PackageDifference.Change
  typealias Entry = PackageDifference.Entry

  let options: PackageDifference.Options
  var reader = ContentReader()
  private var order = 0
  /// Changes found so far, with their walk position.
  var found: [(order: Int, change: Change)] = []
  var pairs: [Pair] = []
  var added: [Candidate] = []
  var deleted: [Candidate] = []
  /// Whether same-size pairs are compared on several threads (two different trees).
  private var comparesInParallel = false
  /// Whether each pair of directories is listed on two threads (two trees on disk).
  private var listsInParallel = false
  /// Directories the walk listed and is done with but could not forget yet, in the order it left them
  /// (children first): forgotten after the next window of comparisons.
  private var finishedDirectories: [PackageNode] = []
  /// The directories holding a pair not compared yet.
  private var holdingPendingPairs: Set<ObjectIdentifier> = []
  /// The pairs still pending after the last window (read in walk order at the end).
  var pairsLeftByWindows = 0

  /// How many same-size pairs the walk gathers before it compares them.
  var window = 4096

  /// A file in both trees whose contents must be read.
  struct Pair {
    var old: PackageNode
    var new: PackageNode
    var path: String
    var order: Int
    var details: Change.Details
  }

  /// A file or link in one tree only: an addition or deletion, unless it pairs into a rename.
  struct Candidate {
    var node: PackageNode
    var path: String
    var order: Int
    var entry: Entry
    var fingerprint: TextFingerprint?
    /// A text file small enough to compare by similarity (its fingerprint may be made later).
    var isSimilarityCandidate = false
    /// The contents, kept for a patch of a rename with edits.
    var text: [UInt8]?
    var paired = false
  }

  init(options: PackageDifference.Options) {
    self.options = options
  }

  mutating func run(old: PackageNode, new: PackageNode) throws -> PackageDifference {
    comparesInParallel = Self.canCompareInParallel(old, new)
    listsInParallel = old.kind == .directory && new.kind == .directory && Self.canReadInParallel(old, new)
    if old.kind == .directory, new.kind == .directory {
      try visitChildren(old, new, prefix: "")
    } else if try visit(old, new, path: "") {
      try visitChildren(old, new, prefix: "")
    }
    try readPending(parallel: comparesInParallel)
    forgetFinishedDirectories()
    try pairRenames()
    for candidate in added where !candidate.paired {
      let patch = try candidate.text.map { try self.patch(from: [], to: $0, at: candidate.path) }
      found.append(
        (candidate.order, Change.added(path: candidate.path, candidate.entry, patch: patch)))
    }
    for candidate in deleted where !candidate.paired {
      let patch = try candidate.text.map { try self.patch(from: $0, to: [], at: candidate.path) }
      found.append(
        (candidate.order, Change.deleted(path: candidate.path, candidate.entry, patch: patch)))
    }
    found.sort { $0.order < $1.order }
    return PackageDifference(changes: found.map(\.change))
  }

  // MARK: Phase 1: walking

  /// Visits the children of `old` and `new` (either may be absent or not a directory), and
  /// everything below them, in path order: with an explicit stack of the directories on the way
  /// down, not recursion (a package's depth is its own to choose, and this may run on a worker).
  private mutating func visitChildren(_ old: PackageNode?, _ new: PackageNode?, prefix: String) throws {
    var levels = [try Level(old, new, prefix: prefix, inParallel: listsInParallel)]
    while !levels.isEmpty {
      let top = levels.count - 1
      guard let (a, b, path) = levels[top].next() else {
        for directory in levels.removeLast().listedHere
        where holdingPendingPairs.contains(ObjectIdentifier(directory)) || !directory.forgetListing() {
          finishedDirectories.append(directory)
        }
        continue
      }
      if try visit(a, b, path: path) { levels.append(try Level(a, b, prefix: path, inParallel: listsInParallel)) }
      if comparesInParallel, pairs.count - pairsLeftByWindows >= window {
        try compareInParallel(from: pairsLeftByWindows)
        pairsLeftByWindows = pairs.count
        forgetFinishedDirectories()
      }
    }
  }

  /// Forgets the listings of the directories the walk is done with. A node a pending pair or candidate
  /// holds stays readable: it reads from its own location or source, not through its parent.
  private mutating func forgetFinishedDirectories() {
    for directory in finishedDirectories { directory.forgetListing() }
    finishedDirectories.removeAll()
    holdingPendingPairs.removeAll()
  }

  /// The children of one pair of directories, merged by name, being visited. Names are compared as their bytes
  /// (``PackageNode/byteExactName``): a name on disk that is not UTF-8 is the same name as the archive entry
  /// of the same bytes, and not the same as another such name that differs only in its bad bytes.
  private struct Level {
    let a: [(node: PackageNode, name: String)]
    let b: [(node: PackageNode, name: String)]
    let prefix: String
    /// The directories of this pair that this level listed (that were not listed before it).
    let listedHere: [PackageNode]
    var i = 0
    var j = 0

    init(_ old: PackageNode?, _ new: PackageNode?, prefix: String, inParallel: Bool) throws {
      self.prefix = prefix
      // Two trees of one version store: only the entries that differ (the others would show nothing).
      if let old, let new, let differing = try old.childrenDiffering(from: new) {
        (a, b, listedHere) = (Self.named(differing.mine), Self.named(differing.others), [])
        return
      }
      let directories = [old, new].compactMap { $0?.kind == .directory ? $0 : nil }
      listedHere = directories.filter { $0.heldChildren == nil }
      if inParallel, let old, let new, listedHere.count == 2 { try DiffEngine.listInParallel(old, new) }
      a = Self.named(old?.kind == .directory ? try old!.sortedChildren() : [])
      b = Self.named(new?.kind == .directory ? try new!.sortedChildren() : [])
    }

    /// The children with their names as bytes, in the order of those names.
    private static func named(_ children: [PackageNode]) -> [(node: PackageNode, name: String)] {
      var named = children.map { (node: $0, name: $0.byteExactName) }
      if named.contains(where: { $0.name != $0.node.name }) {
        named.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
      }
      return named
    }

    /// The next pair of same-named children (either absent), and its path.
    mutating func next() -> (PackageNode?, PackageNode?, String)? {
      func path(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }
      guard i < a.count || j < b.count else { return nil }
      if j == b.count || (i < a.count && a[i].name.utf8.lexicographicallyPrecedes(b[j].name.utf8)) {
        defer { i += 1 }
        return (a[i].node, nil, path(a[i].name))
      } else if i == a.count || a[i].name != b[j].name {
        defer { j += 1 }
        return (nil, b[j].node, path(b[j].name))
      } else {
        defer {
          i += 1
          j += 1
        }
        return (a[i].node, b[j].node, path(a[i].name))
      }
    }
  }

  /// Records what changed at `path`; returns whether the children of `old` and `new` are to be visited.
  private mutating func visit(_ old: PackageNode?, _ new: PackageNode?, path: String) throws -> Bool {
    try checkCancellation(at: path)
    order += 1
    let position = order
    switch (old, new) {
    case (nil, let new?):
      if new.kind == .directory {
        found.append((position, Change.added(path: path, Entry(new), patch: nil)))
        return true
      } else {
        added.append(Candidate(node: new, path: path, order: position, entry: Entry(new)))
      }
    case (let old?, nil):
      if old.kind == .directory {
        found.append((position, Change.deleted(path: path, Entry(old), patch: nil)))
        return true
      } else {
        deleted.append(Candidate(node: old, path: path, order: position, entry: Entry(old)))
      }
    case (let old?, let new?) where old.kind != new.kind:
      found.append((position, Change.typeChanged(path: path, old: Entry(old), new: Entry(new))))
      return true
    case (let old?, let new?):
      var details = attributeDetails(old, new)
      switch old.kind {
      case .directory:
        record(position, path, old, new, details)
        // The same stored tree on both sides (two versions of one store): nothing below differs.
        if let address = old.contentAddress, address == new.contentAddress { return false }
        return true
      case .symlink:
        if old.symbolicLinkDestination != new.symbolicLinkDestination { details.insert(.symbolicLinkDestination) }
        record(position, path, old, new, details)
      case .file:
        let needsReading: Bool
        if old.size != new.size {
          details.insert(.contents)
          // An archive entry that differs is still read, to check its data (``DiffEngine/compare(_:)``).
          needsReading =
            options.includesTextPatches || options.expandingContainers != nil || old.checksDataWhenRead
            || new.checksDataWhenRead
        } else if let identity = old.diskIdentity, identity == new.diskIdentity {
          needsReading = false
        } else if let address = old.contentAddress, address == new.contentAddress {
          needsReading = false  // one blob of one version store
        } else {
          needsReading = true
        }
        if needsReading {
          pairs.append(Pair(old: old, new: new, path: path, order: position, details: details))
          for parent in [old.parent, new.parent].compactMap({ $0 }) {
            holdingPendingPairs.insert(ObjectIdentifier(parent))
          }
        } else {
          record(position, path, old, new, details)
        }
      }
    case (nil, nil):
      break
    }
    return false
  }

  /// Throws once ``PackageDifference/Options/isCancelled`` says the comparison is to stop.
  /// - Throws: ``PackageError`` with code `cancelled`, naming `path`.
  func checkCancellation(at path: String) throws {
    if options.isCancelled?() == true { throw Self.cancelled(at: path) }
  }

  /// The patch from `old` to `new`, the text of the file at `path`, stopping when the comparison is cancelled.
  /// - Throws: ``PackageError`` with code `cancelled`, naming `path`.
  func patch(from old: [UInt8], to new: [UInt8], at path: String) throws -> TextPatch {
    let isCancelled = options.isCancelled ?? { false }
    guard let patch = TextPatch(from: old, to: new, context: options.patchContext, isCancelled: isCancelled) else {
      throw Self.cancelled(at: path)
    }
    return patch
  }

  private static func cancelled(at path: String) -> PackageError {
    PackageError(.cancelled, "comparison cancelled at", path: path)
  }

  func attributeDetails(_ old: PackageNode, _ new: PackageNode) -> Change.Details {
    var details: Change.Details = []
    if old.kind != .symlink, old.permissions != new.permissions { details.insert(.permissions) }
    // A directory's time is compared only where both sides know it: a version's trees do not keep it (see
    // TreeEntry), so a version's directories have none.
    if options.comparesModificationTimes, old.modificationTime != new.modificationTime,
      old.kind != .directory || (old.modificationTime != nil && new.modificationTime != nil)
    {
      details.insert(.modificationTime)
    }
    return details
  }

  mutating func record(
    _ position: Int, _ path: String, _ old: PackageNode, _ new: PackageNode, _ details: Change.Details,
    oldEntry: Entry? = nil, newEntry: Entry? = nil, patch: TextPatch? = nil, nested: PackageDifference? = nil
  ) {
    guard !details.isEmpty else { return }
    found.append(
      (
        position,
        Change.modified(
          path: path, old: oldEntry ?? Entry(old), new: newEntry ?? Entry(new), details: details, patch: patch,
          nested: nested)
      ))
  }
}
