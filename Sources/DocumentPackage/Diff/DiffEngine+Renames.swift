/// Phase 3 of ``DiffEngine``: pairing deleted and added entries into renames.
extension DiffEngine {
  mutating func pairRenames() throws {
    guard options.detectsRenames, !added.isEmpty, !deleted.isEmpty else { return }
    // Exact: same kind and same contents (SHA-256) or link destination.
    enum Key: Hashable {
      case file(String)
      case link(String)
    }
    func key(_ candidate: Candidate) -> Key? {
      switch candidate.node.kind {
      case .file: candidate.entry.sha256.map(Key.file)
      case .symlink: .link(candidate.node.symbolicLinkDestination)
      case .directory: nil
      }
    }
    var deletedByKey: [Key: [Int]] = [:]
    for (index, candidate) in deleted.enumerated() {
      if let key = key(candidate) { deletedByKey[key, default: []].append(index) }
    }
    for index in added.indices {
      guard let key = key(added[index]), let choices = deletedByKey[key] else { continue }
      let name = Self.fileName(added[index].path)
      var chosen: Int?
      for choice in choices where !deleted[choice].paired {
        if chosen == nil { chosen = choice }
        if Self.fileName(deleted[choice].path) == name {
          chosen = choice
          break
        }
      }
      if let chosen { try pair(deleted: chosen, added: index, similarity: 100) }
    }
    // Inexact: similar text files.
    let olds = deleted.indices.filter { !deleted[$0].paired && deleted[$0].isSimilarityCandidate }
    let news = added.indices.filter { !added[$0].paired && added[$0].isSimilarityCandidate }
    guard !olds.isEmpty, !news.isEmpty, olds.count * news.count <= options.renamePairLimit else { return }
    for index in olds where deleted[index].fingerprint == nil {
      deleted[index].fingerprint = TextFingerprint(try reader.load(deleted[index].node))
    }
    for index in news where added[index].fingerprint == nil {
      added[index].fingerprint = TextFingerprint(try reader.load(added[index].node))
    }
    var scored: [(score: Int, added: Int, deleted: Int)] = []
    for a in news {
      try checkCancellation(at: added[a].path)
      for d in olds {
        let score = min(
          99, deleted[d].fingerprint!.similarity(to: added[a].fingerprint!, threshold: options.renameThreshold))
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
        patch = try self.patch(from: before, to: after, at: new.path)
      }
    }
    found.append(
      (
        new.order,
        Change.renamed(
          from: old.path, to: new.path, similarity: similarity, old: old.entry, new: new.entry, details: details,
          patch: patch)
      ))
  }

  private static func fileName(_ path: String) -> Substring {
    path.split(separator: "/").last ?? Substring(path)
  }
}
