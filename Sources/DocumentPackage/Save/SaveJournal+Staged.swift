import SystemPackage

/// What each staged file of a journal holds, in its plan: recovery applies a plan only with the staged files it was
/// made with. A staged file edited, emptied or replaced, or a plan from another journal copied in (its digest
/// whole), was applied with `check` ok, the package then neither old nor new (outsider attack 6 on issue 35, second
/// round, H2).
///
/// Recovery checks each staged file still in the journal against its digest before the plan's first step. One no
/// longer there was renamed into place by the kill's save (or removed by hand): the file at its path is then checked,
/// unless another program changed it since the plan (its modification time is later: an edit, which stays).
extension SaveJournal {
  /// A staged file's size and the SHA-256 of its bytes (of its target, for a symbolic link).
  struct StagedDigest: Equatable {
    var size: UInt64
    var sha256: [UInt8]
  }

  /// The digest of the entry `name` in the directory open as `directoryFD`, at `path` (for messages).
  /// - Throws: ``PackageError`` naming `path` when it cannot be read.
  static func stagedDigest(of name: RawName, in directoryFD: CInt, path: FilePath) throws -> StagedDigest {
    do {
      if try Syscalls.status(in: directoryFD, name).kind == .symlink {
        let target = try Syscalls.readLinkBytes(in: directoryFD, name)
        return StagedDigest(size: UInt64(target.count), sha256: Array(SHA256.hash(data: target)))
      }
      let fd = try Syscalls.openForReading(in: directoryFD, name)
      defer { Syscalls.closeFile(fd) }
      var hash = SHA256()
      var size: UInt64 = 0
      try Syscalls.readChunks(fd, path: path) { chunk in
        hash.update(bufferPointer: chunk)
        size += UInt64(chunk.count)
      }
      return StagedDigest(size: size, sha256: Array(hash.finalize()))
    } catch let error as Errno {
      throw PackageError.io(error, "cannot read", path: path)
    }
  }

  /// Checks, before a committed plan is applied again in recovery, that each staged file is the one the plan was made
  /// with (see the extension's discussion).
  /// - Parameter planTime: When the plan was committed, where the package is the directory the save began in (else
  ///   the files at the paths are not looked at).
  /// - Throws: ``PackageError`` with code `corrupt` naming the journal's file or the package's; nothing is applied.
  func checkStaged(journalFD: CInt, packagePath: FilePath, root: () throws(Errno) -> CInt, planTime: FileTime?) throws {
    let journalPath = names.path(names.journal)
    func damaged(_ path: FilePath) -> PackageError {
      PackageError(
        .corrupt, "cannot recover interrupted save: a file of its journal is damaged:", path: path.string,
        context: "(nothing was applied; the package may be part old, part new; its previous state is in its versions)")
    }
    for case .place(let number, let path) in steps {
      guard let expected = staged[number] else { continue }
      let name = Self.stagedName(number)
      let stagedPath = journalPath.appending(name.string)
      if (try? Syscalls.exists(in: journalFD, name)) == true {
        guard (try? Self.stagedDigest(of: name, in: journalFD, path: stagedPath)) == expected else {
          throw damaged(stagedPath)
        }
        continue
      }
      // Placed already, by the save or an earlier recovery: the file there is the staged one, unless edited since.
      guard let planTime, let last = path.last,
        let containerFD = try? Self.openDirectory(path.dropLast()[...], below: root())
      else { continue }
      defer { Syscalls.closeFile(containerFD) }
      guard let status = try? Syscalls.status(in: containerFD, last), status.modificationTime <= planTime else {
        continue
      }
      let placed = path.reduce(packagePath) { $0.appending($1.string) }
      if (try? Self.stagedDigest(of: last, in: containerFD, path: placed)) != expected { throw damaged(placed) }
    }
  }
}
