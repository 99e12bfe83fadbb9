import Dispatch
import DocumentArchive
import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

/// The trees the page reads, kept on one serial queue of their own: the served tree (the package, archive or
/// version given), the versions the page compares, and the other locations given to compare with (`--compare`).
/// A ``PackageNode`` is not thread-safe and its reads block, so every read runs here — never on an event loop,
/// never on Swift's cooperative pool.
///
/// The served tree is read lazily and kept between requests (a directory listed once is not listed again), until
/// the change monitor says the package changed (``invalidate()``: the next request opens it anew) or a read meets
/// a newer save (`changedOnDisk`: the tree is opened anew and the request runs again, once). Versions and
/// archives never change, so the last few read are kept too; a compared package on disk, which nothing watches,
/// is opened anew for each request. A package on disk is
/// read under its read lock (``/DocumentPackage/PackageReadLock``), request by request, so one request sees one
/// saved state.
package final class PackageBrowser: @unchecked Sendable {
  /// What is served: where it is now, for a package on disk that was moved while served (``follow(movedTo:)``).
  package var location: ServedLocation { currentLocation.withLockedValue { $0 } }
  private let currentLocation: NIOLockedValueBox<ServedLocation>
  /// The other locations the page may compare with (``TreeState/compared(_:)``), in the order given.
  package let compared: [ServedLocation]
  private let queue = DispatchQueue(label: "PackageServer.PackageBrowser")
  // The state below is touched only on `queue`.
  private var served: PackageNode?
  /// The trees of versions and compared locations read lately, newest first.
  private var otherTrees: [(state: TreeState, root: PackageNode)] = []
  /// The totals of every directory of the served tree walked so far, by path (see ``totals(at:)``).
  private var totalsCache: [String: TreeTotals] = [:]
  /// Where directories are listed for the tree (``list(_:)``), beside `queue`: a first listing of a large folder
  /// takes long (15 s for 10,000 entries in a debug build, 0.1 s in a release one), and every other request waited
  /// behind it on `queue` (issue 38).
  private let listingQueue = DispatchQueue(label: "PackageServer.PackageBrowser.listing")
  /// The served tree the listings read, of their own (a tree is not thread-safe); touched only on `listingQueue`.
  private var listingTree: PackageNode?

  /// Downloads the files version `id` of the package at the path keeps on a remote, if any (see
  /// ``PackageServer/Configuration/fetchVersionFiles``).
  package typealias VersionFetcher = @Sendable (FilePath, Int) async throws -> Void
  private let fetcher: VersionFetcher?
  /// The versions whose files are all in their store: fetched, or found so.
  private let fetched = NIOLockedValueBox(Set<ServedLocation>())

  /// Opens `location` and each of `compared` once, so that a path that cannot be served fails before the server
  /// starts.
  /// - Parameter fetcher: Downloads the files a version keeps on a remote before it is read.
  /// - Throws: What ``ServedLocation/openChecked()`` throws for any of them.
  package init(_ location: ServedLocation, compared: [ServedLocation] = [], fetcher: VersionFetcher? = nil) throws {
    currentLocation = NIOLockedValueBox(location)
    self.compared = compared
    self.fetcher = fetcher
    served = try location.openChecked()
    for other in compared { _ = try other.openChecked() }
  }

  /// Follows the served package to `path`, where the monitor saw it moved (as a `Document` follows its file): the
  /// next read opens it there, and its versions are read from there (issue 38: every read after a move failed
  /// with "no such package" at the old path).
  package func follow(movedTo path: FilePath) {
    currentLocation.withLockedValue { location in
      if case .package = location { location = .package(path) }
    }
    queue.async { self.otherTrees = [] }  // versions read from the old path
    invalidate()
  }

  /// Forgets the served tree after a change on disk: the next read opens it again.
  package func invalidate() {
    queue.async {
      self.served = nil
      self.totalsCache = [:]
    }
    listingQueue.async { self.listingTree = nil }
  }

  /// Runs `work` on the served tree on a queue of its own, not the browser's: what the tree's listings run, so
  /// that a folder listed for the first time, however large, keeps no other request waiting. The tree is a second
  /// one, read lazily and kept, dropped with the other at ``invalidate()``; a package on disk is read under its
  /// read lock, and a read that meets a newer save opens the tree anew and runs `work` again, once.
  /// - Throws: What `work` or opening the tree throws; `CancellationError` when the task was cancelled before
  ///   `work` started.
  package func list<T: Sendable>(_ work: @escaping @Sendable (PackageNode) throws -> T) async throws -> T {
    try await fetchRemoteFiles(of: [.served])
    return try await listingQueue.runCancellable { _ in
      let lock = try self.location.readLock()
      defer { lock?.unlock() }
      do { return try work(self.listingRoot()) } catch let error as PackageError where error.code == .changedOnDisk {
        guard lock != nil else { throw error }
        self.listingTree = nil
        return try work(self.listingRoot())
      }
    }
  }

  /// The tree ``list(_:)`` reads, opened at its first use after a change.
  private func listingRoot() throws -> PackageNode {
    if let listingTree { return listingTree }
    let root = try location.open()
    listingTree = root
    return root
  }

  /// Runs `work` on the root of `state` (``TreeState``) on the browser's queue.
  /// - Throws: What `work` or opening the tree throws; `CancellationError` when the task was cancelled before
  ///   `work` started.
  package func read<T: Sendable>(_ state: TreeState = .served, _ work: @escaping @Sendable (PackageNode) throws -> T)
    async throws -> T
  {
    try await fetchRemoteFiles(of: [state])
    return try await onQueue { _ in try self.readOnQueue(state, work) }
  }

  /// Runs `work` on the served tree with the totals of its directories: the first call after a change walks the
  /// whole tree once (every directory listed on all cores first, as `docpkg inspect` does), later ones reuse them,
  /// so the size map drills down without walking again.
  /// - Throws: What reading the tree or `work` throws; `CancellationError` when the task was cancelled before
  ///   `work` started.
  package func withTotals<T: Sendable>(
    _ work: @escaping @Sendable (PackageNode, [String: TreeTotals]) throws -> T
  ) async throws -> T {
    try await fetchRemoteFiles(of: [.served])
    return try await onQueue { _ in
      try self.readOnQueue(.served) { root in
        if self.totalsCache.isEmpty {
          root.listDirectoriesInParallel()
          self.totalsCache = try TreeTotals.directories(under: root)
        }
        return try work(root, self.totalsCache)
      }
    }
  }

  /// Runs `work` on the roots of two states (a comparison) on the browser's queue. `work` is given a function
  /// that says whether the task was cancelled since (its client has gone): a long comparison asks it as it goes
  /// (``/DocumentPackage/PackageDifference/Options/isCancelled``) and stops, so that the queue is free again.
  /// - Throws: What `work` or opening either tree throws; `CancellationError` when the task was cancelled before
  ///   `work` started.
  package func read<T: Sendable>(
    _ first: TreeState, _ second: TreeState,
    _ work: @escaping @Sendable (PackageNode, PackageNode, _ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    try await fetchRemoteFiles(of: [first, second])
    return try await onQueue { isCancelled in
      try self.readOnQueue([first, second]) { try work($0[0], $0[1], isCancelled) }
    }
  }

  /// Runs `job` on the browser's queue, unless the task is cancelled before it starts (a request whose client
  /// left while it waited behind others): the queue then skips it. `job` is given a function that says whether
  /// the task was cancelled since.
  private func onQueue<T: Sendable>(
    _ job: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    try await queue.runCancellable(job)
  }

  /// Has the files that the versions among `states` keep on a remote downloaded (by the fetcher), once per version:
  /// before a read, a download or a restore.
  /// - Throws: What the fetcher throws (a remote that cannot be reached, a file gone from it).
  package func fetchRemoteFiles(of states: [TreeState]) async throws {
    guard let fetcher else { return }
    for state in states {
      let location = try location(of: state)
      guard case .version(let package, let id) = location, !fetched.withLockedValue({ $0.contains(location) })
      else { continue }
      try await fetcher(package, id)
      fetched.withLockedValue { _ = $0.insert(location) }
    }
  }

  /// The location a state names: the served one, a version of its package, or a compared one.
  /// - Throws: ``/DocumentPackage/PackageError`` `noSuchEntry` for a version of what has no versions, or a
  ///   compared location that was not given.
  package func location(of state: TreeState) throws -> ServedLocation {
    switch state {
    case .served: return location
    case .version(let id):
      guard let package = location.versionedPackage else {
        throw PackageError(.noSuchEntry, "no versions are kept for", path: location.displayName)
      }
      return .version(package: package, id: id)
    case .compared(let index):
      guard compared.indices.contains(index) else {
        throw PackageError(.noSuchEntry, "nothing was given to compare as", path: state.description)
      }
      return compared[index]
    }
  }

  /// Runs `work` on the root of `state`, under the package's read lock when `state` is a package on disk.
  private func readOnQueue<T>(_ state: TreeState, _ work: (PackageNode) throws -> T) throws -> T {
    try readOnQueue([state]) { try work($0[0]) }
  }

  /// Runs `work` on the roots of `states`, each package on disk among them under its read lock, so that one
  /// request sees one saved state of each; a read that meets a newer save opens the trees of packages on disk
  /// anew and runs `work` again, once.
  private func readOnQueue<T>(_ states: [TreeState], _ work: ([PackageNode]) throws -> T) throws -> T {
    var locks: [PackageReadLock] = []
    defer { for lock in locks { lock.unlock() } }
    var seen: Set<TreeState> = []
    for state in states where seen.insert(state).inserted {
      if let lock = try location(of: state).readLock() { locks.append(lock) }
    }
    do { return try work(states.map(root(of:))) } catch let error as PackageError where error.code == .changedOnDisk {
      guard !locks.isEmpty else { throw error }
      forgetTreesOnDisk()
      return try work(states.map(root(of:)))
    }
  }

  /// Forgets the served tree if it is a package on disk, after a newer save (compared packages on disk are not
  /// kept).
  private func forgetTreesOnDisk() {
    guard location.isPackageOnDisk else { return }
    served = nil
    totalsCache = [:]
  }

  private func root(of state: TreeState) throws -> PackageNode {
    if state == .served {
      if let served { return served }
      let root = try location.open()
      served = root
      return root
    }
    if let kept = otherTrees.first(where: { $0.state == state }) { return kept.root }
    let other = try location(of: state)
    let root = try other.open()
    guard !other.isPackageOnDisk else { return root }
    otherTrees.insert((state, root), at: 0)
    if otherTrees.count > 4 { otherTrees.removeLast() }
    return root
  }
}

/// A state the page names: the served tree, a version kept beside the package, or a location given to compare with.
package enum TreeState: Sendable, Hashable {
  /// The tree `docpkg serve` was given (the package as it is on disk, the archive, or the version).
  case served
  /// Version `id` of the package.
  case version(Int)
  /// The location given `index`-th to compare with (`docpkg serve PATH --compare OTHER`).
  case compared(Int)

  /// `current`, a version's number or `compared-N`, as the page writes it; `nil` for anything else.
  package init?(_ text: String) {
    if text == "current" {
      self = .served
    } else if let id = Int(text), id >= 0 {
      self = .version(id)
    } else if text.hasPrefix("compared-"), let index = Int(text.dropFirst("compared-".count)), index >= 0 {
      self = .compared(index)
    } else {
      return nil
    }
  }
}

extension TreeState: CustomStringConvertible {
  /// The state as the page writes it.
  package var description: String {
    switch self {
    case .served: return "current"
    case .version(let id): return String(id)
    case .compared(let index): return "compared-\(index)"
    }
  }
}

extension ServedLocation {
  /// Opens the tree lazily, as ``open()`` does, and refuses an archive when `unpack` would refuse an entry of it:
  /// the tree read in place judges names and kinds as it is built, and a symbolic link's target, which only
  /// extraction checks, is judged here by ``/DocumentArchive/ArchiveListing``.
  /// - Throws: What opening it throws (``/DocumentPackage/PackageError`` naming the path), or the first entry
  ///   `unpack` would refuse.
  func openChecked() throws -> PackageNode {
    let root = try open()
    guard case .archive(let path) = self, ArchivePackage.mayHoldLinks(root) else { return root }
    var hasLinks = false
    try root.walk { node, _, _ in
      hasLinks = hasLinks || node.kind == .symlink
      return !hasLinks
    }
    if hasLinks, let refused = try ArchiveListing.entries(of: path).first(where: { $0.refused != nil }) {
      throw PackageError(
        .unsupported, "refusing unsafe entry", path: refused.path, context: "in '\(path)': \(refused.refused ?? "")")
    }
    return root
  }

  /// The read lock of a package on disk, held for one request; `nil` for an archive or a version (nothing
  /// rewrites them in place).
  func readLock() throws -> PackageReadLock? {
    guard case .package(let path) = self else { return nil }
    return try PackageReadLock(forPackageAt: path, waitLimit: .seconds(5))
  }
}
