#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Pushes and prunes take turns on a remote, with lock objects (as restic's prune does).
//
// A prune deletes what no retained state reaches. A push uploads objects before its head names them, and skips
// objects it finds on the remote: while it runs, objects it relies on are reachable from no head yet, and a prune
// running then would delete them. So each takes a lock object under `locks/` for its whole run — a push from
// before it plans until its head (and its `states/` entry) is written, a prune from before it reads the head
// until its last delete — and neither runs while the other's lock exists:
//
//   1. PUT `locks/KIND-UUID` (KIND `push` or `prune`), 2. LIST `locks/`, 3. if a lock of a kind that excludes
//   ours is there (push: a prune; prune: a push or another prune), DELETE ours, wait and start again; else run,
//   then DELETE ours.
//
// S3 (AWS since 2020, Ceph RGW, MinIO) lists an object once its PUT returned, so of two writers that both PUT
// then LIST, at least the second sees the first: they are never both past step 3. When both see each other, both
// step back and retry after a random delay. A lock older than `RemoteLock.staleAfter` (its writer was killed) is
// ignored, and removed by the next prune. Costs a push three small requests; pulls and clones take no lock (they
// only read: what they read is a retained state, which a prune keeps).

/// A lock object under `locks/` of a remote.
struct RemoteLock: Sendable, Hashable {
  /// Who holds it.
  enum Kind: String, Sendable {
    case push, prune

    /// Whether a lock of this kind keeps `other` from running.
    func excludes(_ other: Kind) -> Bool { self == .prune || other == .prune }
  }

  var kind: Kind
  /// When it was taken (the holder's clock).
  var date: Date

  /// A lock this old was left by a killed process: ignored.
  static let staleAfter: Duration = .seconds(15 * 60)

  func encoded() -> Data {
    Data("docpkg-sync-lock 1\nkind \(kind.rawValue)\ndate \(Int64(date.timeIntervalSince1970))\n".utf8)
  }

  /// The lock of `key` (`locks/KIND-UUID`) with the date in `data`; nil if it is not one.
  init?(key: String, data: Data) {
    let name = key.split(separator: "/").last ?? ""
    guard let kind = Kind(rawValue: String(name.prefix { $0 != "-" })) else { return nil }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docpkg-sync-lock 1",
      let seconds = lines.first(where: { $0.hasPrefix("date ") }).flatMap({ Double($0.dropFirst(5)) })
    else { return nil }
    self.kind = kind
    self.date = Date(timeIntervalSince1970: seconds)
  }

  init(kind: Kind, date: Date) {
    self.kind = kind
    self.date = date
  }

  var isStale: Bool { Date().timeIntervalSince(date) > Double(Self.staleAfter.components.seconds) }
}

extension PackageSync {
  /// Runs `body` holding a lock of `kind` on the remote (see `RemoteLock.swift`): waits while a lock that excludes
  /// it is held, up to `wait`, then fails.
  /// - Throws: ``SyncError`` with code `remote` when the other's lock is still there after `wait`; `body`'s errors.
  func withRemoteLock<T>(
    _ kind: RemoteLock.Kind, wait: Duration = .seconds(60), _ body: () async throws -> T
  ) async throws -> T {
    let objects = try await unlock()
    let key = location.key("locks/\(kind.rawValue)-\(UUID().uuidString.lowercased())")
    let deadline = ContinuousClock.now + wait
    while true {
      try await objects.put(key, RemoteLock(kind: kind, date: Date()).encoded(), kind: .lock)
      guard let other = try await excludingLock(of: kind, besides: key) else { break }
      try? await client.delete(key)
      guard ContinuousClock.now < deadline else {
        throw SyncError(
          .remote,
          "the remote is busy: a \(other.kind.rawValue) from another device holds its lock (since \(Int64(other.date.timeIntervalSince1970)), stale after 15 min); try again later;",
          key: location.key("locks/"))
      }
      do { try await Task.sleep(for: .milliseconds(Int.random(in: 300...1200))) } catch {
        throw SyncError(.cancelled, "waiting for the remote's lock cancelled", key: key)
      }
    }
    do {
      let result = try await body()
      try? await client.delete(key)
      return result
    } catch {
      try? await client.delete(key)
      throw error
    }
  }

  /// A lock other than `own` that keeps a `kind` from running, if one is held (not stale).
  private func excludingLock(of kind: RemoteLock.Kind, besides own: String) async throws -> RemoteLock? {
    let objects = try await unlock()
    for object in try await client.list(prefix: location.key("locks/")) where object.key != own {
      guard let name = object.key.split(separator: "/").last,
        let otherKind = RemoteLock.Kind(rawValue: String(name.prefix { $0 != "-" })),
        kind.excludes(otherKind)
      else { continue }
      guard let data = try? await client.get(object.key, limit: 1 << 12).data,
        let lock = RemoteLock(
          key: object.key, data: (try? objects.opened(data, kind: .lock, key: object.key)) ?? Data())
      else { continue }  // removed meanwhile (released), or not a lock
      if !lock.isStale { return lock }
    }
    return nil
  }
}
