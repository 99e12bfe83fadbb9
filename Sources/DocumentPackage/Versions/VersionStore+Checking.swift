import SystemPackage

/// A version that cannot be read back whole: what ``VersionStore/damagedVersions(thorough:)``
/// finds and `docpkg check` reports.
public struct VersionDamage: Sendable, Equatable {
  /// The version's id.
  public let id: Int
  /// What is wrong, one line per damaged tree object or file: the entry's path in the version
  /// and the reason (a missing blob, a blob whose bytes no longer match its SHA-256, an entry
  /// the version could not keep). The entries the version could not keep come first.
  public let problems: [String]
}

extension VersionStore {
  /// Checks every version's tree objects and blobs, and returns the damaged versions (oldest
  /// first; empty when all can be read back whole). Pending versions are settled first; a version
  /// that could not keep some entries (``PackageVersion/unkeptPaths``) is damaged too, and so is
  /// one whose record (settled or pending) is damaged or cannot be read (see ``versionProblems()``;
  /// a pending version that cannot be settled is listed there, not here).
  ///
  /// A version that keeps some files on a remote (``PackageVersion/remote``) is checked for what the store holds:
  /// its tree objects and the files fetched or copied; the others are the remote's.
  ///
  /// A blob is checked once however many versions share it, and so is a tree found whole with every
  /// blob below it: a later version that holds the same tree is not walked below it. Without `thorough`, a blob whose
  /// device, inode, size, modification and change time are those it had when it last matched its
  /// SHA-256 (the store's `verified` cache) is not read again, so a second check reads only new
  /// blobs; `thorough` reads every blob.
  /// - Parameter thorough: Hash every blob, ignoring the cache.
  /// - Throws: ``PackageError`` with code `io` if the store cannot be listed.
  /// - Complexity: O(*n*) small reads for the *n* entries of the versions' distinct trees (a
  ///   version that differs from an earlier one in one file adds the trees on that file's path), plus
  ///   reading each blob not verified before (every blob with `thorough`).
  public func damagedVersions(thorough: Bool = false) throws -> [VersionDamage] {
    var cache = HashCache(path: verifiedPath)
    var results: [String: String?] = [:]
    var damaged: [VersionDamage] = []
    defer { cache.save() }
    settleIfPending()
    let (records, unreadable) = try listing()
    for problem in unreadable where problem.state == .damaged {
      damaged.append(VersionDamage(id: problem.id, problems: [problem.description]))
    }
    // Trees found whole, with every blob below them here and whole: versions share all but the
    // trees on the paths their saves changed, so each later version walks only those.
    var wholeTrees: Set<String> = []
    for record in records {
      var problems = record.version.unkeptPaths.map {
        "\($0): not kept (changed in place or replaced after the save, before the store had its own copy)"
      }
      var walked: [(address: String, path: String)] = []
      var damagedPaths: [String] = []
      do {
        // Listed as the walk goes (a damaged tree object below the root throws when its folder is):
        // a tree skipped as whole is not read at all.
        let root = try treeListedLazily(of: record.version.id)
        try root.walk { node, entry, _ in
          if node.kind == .directory, let address = node.contentAddress {
            if wholeTrees.contains(address) { return false }
            walked.append((address, entry))
            return true
          }
          guard node.kind == .file, case .source(let blob as VersionBlob) = node.fileBody else { return true }
          // A file the version keeps on a remote and that was not fetched: not here, and not damage.
          if record.version.remote != nil, (try? Syscalls.entryExists(blob.path)) == false {
            damagedPaths.append(entry)  // (its trees are not whole here, for a version that keeps all)
            return true
          }
          let problem: String?
          if let known = results[blob.hash] {
            problem = known
          } else {
            problem = Self.problem(with: blob, thorough: thorough, cache: &cache)
            results[blob.hash] = problem
          }
          if let problem {
            problems.append("\(entry): \(problem)")
            damagedPaths.append(entry)
          }
          return true
        }
        wholeTrees.formUnion(Self.wholeTrees(walked, damagedPaths: damagedPaths))
      } catch let error as PackageError {
        problems.append(error.description)
      }
      // A version removed while it was walked (a prune, `versions remove` beside this) took its objects
      // with it: it is gone, not damaged.
      if !problems.isEmpty && recordPresent(record.version.id) {
        damaged.append(VersionDamage(id: record.version.id, problems: problems))
      }
    }
    return damaged.sorted { $0.id < $1.id }
  }

  /// The addresses of the trees `walked` (address and path) with no entry of `damagedPaths` below
  /// them: each path's folders are marked once, so this is O(walked + damaged × depth).
  static func wholeTrees(_ walked: [(address: String, path: String)], damagedPaths: [String]) -> [String] {
    var damagedFolders: Set<Substring> = []
    for path in damagedPaths {
      damagedFolders.insert("")
      var index = path.startIndex
      while let slash = path[index...].firstIndex(of: "/") {
        damagedFolders.insert(path[..<slash])
        index = path.index(after: slash)
      }
    }
    return walked.filter { !damagedFolders.contains(Substring($0.path)) }.map(\.address)
  }

  /// Reads the hash cache (`hashes`) and, if some of its lines were damaged (failed their check),
  /// writes it anew without them; returns how many there were (see ``HashCache``). Their files are
  /// hashed again by the next save that keeps them.
  package func discardDamagedHashCacheLines() -> Int {
    var cache = HashCache(path: hashesPath)
    let damaged = cache.discardedLines
    if damaged > 0 { cache.save() }
    return damaged
  }

  private static func problem(with blob: VersionBlob, thorough: Bool, cache: inout HashCache) -> String? {
    guard let status = try? Syscalls.statusNoFollow(blob.path), status.kind == .file else {
      return "blob \(blob.path.string) is missing"
    }
    guard status.size == blob.size else {
      return "blob \(blob.path.string) has \(status.size) bytes, not \(blob.size)"
    }
    if !thorough, cache.hash(for: status) == blob.hash { return nil }
    do {
      try blob.verify()
    } catch let error as PackageError {
      return error.code == .corrupt ? "blob \(blob.path.string) was changed: its SHA-256 no longer matches" : "\(error)"
    } catch {
      return "\(error)"
    }
    cache.add(status, blob.hash)
    return nil
  }
}
