import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a push did.
public enum PushResult: Sendable, Hashable {
  /// The remote's head is already the package's state.
  case upToDate
  /// The head now names the package's state; `blobs` and `trees` objects (`bytes` bytes of blobs) were sent.
  case pushed(tree: String, blobs: Int, trees: Int, bytes: Int64)
}

extension PackageSync {
  /// Uploads the blobs and trees the remote lacks, then moves the remote's head to the package's state with a
  /// conditional write. Holds the package's lock meanwhile (local saves wait).
  /// - Throws: ``SyncError`` with code `preconditionFailed` when another device pushed first, and `remote` when
  ///   the remote has changes this package has not pulled (both say to pull first); others as the client's.
  @discardableResult
  public func push(progress: SyncProgressHandler? = nil) async throws -> PushResult {
    let packagePath = folder.packagePath
    let lock = try await BlockingIO.run { Handed(try PackageLock(forPackageAt: packagePath)) }
    defer { lock.value.unlock() }
    progress?(SyncProgress(phase: .scanning, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    let snapshot = try await BlockingIO.run { try Snapshot(packageAt: packagePath) }
    let current = try await head()
    let synced = folder.state(remote.name)
    if let current {
      if current.head.tree == snapshot.root {
        try folder.setState(remote.name, tree: snapshot.root, etag: current.etag)
        return .upToDate
      }
      guard let synced, synced.tree == current.head.tree else {
        throw SyncError(
          .remote, "the remote has changes this package has not pulled: pull, then push again; remote head",
          key: headKey)
      }
    }

    progress?(SyncProgress(phase: .comparing, objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0))
    async let listedBlobs = client.list(prefix: location.key("blobs/"))
    async let listedTrees = client.list(prefix: location.key("trees/"))
    let haveBlobs = Set(try await listedBlobs.map { String($0.key.split(separator: "/").last ?? "") })
    let haveTrees = Set(try await listedTrees.map { String($0.key.split(separator: "/").last ?? "") })
    let blobs = snapshot.blobs.filter { !haveBlobs.contains($0.key) }.map { ($0.key, $0.value.path, $0.value.size) }
    let trees = snapshot.trees.filter { !haveTrees.contains($0.key) }.map { ($0.key, $0.value) }
    let totalBytes = blobs.reduce(Int64(0)) { $0 + $1.2 }
    let objectsTotal = blobs.count + trees.count
    let counter = TransferCounter()

    try await forEachConcurrently(blobs) { [self] (hash, path, size) in
      try await client.upload(blobKey(hash), fromFile: packagePath.appending(path))
      let (objects, bytes) = counter.add(objects: 1, bytes: size)
      progress?(
        SyncProgress(
          phase: .uploading, objectsDone: objects, objectsTotal: objectsTotal, bytesDone: bytes, bytesTotal: totalBytes)
      )
    }
    // Trees after blobs, the head last: the head never names an object that is not there.
    try await forEachConcurrently(trees) { [self] (hash, tree) in
      try await client.put(treeKey(hash), data: tree.encoded())
      let (objects, bytes) = counter.add(objects: 1, bytes: 0)
      progress?(
        SyncProgress(
          phase: .uploading, objectsDone: objects, objectsTotal: objectsTotal, bytesDone: bytes, bytesTotal: totalBytes)
      )
    }

    progress?(SyncProgress(phase: .updatingHead, objectsDone: 0, objectsTotal: 1, bytesDone: 0, bytesTotal: 0))
    let newHead = RemoteHead(tree: snapshot.root, parent: current?.head.tree, date: Date())
    let etag: String
    do {
      etag = try await client.put(
        headKey, data: newHead.encoded(), condition: current.map { .matches($0.etag) } ?? .absent)
    } catch let error as SyncError where error.code == .preconditionFailed {
      throw lostRace(error)
    } catch let error as SyncError where error.code == .transport || (error.status ?? 0) >= 500 {
      // The outcome is unknown (Ceph RGW answers 500 to the loser of two racing conditional PUTs): look.
      guard let now = try? await head() else { throw error }
      if now.head.tree == newHead.tree && now.head.parent == newHead.parent {
        etag = now.etag
      } else if now.etag != current?.etag {
        throw lostRace(error)
      } else {
        throw error
      }
    }
    try folder.setState(remote.name, tree: snapshot.root, etag: etag)
    return .pushed(tree: snapshot.root, blobs: blobs.count, trees: trees.count, bytes: totalBytes)
  }
}

extension PackageSync {
  /// The error for a push whose head write lost to another device's.
  func lostRace(_ error: SyncError) -> SyncError {
    SyncError(
      .preconditionFailed, "another device pushed first (nothing was overwritten): pull, then push again; remote head",
      key: headKey, status: error.status, serverCode: error.serverCode, serverMessage: error.serverMessage)
  }
}

/// Objects and bytes done so far, shared by concurrent transfers.
final class TransferCounter: Sendable {
  private let state = NIOLockedValueBox((0, Int64(0)))
  func add(objects: Int, bytes: Int64) -> (Int, Int64) {
    state.withLockedValue {
      $0.0 += objects
      $0.1 += bytes
      return $0
    }
  }
}
