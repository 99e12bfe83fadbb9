import Dispatch
import DocumentArchive
import DocumentPackage
import SystemPackage

/// The trees the page reads, kept on one serial queue of their own: the served tree (the package, archive or
/// version given) and the versions the page compares. A ``PackageNode`` is not thread-safe and its reads block,
/// so every read runs here — never on an event loop, never on Swift's cooperative pool.
///
/// The served tree is read lazily and kept between requests (a directory listed once is not listed again), until
/// the change monitor says the package changed (``invalidate()``: the next request opens it anew) or a read meets
/// a newer save (`changedOnDisk`: the tree is opened anew and the request runs again, once). A package on disk is
/// read under its read lock (``/DocumentPackage/PackageReadLock``), request by request, so one request sees one
/// saved state.
package final class PackageBrowser: @unchecked Sendable {
  /// What is served.
  package let location: ServedLocation
  private let queue = DispatchQueue(label: "PackageServer.PackageBrowser")
  // The state below is touched only on `queue`.
  private var served: PackageNode?
  private var versionTrees: [(id: Int, root: PackageNode)] = []
  /// The totals of every directory of the served tree walked so far, by path (see ``totals(at:)``).
  private var totalsCache: [String: TreeTotals] = [:]

  /// Opens `location` once, so that a path that cannot be served fails before the server starts. An archive is
  /// refused when `unpack` would refuse an entry of it: the tree read in place judges names and kinds as it is
  /// built, and a symbolic link's target, which only extraction checks, is judged here by ``ArchiveListing``.
  /// - Throws: What opening it throws (``/DocumentPackage/PackageError`` naming the path), or the first entry
  ///   `unpack` would refuse.
  package init(_ location: ServedLocation) throws {
    self.location = location
    let root = try location.open()
    if case .archive(let path) = location {
      var hasLinks = false
      try root.walk { node, _, _ in
        hasLinks = hasLinks || node.kind == .symlink
        return !hasLinks
      }
      if hasLinks, let refused = try ArchiveListing.entries(of: path).first(where: { $0.refused != nil }) {
        throw PackageError(
          .unsupported, "refusing unsafe entry", path: refused.path,
          context: "in '\(path)': \(refused.refused ?? "")")
      }
    }
    served = root
  }

  /// Forgets the served tree after a change on disk: the next read opens it again.
  package func invalidate() {
    queue.async {
      self.served = nil
      self.totalsCache = [:]
    }
  }

  /// Runs `work` on the root of `state` (``TreeState``) on the browser's queue.
  /// - Throws: What `work` or opening the tree throws.
  package func read<T: Sendable>(_ state: TreeState = .served, _ work: @escaping @Sendable (PackageNode) throws -> T)
    async throws -> T
  {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try self.readOnQueue(state, work) }) }
    }
  }

  /// Runs `work` on the served tree with the totals of its directories: the first call after a change walks the
  /// whole tree once (every directory listed on all cores first, as `docpkg inspect` does), later ones reuse them,
  /// so the size map drills down without walking again.
  /// - Throws: What reading the tree or `work` throws.
  package func withTotals<T: Sendable>(
    _ work: @escaping @Sendable (PackageNode, [String: TreeTotals]) throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(
          with: Result {
            try self.readOnQueue(.served) { root in
              if self.totalsCache.isEmpty {
                root.listDirectoriesInParallel()
                self.totalsCache = try TreeTotals.directories(under: root)
              }
              return try work(root, self.totalsCache)
            }
          })
      }
    }
  }

  /// Runs `work` on the roots of two states (a comparison) on the browser's queue.
  /// - Throws: What `work` or opening either tree throws.
  package func read<T: Sendable>(
    _ first: TreeState, _ second: TreeState, _ work: @escaping @Sendable (PackageNode, PackageNode) throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(
          with: Result {
            try self.readOnQueue(first == .served ? first : second) { _ in
              try work(self.root(of: first), self.root(of: second))
            }
          })
      }
    }
  }

  /// Runs `work` on the root of `state`, under the package's read lock when `state` is the package on disk; a
  /// read that meets a newer save opens the tree anew and runs `work` again, once.
  private func readOnQueue<T>(_ state: TreeState, _ work: (PackageNode) throws -> T) throws -> T {
    let lock = state == .served ? try location.readLock() : nil
    defer { lock?.unlock() }
    do { return try work(root(of: state)) } catch let error as PackageError where error.code == .changedOnDisk {
      guard state == .served else { throw error }
      served = nil
      totalsCache = [:]
      return try work(root(of: state))
    }
  }

  private func root(of state: TreeState) throws -> PackageNode {
    switch state {
    case .served: return try servedRoot()
    case .version(let id): return try versionRoot(id)
    }
  }

  private func servedRoot() throws -> PackageNode {
    if let served { return served }
    let root = try location.open()
    served = root
    return root
  }

  /// Version `id`'s tree, kept for the next few requests (a comparison reads two trees several times).
  private func versionRoot(_ id: Int) throws -> PackageNode {
    if let kept = versionTrees.first(where: { $0.id == id }) { return kept.root }
    guard let package = location.versionedPackage else {
      throw PackageError(.noSuchEntry, "no versions are kept for", path: location.displayName)
    }
    let root = try VersionStore(forPackageAt: package).tree(of: id)
    versionTrees.insert((id, root), at: 0)
    if versionTrees.count > 4 { versionTrees.removeLast() }
    return root
  }
}

/// A state of the package the page names: the served tree, or a version kept beside the package.
package enum TreeState: Sendable, Equatable {
  /// The tree `docpkg serve` was given (the package as it is on disk, the archive, or the version).
  case served
  /// Version `id` of the package.
  case version(Int)

  /// `current` or a version's number, as the page writes it; `nil` for anything else.
  package init?(_ text: String) {
    if text == "current" {
      self = .served
    } else if let id = Int(text), id >= 0 {
      self = .version(id)
    } else {
      return nil
    }
  }
}

extension ServedLocation {
  /// The read lock of a package on disk, held for one request; `nil` for an archive or a version (nothing
  /// rewrites them in place).
  func readLock() throws -> PackageReadLock? {
    guard case .package(let path) = self else { return nil }
    return try PackageReadLock(forPackageAt: path, waitLimit: .seconds(5))
  }
}
