import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a push sends: blobs (hash, file, plain size) and trees (hash, encoded), blobs first.
struct PushUploads: Sendable {
  var blobs: [(hash: String, file: FilePath, size: Int64)]
  var trees: [(hash: String, data: Data)]
}

extension PackageSync {
  /// Phase 3: what the remote lacks of the package's state and its unresolved conflict versions. Walks the
  /// package's trees against the synced head's (``PushPlan``); then, for what may be missing: many objects, one
  /// listing of the remote decides; a few, small blobs are sent and big ones (and what the journal lists) only
  /// after a HEAD says the remote lacks them.
  func planUploads(
    _ start: PushStart, objects: RemoteObjects, journal: PushJournal, forcingNewHead: Bool
  ) async throws -> PushUploads {
    let (snapshot, local) = (start.snapshot, LocalTrees(path: folder.treeStore))
    // A repair trusts nothing it did not see on the remote: no base to stop at, one listing.
    let base = forcingNewHead || start.current == nil ? nil : start.synced?.tree
    var plan = try await BlockingIO.run { PushPlan(snapshot: snapshot, base: base, local: local) }
    // What the journal lists was sent by a push that did not move the head (killed, or it lost the race for the
    // head): no state names it, so a prune that ran since (on any device, between that push's lock and this
    // one's) may have deleted it. It is checked here, under this push's lock, like any object of unknown
    // presence; never skipped on the journal's word.
    let journaled = forcingNewHead ? [] : journal.sent
    if forcingNewHead || plan.blobs.count + plan.trees.count > Self.listingThreshold {
      // Many objects of unknown presence (a first push, or one after an interrupted push): one listing of the
      // remote is cheaper than asking for each.
      async let listedBlobs = objects.names(in: "blobs")
      async let listedTrees = objects.names(in: "trees")
      let (haveBlobs, haveTrees) = try await (listedBlobs, listedTrees)
      plan.blobs.removeAll { haveBlobs.contains(objects.name($0)) }
      plan.trees.removeAll { haveTrees.contains(objects.name($0)) }
    } else {
      // A few: small blobs are sent (a PUT costs what a HEAD does), big ones and what the journal lists only if
      // the remote lacks them.
      let asked =
        plan.blobs.filter { (snapshot.blobs[$0]?.size ?? 0) > Self.headCheckSize || journaled.contains($0) }
        .map(objects.blobKey) + plan.trees.filter { journaled.contains($0) }.map(objects.treeKey)
      let skip = try await present(asked)
      plan.blobs.removeAll { skip.contains(objects.blobKey($0)) }
      plan.trees.removeAll { skip.contains(objects.treeKey($0)) }
    }
    // The unresolved conflict versions the remote lacks go up with the state (from the version store).
    let listed = start.current?.head.conflictTrees ?? []
    let newConflicts = start.unresolved.filter { !listed.contains($0.tree) || forcingNewHead }
    var extra = try await conflictObjects(
      newConflicts, local: forcingNewHead ? nil : local, plannedTrees: Set(plan.trees),
      plannedBlobs: Set(plan.blobs))
    let skipExtra = try await present(extra.blobs.filter { $0.2 > Self.headCheckSize }.map { objects.blobKey($0.0) })
    extra.blobs.removeAll { skipExtra.contains(objects.blobKey($0.0)) }
    let packagePath = folder.packagePath
    return PushUploads(
      blobs: plan.blobs.map {
        (hash: $0, file: packagePath.appending(snapshot.blobs[$0]!.path), size: snapshot.blobs[$0]!.size)
      }
        + extra.blobs.map { (hash: $0.0, file: $0.1, size: $0.2) },
      trees: plan.trees.map { (hash: $0, data: snapshot.trees[$0]!.encoded()) }
        + extra.trees.map { (hash: $0.0, data: $0.1) })
  }

  /// Which of `keys` the remote holds: a HEAD each, ``parallelism`` at once.
  func present(_ keys: [String]) async throws -> Set<String> {
    let present = NIOLockedValueBox(Set<String>())
    try await forEachConcurrently(keys) { [client] key in
      if try await client.head(key) != nil { present.withLockedValue { _ = $0.insert(key) } }
    }
    return present.withLockedValue { $0 }
  }
}

/// What a push may have to send: the package's trees that differ from the synced head's tree at the same path,
/// and the blobs of files that differ from the synced head's file at the same path — found by walking both
/// states from the root and stopping at every equal subtree, so a push after changing one file of 100,000 looks
/// at the trees on that file's path only.
struct PushPlan {
  /// Trees to send, subtrees first.
  var trees: [String] = []
  /// Blobs that may be missing.
  var blobs: [String] = []
  private var seenBlobs: Set<String> = []

  init(snapshot: PackageScan, base: String?, local: LocalTrees) {
    walk(snapshot.root, base, snapshot: snapshot, local: local)
  }

  /// Notes what the tree `hash` needs sent that the tree `old` (synced before) did not have, subtrees before the
  /// trees naming them: the ``StoredTreeWalk`` of each tree once, post-order, each tree paired with the synced
  /// tree at its path, not walked below where the two are equal (what is under it is on the remote).
  private mutating func walk(_ hash: String, _ old: String?, snapshot: PackageScan, local: LocalTrees) {
    var walk = StoredTreeWalk<String?>(.eachTree(), roots: [.init(name: "the package", hash: hash, context: old)])
    while let step = walk.next() {
      switch step {
      case .enter(let at):
        guard at.hash != at.context, let tree = snapshot.trees[at.hash] else { continue }
        let oldTree = at.context.flatMap { local.tree($0) }
        var subtrees: [StoredTreeWalk<String?>.Subtree] = []
        for (name, entry) in tree.entries {
          let before = oldTree?.entries[name]
          switch entry.kind {
          case .directory:
            let synced = before?.kind == .directory ? before?.reference : nil
            subtrees.append(.init(name: name, hash: entry.reference, context: synced))
          case .file:
            if before?.kind == .file, before?.reference == entry.reference { continue }
            if seenBlobs.insert(entry.reference).inserted { blobs.append(entry.reference) }
          case .symlink:
            break
          }
        }
        walk.descend(into: subtrees)
      case .leave(let at):
        trees.append(at.hash)
      }
    }
  }
}
