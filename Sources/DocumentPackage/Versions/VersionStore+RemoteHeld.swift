import SystemPackage

/// A version that keeps some of its files on a remote (``PackageVersion/remote``), as DocumentSync sees it: the
/// remote state that holds them, and the files still to fetch.
package struct RemoteHeldVersion: Sendable, Hashable {
  /// The version's id.
  package var id: Int
  /// The remote's name.
  package var remote: String
  /// The root tree of the remote's state that holds the files.
  package var remoteTree: String
  /// The files the store does not hold yet, by SHA-256, with their sizes.
  package var unfetched: [String: Int64]
}

extension VersionStore {
  /// The versions of the package at `packagePath` that keep files on a remote, oldest first, with the files still
  /// to fetch (`unfetched` is filled only with `listingFiles`: it reads the version's tree objects).
  /// - Throws: ``PackageError`` if the store or a version's tree cannot be read.
  package static func remoteHeldVersions(ofPackageAt packagePath: FilePath, listingFiles: Bool) throws
    -> [RemoteHeldVersion]
  {
    let store = try store(ofPackageAt: packagePath, lockHeld: false)
    guard store.exists else { return [] }
    return try store.records().compactMap { record in
      guard let remote = record.version.remote, let remoteTree = record.remoteTree else { return nil }
      return RemoteHeldVersion(
        id: record.version.id, remote: remote, remoteTree: remoteTree,
        unfetched: listingFiles ? try store.unfetchedFiles(of: record.version.id) : [:])
    }
  }

  /// The version `id` of the package at `packagePath` if it keeps files on a remote, with the files still to
  /// fetch (empty once all were fetched); nil for a version whose files the store holds.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, or if its tree cannot be read.
  package static func remoteHeldVersion(_ id: Int, ofPackageAt packagePath: FilePath) throws -> RemoteHeldVersion? {
    let store = try VersionStore(forPackageAt: packagePath)
    let record = try store.record(id)
    guard let remote = record.version.remote, let remoteTree = record.remoteTree else { return nil }
    return RemoteHeldVersion(
      id: id, remote: remote, remoteTree: remoteTree, unfetched: try store.unfetchedFiles(of: id))
  }

  /// Makes version `id` of the package at `packagePath` a version like any other once the store holds all its
  /// files (after they were fetched): its record no longer names the remote, so `versions list` stops saying its
  /// files are there and the next pull lets go of the remote state it pinned. Nothing for a version still missing
  /// files, or one that names no remote.
  /// - Throws: ``PackageError`` with code `noSuchEntry` for an unknown version, or if its record cannot be read or
  ///   written.
  package static func forgetRemoteOnceFetched(_ id: Int, ofPackageAt packagePath: FilePath) throws {
    let store = try VersionStore(forPackageAt: packagePath)
    try store.withStoreLock {
      var record = try store.record(id)
      guard record.version.remote != nil, try store.unfetchedFiles(of: id).isEmpty else { return }
      record.version.remote = nil
      record.remoteTree = nil
      try store.write(record)
    }
  }

  /// The blobs version `id` names that the store does not hold, with their sizes.
  private func unfetchedFiles(of id: Int) throws -> [String: Int64] {
    var missing: [String: Int64] = [:]
    try tree(of: id).walk { node, _, _ in
      if node.kind == .file, case .source(let blob as VersionBlob) = node.fileBody,
        missing[blob.hash] == nil, (try? Syscalls.entryExists(blob.path)) == false
      {
        missing[blob.hash] = blob.size
      }
      return true
    }
    return missing
  }

  /// Takes fetched files into the store of the package at `packagePath` as its own blobs (copies or clones of
  /// `files`, each checked against the SHA-256 it is given for), made durable, under the store's lock. The files
  /// themselves are left where they are.
  /// - Throws: ``PackageError`` with code `corrupt` naming a file whose bytes do not match its hash (nothing of it
  ///   is kept), `io`.
  package static func takeFetchedBlobs(ofPackageAt packagePath: FilePath, _ files: [(hash: String, path: FilePath)])
    throws
  {
    let store = try VersionStore(forPackageAt: packagePath)
    try store.prepareDirectories()
    try store.withStoreLock {
      try store.prepare()
      var writer = ObjectWriter(store: store, cache: HashCache(path: store.hashesPath))
      for (hash, path) in files {
        guard try !writer.staging.has(hash) else { continue }
        let copied = try writer.staging.copy(path)
        guard copied == hash else {
          throw PackageError(
            .corrupt, "a fetched file does not match its SHA-256:", path: path.string,
            context: "expected \(hash), found \(copied)")
        }
        try writer.commitIfMany()
      }
      try writer.finish()
    }
  }
}
