/// Computes a ``PackageDifference`` in three phases:
/// 1. walk both trees together, comparing what needs no reading (kinds, sizes, modes, links, inodes);
/// 2. read, in walk order, the files that need it: same-size pairs, and deleted and added files
///    when renames are possible;
/// 3. pair deleted and added entries into renames.
struct DiffEngine {
  typealias Change = PackageDifference.Change
  typealias Entry = PackageDifference.Entry

  let options: PackageDifference.Options
  private var reader = ContentReader()
  private var order = 0
  /// Changes found so far, with their walk position.
  private var found: [(order: Int, change: Change)] = []
  private var pairs: [Pair] = []
  private var added: [Candidate] = []
  private var deleted: [Candidate] = []

  /// A file in both trees whose contents must be read.
  private struct Pair {
    var old: PackageNode
    var new: PackageNode
    var path: String
    var order: Int
    var details: Change.Details
  }

  /// A file or link in one tree only: an addition or deletion, unless it pairs into a rename.
  private struct Candidate {
    var node: PackageNode
    var path: String
    var order: Int
    var entry: Entry
    var fingerprint: TextFingerprint?
    /// The contents, kept for a patch of a rename with edits.
    var text: [UInt8]?
    var paired = false
  }

  init(options: PackageDifference.Options) {
    self.options = options
  }

  mutating func run(old: PackageNode, new: PackageNode) throws -> PackageDifference {
    let parallel = Self.canReadInParallel(old, new)
    if old.kind == .directory, new.kind == .directory {
      if parallel { try Self.listInParallel(old, new) }
      try visitChildren(old, new, prefix: "")
    } else {
      try visit(old, new, path: "")
    }
    try readPending(parallel: parallel)
    try pairRenames()
    for candidate in added where !candidate.paired {
      let patch = candidate.text.map { TextPatch(from: [], to: $0, context: options.patchContext) }
      found.append((candidate.order, Change(kind: .added, path: candidate.path, old: nil, new: candidate.entry, patch: patch)))
    }
    for candidate in deleted where !candidate.paired {
      let patch = candidate.text.map { TextPatch(from: $0, to: [], context: options.patchContext) }
      found.append((candidate.order, Change(kind: .deleted, path: candidate.path, old: candidate.entry, new: nil, patch: patch)))
    }
    found.sort { $0.order < $1.order }
    return PackageDifference(changes: found.map(\.change))
  }

  // MARK: Phase 1: walking

  private mutating func visitChildren(_ old: PackageNode?, _ new: PackageNode?, prefix: String) throws {
    let a = old?.kind == .directory ? try old!.sortedChildren() : []
    let b = new?.kind == .directory ? try new!.sortedChildren() : []
    func path(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }
    var i = 0, j = 0
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i].name.utf8.lexicographicallyPrecedes(b[j].name.utf8)) {
        try visit(a[i], nil, path: path(a[i].name))
        i += 1
      } else if i == a.count || a[i].name != b[j].name {
        try visit(nil, b[j], path: path(b[j].name))
        j += 1
      } else {
        try visit(a[i], b[j], path: path(a[i].name))
        i += 1
        j += 1
      }
    }
  }

  private mutating func visit(_ old: PackageNode?, _ new: PackageNode?, path: String) throws {
    order += 1
    let position = order
    switch (old, new) {
    case (nil, let new?):
      if new.kind == .directory {
        found.append((position, Change(kind: .added, path: path, old: nil, new: Entry(new))))
        try visitChildren(nil, new, prefix: path)
      } else {
        added.append(Candidate(node: new, path: path, order: position, entry: Entry(new)))
      }
    case (let old?, nil):
      if old.kind == .directory {
        found.append((position, Change(kind: .deleted, path: path, old: Entry(old), new: nil)))
        try visitChildren(old, nil, prefix: path)
      } else {
        deleted.append(Candidate(node: old, path: path, order: position, entry: Entry(old)))
      }
    case (let old?, let new?) where old.kind != new.kind:
      found.append((position, Change(kind: .typeChanged, path: path, old: Entry(old), new: Entry(new))))
      try visitChildren(old, new, prefix: path)
    case (let old?, let new?):
      var details = attributeDetails(old, new)
      switch old.kind {
      case .directory:
        record(position, path, old, new, details)
        try visitChildren(old, new, prefix: path)
      case .symlink:
        if old.symbolicLinkDestination != new.symbolicLinkDestination { details.insert(.symbolicLinkDestination) }
        record(position, path, old, new, details)
      case .file:
        let needsReading: Bool
        if old.size != new.size {
          details.insert(.contents)
          needsReading = options.includesTextPatches || options.expandingContainers != nil
        } else if let identity = old.diskIdentity, identity == new.diskIdentity {
          needsReading = false
        } else {
          needsReading = true
        }
        if needsReading {
          pairs.append(Pair(old: old, new: new, path: path, order: position, details: details))
        } else {
          record(position, path, old, new, details)
        }
      }
    case (nil, nil):
      break
    }
  }

  private func attributeDetails(_ old: PackageNode, _ new: PackageNode) -> Change.Details {
    var details: Change.Details = []
    if old.kind != .symlink, old.permissions != new.permissions { details.insert(.permissions) }
    if options.comparesModificationTimes, old.modificationTime != new.modificationTime {
      details.insert(.modificationTime)
    }
    return details
  }

  private mutating func record(
    _ position: Int, _ path: String, _ old: PackageNode, _ new: PackageNode, _ details: Change.Details,
    oldEntry: Entry? = nil, newEntry: Entry? = nil, patch: TextPatch? = nil, nested: PackageDifference? = nil
  ) {
    guard !details.isEmpty else { return }
    found.append((position, Change(
      kind: .modified, path: path, old: oldEntry ?? Entry(old), new: newEntry ?? Entry(new), details: details,
      patch: patch, nested: nested)))
  }

  // MARK: Phase 2: reading

  /// Whether deleted and added files must be read: for patches, or to find renames.
  private var candidatesNeedReading: Bool {
    if options.includesTextPatches { return true }
    return options.detectsRenames && added.contains { $0.node.kind == .file && $0.entry.size > 0 }
      && deleted.contains { $0.node.kind == .file && $0.entry.size > 0 }
  }

  private enum Task {
    case pair(Int)
    case added(Int)
    case deleted(Int)
  }

  /// Reads what phase 1 left pending, in walk order, so each tree's files are read in its order.
  private mutating func readPending(parallel: Bool) throws {
    if parallel, !options.includesTextPatches, options.expandingContainers == nil, pairs.count > 1 {
      // Plain equality of files on disk: no order to keep, so compare on two workers.
      let onDisk = pairs.filter { $0.old.isBackedByDisk && $0.new.isBackedByDisk }
      let equal = try Self.equalContentsInParallel(onDisk.map { ($0.old, $0.new) })
      for (index, pair) in onDisk.enumerated() {
        var details = pair.details
        if !equal[index] { details.insert(.contents) }
        record(pair.order, pair.path, pair.old, pair.new, details)
      }
      pairs.removeAll { $0.old.isBackedByDisk && $0.new.isBackedByDisk }
    }
    var tasks: [(order: Int, task: Task)] = pairs.indices.map { (pairs[$0].order, .pair($0)) }
    if candidatesNeedReading {
      for (index, candidate) in added.enumerated() where candidate.node.kind == .file && candidate.entry.size > 0 {
        tasks.append((candidate.order, .added(index)))
      }
      for (index, candidate) in deleted.enumerated() where candidate.node.kind == .file && candidate.entry.size > 0 {
        tasks.append((candidate.order, .deleted(index)))
      }
      tasks.sort { $0.order < $1.order }
    }
    for (_, task) in tasks {
      switch task {
      case .pair(let index): try compare(pairs[index])
      case .added(let index): added[index] = try read(added[index])
      case .deleted(let index): deleted[index] = try read(deleted[index])
      }
    }
  }

  private mutating func compare(_ pair: Pair) throws {
    var details = pair.details
    var oldEntry = Entry(pair.old), newEntry = Entry(pair.new)
    var patch: TextPatch?
    if options.includesTextPatches {
      if max(pair.old.size, pair.new.size) <= options.maximumTextSize {
        let a = try reader.load(pair.old)
        let b = try reader.load(pair.new)
        if a != b {
          details.insert(.contents)
          oldEntry.isText = ContentReader.looksLikeText(a)
          newEntry.isText = ContentReader.looksLikeText(b)
          if oldEntry.isText == true, newEntry.isText == true {
            patch = TextPatch(from: a, to: b, context: options.patchContext)
          } else {
            oldEntry.sha256 = ContentReader.sha256(of: a)
            newEntry.sha256 = ContentReader.sha256(of: b)
          }
        }
      } else {
        oldEntry.sha256 = try ContentReader.sha256(of: pair.old)
        newEntry.sha256 = try ContentReader.sha256(of: pair.new)
        if oldEntry.sha256 != newEntry.sha256 { details.insert(.contents) }
      }
    } else if pair.old.size == pair.new.size, try !reader.equalContents(pair.old, pair.new) {
      details.insert(.contents)
    }
    var nested: PackageDifference?
    if details.contains(.contents), let expand = options.expandingContainers,
      let oldTree = try expand(pair.old, pair.path), let newTree = try expand(pair.new, pair.path)
    {
      var inner = DiffEngine(options: options)
      nested = try inner.run(old: oldTree, new: newTree)
    }
    record(pair.order, pair.path, pair.old, pair.new, details, oldEntry: oldEntry, newEntry: newEntry,
           patch: patch, nested: nested)
  }

  private func read(_ candidate: Candidate) throws -> Candidate {
    var candidate = candidate
    if candidate.entry.size <= options.maximumTextSize {
      let bytes = try reader.load(candidate.node)
      candidate.entry.sha256 = ContentReader.sha256(of: bytes)
      let isText = ContentReader.looksLikeText(bytes)
      candidate.entry.isText = isText
      if isText {
        candidate.fingerprint = TextFingerprint(bytes)
        if options.includesTextPatches { candidate.text = bytes }
      }
    } else {
      candidate.entry.sha256 = try ContentReader.sha256(of: candidate.node)
    }
    return candidate
  }

  // MARK: Phase 3: renames

  private mutating func pairRenames() throws {
    guard options.detectsRenames, !added.isEmpty, !deleted.isEmpty else { return }
    // Exact: same kind and same contents (SHA-256) or link destination.
    func key(_ candidate: Candidate) -> String? {
      switch candidate.node.kind {
      case .file: candidate.entry.sha256.map { "f" + $0 }
      case .symlink: "l" + candidate.node.symbolicLinkDestination
      case .directory: nil
      }
    }
    var deletedByKey: [String: [Int]] = [:]
    for (index, candidate) in deleted.enumerated() {
      if let key = key(candidate) { deletedByKey[key, default: []].append(index) }
    }
    for index in added.indices {
      guard let key = key(added[index]), let choices = deletedByKey[key] else { continue }
      let open = choices.filter { !deleted[$0].paired }
      guard let first = open.first else { continue }
      let name = Self.fileName(added[index].path)
      let chosen = open.first { Self.fileName(deleted[$0].path) == name } ?? first
      try pair(deleted: chosen, added: index, similarity: 100)
    }
    // Inexact: similar text files.
    let olds = deleted.indices.filter { !deleted[$0].paired && deleted[$0].fingerprint != nil }
    let news = added.indices.filter { !added[$0].paired && added[$0].fingerprint != nil }
    guard !olds.isEmpty, !news.isEmpty, olds.count * news.count <= options.renamePairLimit else { return }
    var scored: [(score: Int, added: Int, deleted: Int)] = []
    for a in news {
      for d in olds {
        let score = min(99, deleted[d].fingerprint!.similarity(to: added[a].fingerprint!, threshold: options.renameThreshold))
        if score >= options.renameThreshold { scored.append((score, a, d)) }
      }
    }
    scored.sort { ($0.score, -$0.added, -$0.deleted) > ($1.score, -$1.added, -$1.deleted) }
    for candidate in scored where !added[candidate.added].paired && !deleted[candidate.deleted].paired {
      try pair(deleted: candidate.deleted, added: candidate.added, similarity: candidate.score)
    }
  }

  private mutating func pair(deleted d: Int, added a: Int, similarity: Int) throws {
    deleted[d].paired = true
    added[a].paired = true
    let old = deleted[d], new = added[a]
    var details = attributeDetails(old.node, new.node)
    var patch: TextPatch?
    if similarity < 100 {
      details.insert(.contents)
      if let before = old.text, let after = new.text {
        patch = TextPatch(from: before, to: after, context: options.patchContext)
      }
    }
    found.append((new.order, Change(
      kind: .renamed, path: new.path, oldPath: old.path, old: old.entry, new: new.entry, details: details,
      similarity: similarity, patch: patch)))
  }

  private static func fileName(_ path: String) -> Substring {
    path.split(separator: "/").last ?? Substring(path)
  }
}
