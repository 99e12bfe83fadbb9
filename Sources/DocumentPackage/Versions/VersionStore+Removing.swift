import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// Marks the conflict version `id` resolved (it stays listed until removed or pruned).
  /// Takes the package's lock.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, `io`.
  public func markResolved(_ id: Int) throws {
    try withPackageLock {
      var record = try record(id)
      guard !record.version.isResolved else { return }
      record.version.isResolved = true
      try write(record)
    }
  }

  /// Removes the versions `ids` and the objects only they used. Takes the package's lock.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, `io`.
  public func remove(_ ids: [Int]) throws {
    try withPackageLock {
      for id in ids { _ = try record(id) }
      try removeLocked(ids)
    }
  }

  /// Removes every resolved conflict version. Takes the package's lock.
  /// - Returns: The removed versions' ids.
  @discardableResult
  public func removeResolvedConflicts() throws -> [Int] {
    let ids = try versions().filter { $0.origin == .conflict && $0.isResolved }.map(\.id)
    try remove(ids)
    return ids
  }

  /// Removes the oldest versions beyond the newest `count`, never an unresolved conflict version.
  /// Takes the package's lock.
  /// - Returns: The removed versions' ids.
  @discardableResult
  public func prune(keepingLast count: Int) throws -> [Int] {
    try withPackageLock { try pruneLocked(keepingLast: count) }
  }

  func pruneLocked(keepingLast count: Int) throws -> [Int] {
    let candidates = try versions().filter(\.isResolved)
    let doomed = candidates.dropLast(max(count, 0)).map(\.id)
    try removeLocked(doomed)
    return doomed
  }

  /// Removes records first (a version is gone once its record is), then the objects that no
  /// remaining version reaches (none while a damaged record's objects are unknown) (holding the store's lock: a settling process writes objects). A kill in between leaves unreferenced objects, which the next
  /// removal collects.
  func removeLocked(_ ids: [Int]) throws {
    guard !ids.isEmpty, exists else { return }
    try withStoreLock { try removeHoldingStoreLock(ids) }
  }

  private func removeHoldingStoreLock(_ ids: [Int]) throws {
    // The directory cache describes the newest version (the package's state when it was kept);
    // if that one goes, its blobs may go too, and directories must be walked again.
    if let newest = try records().last?.version.id, ids.contains(newest) {
      try? Syscalls.unlink(path.appending("dirs"))
    }
    let doomed = Set(ids)
    var doomedRecords: [VersionRecord] = []
    var kept: [VersionRecord] = []
    let (records, problems) = try listing()
    for record in records {
      if doomed.contains(record.version.id) { doomedRecords.append(record) } else { kept.append(record) }
    }
    let reachable = objects(of: kept)
    let garbage = objects(of: doomedRecords, skipping: reachable)
    try noteRemoved(ids, followers: records)
    for id in ids.sorted(by: >) {
      let file = versionsPath.appending(String(id))
      do { try Syscalls.unlink(file) } catch  where error != .noSuchFileOrDirectory {
        throw PackageError.io(error, "cannot remove version", path: file)
      } catch {}
    }
    // The records' removal must be durable before their objects go: after a power cut, a record back
    // without its objects would be a damaged version, where it was only meant to be gone.
    do { try StoreFiles.flushDirectory(versionsPath) } catch {
      throw PackageError.io(error, "cannot flush", path: versionsPath.string, context: "while removing versions")
    }
    try? noteRemoved([], followers: kept)  // best effort: a gap noted too long is never a wrong flag
    // A damaged record's objects are not known: keep every object rather than remove its only
    // copy (the records are gone; the objects wait for a removal once it is repaired or removed).
    guard !problems.contains(where: { $0.state == .damaged }) else { return }
    for hash in garbage.subtracting(reachable) {
      try? Syscalls.unlink(objectPath(hash))
    }
  }

  /// Every object reachable from the root trees of `records`, not descending into what `skipping` has: the
  /// ``StoredTreeWalk`` of each tree once. A tree object that does not read is in it, with nothing below it.
  private func objects(of records: [VersionRecord], skipping: Set<String> = []) -> Set<String> {
    var objects = Set<String>()
    var walk = StoredTreeWalk<Void>(
      .eachTree(skipping: skipping),
      roots: records.map { .init(name: "version \($0.version.id)", hash: $0.rootTree) })
    while let step = walk.next() {
      guard case .enter(let at) = step else { continue }
      objects.insert(at.hash)
      guard let data = try? StoreFiles.read(objectPath(at.hash)) else { continue }
      var subtrees: [StoredTreeWalk<Void>.Subtree] = []
      for (isTree, hash) in TreeEntry.references(data) {
        if isTree {
          subtrees.append(.init(name: "", hash: hash))
        } else if !skipping.contains(hash) {
          objects.insert(hash)
        }
      }
      walk.descend(into: subtrees)
    }
    return objects
  }
}
