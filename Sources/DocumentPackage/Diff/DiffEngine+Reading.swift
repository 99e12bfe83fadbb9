/// Phase 2 of ``DiffEngine``: reading the files phase 1 could not decide on.
extension DiffEngine {
  /// Whether deleted and added files must be read: for patches, or to find renames.
  private var candidatesNeedReading: Bool {
    if options.includesTextPatches { return true }
    return options.detectsRenames && added.contains { $0.node.kind == .file && $0.entry.size > 0 }
      && deleted.contains { $0.node.kind == .file && $0.entry.size > 0 }
  }

  enum Task {
    case pair(Int)
    case added(Int)
    case deleted(Int)
  }

  /// Reads what phase 1 left pending, in walk order, so each tree's files are read in its order.
  mutating func readPending(parallel: Bool) throws {
    if parallel, pairs.count > pairsLeftByWindows { try compareInParallel(from: pairsLeftByWindows) }
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
      case .pair(let index): try checkCancellation(at: pairs[index].path)
      case .added(let index): try checkCancellation(at: added[index].path)
      case .deleted(let index): try checkCancellation(at: deleted[index].path)
      }
      switch task {
      case .pair(let index): try compare(pairs[index])
      case .added(let index): added[index] = try read(added[index])
      case .deleted(let index): deleted[index] = try read(deleted[index])
      }
    }
  }

  /// Compares the pending same-size pairs from `start` on whose files are on disk (or from sources that allow
  /// concurrent reads) on two workers: no order to keep. Pairs that differ stay pending when patches or
  /// containers need their contents.
  mutating func compareInParallel(from start: Int = 0) throws {
    let keepsDifferent = options.includesTextPatches || options.expandingContainers != nil
    let onDisk = pairs[start...].filter {
      $0.old.size == $0.new.size && $0.old.isReadableOnAnyThread && $0.new.isReadableOnAnyThread
    }
    let equal = try Self.equalContentsInParallel(onDisk.map { ($0.old, $0.new) })
    var decided = Set<Int>()
    for (index, pair) in onDisk.enumerated() where equal[index] || !keepsDifferent {
      var details = pair.details
      if !equal[index] { details.insert(.contents) }
      record(pair.order, pair.path, pair.old, pair.new, details)
      decided.insert(pair.order)
    }
    if !decided.isEmpty { pairs.removeAll { decided.contains($0.order) } }
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
            patch = try self.patch(from: a, to: b, at: pair.path)
          } else {
            oldEntry.sha256 = ContentReader.sha256(of: a)
            newEntry.sha256 = ContentReader.sha256(of: b)
          }
        }
      } else if try pair.old.size != pair.new.size || !reader.equalContents(pair.old, pair.new) {
        // Digests only for files that differ: equal ones are compared as without patches (a sparse file's
        // data only), not hashed whole.
        details.insert(.contents)
        oldEntry.sha256 = try ContentReader.sha256(of: pair.old)
        newEntry.sha256 = try ContentReader.sha256(of: pair.new)
      }
    } else if pair.old.size == pair.new.size, try !reader.equalContents(pair.old, pair.new) {
      details.insert(.contents)
    } else if pair.old.size != pair.new.size {
      // Sizes tell the contents differ; an archive entry's data is read all the same, where it is checked (a
      // zip's CRC-32, a truncated tar), so that a damaged entry fails the diff rather than showing as modified.
      // Its data only: a sparse entry's holes are not read.
      for node in [pair.old, pair.new] where node.checksDataWhenRead { _ = try ContentReader.dataDigest(of: node) }
    }
    var nested: PackageDifference?
    if details.contains(.contents), let expand = options.expandingContainers,
      let oldTree = try expand(pair.old, pair.path), let newTree = try expand(pair.new, pair.path)
    {
      var inner = DiffEngine(options: options)
      nested = try inner.run(old: oldTree, new: newTree)
    }
    record(
      pair.order, pair.path, pair.old, pair.new, details, oldEntry: oldEntry, newEntry: newEntry,
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
        candidate.isSimilarityCandidate = true
        if options.includesTextPatches { candidate.text = bytes }
        // Files on disk are cheap to read again: fingerprint only those left after exact
        // renames. Others (archive entries) are read once, so fingerprint them now.
        if !candidate.node.isBackedByDisk || options.includesTextPatches {
          candidate.fingerprint = TextFingerprint(bytes)
        }
      }
    } else {
      candidate.entry.sha256 = try ContentReader.sha256(of: candidate.node)
    }
    return candidate
  }

}
