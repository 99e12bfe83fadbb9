import DocumentPackage
import SystemPackage

// A version that keeps files on a remote (`PackageVersion.remote`: the state a pull replaced) is read from the
// version store like any other once its files were fetched: downloaded by their keys, checked against their
// SHA-256, and taken into the store as its own blobs. They stay there as long as the version does.

extension PackageSync {
  /// Downloads the files version `id` keeps on this remote into the package's version store, so that the version
  /// can be read and restored without the remote. Files fetched before are not downloaded again; a version whose
  /// files the store holds costs nothing.
  /// - Parameters:
  ///   - id: The version (see `VersionStore.versions()`; `PackageVersion.remote` names its remote).
  ///   - progress: Called as bytes arrive.
  /// - Returns: How many files were downloaded.
  /// - Throws: `PackageError` with code `noSuchEntry` for an unknown version; ``SyncError`` with code `remote` when
  ///   the version keeps its files on another remote or the remote no longer has one of them (deleted on the
  ///   server), `corrupt` for a download that does not match its SHA-256; the client's errors.
  @discardableResult
  public func fetchVersion(_ id: Int, progress: SyncProgress.Handler? = nil) async throws -> Int {
    try await withinDeadline("remote fetch") { try await self.fetchVersionNow(id, progress: progress) }
  }

  /// ``fetchVersion(_:progress:)``'s work, without its deadline.
  func fetchVersionNow(_ id: Int, progress: SyncProgress.Handler?) async throws -> Int {
    let packagePath = folder.packagePath
    guard let held = try await BlockingIO.run({ try VersionStore.remoteHeldVersion(id, ofPackageAt: packagePath) })
    else { return 0 }
    guard held.remote == remote.name else {
      throw SyncError(
        .remote, "version \(id) keeps its files on remote '\(held.remote)', not on this one:", key: remote.name)
    }
    guard !held.unfetched.isEmpty else {
      try await BlockingIO.run { try VersionStore.forgetRemoteOnceFetched(id, ofPackageAt: packagePath) }
      return 0
    }
    let hashes = held.unfetched.keys.sorted()
    let fetching = folder.path.appending("fetching")
    try await fetchBlobs(hashes, sizes: held.unfetched, into: fetching, progress: progress) { key in
      SyncError(.remote, "version \(id) keeps a file the remote no longer has (deleted on the server):", key: key)
    }
    try await BlockingIO.run {
      try VersionStore.takeFetchedBlobs(
        ofPackageAt: packagePath, hashes.map { (hash: $0, path: fetching.appending($0)) })
      try VersionStore.forgetRemoteOnceFetched(id, ofPackageAt: packagePath)
      try LocalFiles.remove(fetching)
    }
    return hashes.count
  }
}

extension PackageSync {
  /// Downloads the files version `id` of the package at `packagePath` keeps on a remote into its version store,
  /// with a sync of the remote the version names that `makeSync` makes: the one path of `docpkg remote fetch`
  /// (whose sync may ask for a passphrase at the terminal) and of `docpkg serve` (whose sync never does: it
  /// takes the passphrase from the environment, or fails in one line). Nothing is asked of a remote when the
  /// version keeps no file there, or the store holds them all already.
  /// - Parameters:
  ///   - id: The version.
  ///   - packagePath: The package.
  ///   - makeSync: Makes the sync of the package with the named remote (called at most once).
  ///   - progress: Called as bytes arrive.
  /// - Returns: How many files were downloaded.
  /// - Throws: As ``fetchVersion(_:progress:)``, and what `makeSync` throws.
  package static func fetchVersion(
    _ id: Int, ofPackageAt packagePath: FilePath, progress: SyncProgress.Handler? = nil,
    sync makeSync: @escaping @Sendable (_ remote: String) throws -> PackageSync
  ) async throws -> Int {
    guard let held = try await BlockingIO.run({ try VersionStore.remoteHeldVersion(id, ofPackageAt: packagePath) })
    else { return 0 }
    guard !held.unfetched.isEmpty else {
      try await BlockingIO.run { try VersionStore.forgetRemoteOnceFetched(id, ofPackageAt: packagePath) }
      return 0
    }
    // Off the cooperative pool: making the sync may read a passphrase file, or the terminal.
    let sync = try await BlockingIO.run { try makeSync(held.remote) }
    return try await sync.fetchVersion(id, progress: progress)
  }
}
