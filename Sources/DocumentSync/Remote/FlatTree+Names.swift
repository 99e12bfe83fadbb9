import DocumentPackage
import SystemPackage

extension FlatTree {
  /// Refuses a tree that the file system of the package of `folder` cannot hold.
  ///
  /// Refused: a name the file system refuses, or two sibling names it takes for one (`a.txt` and `A.txt` on
  /// exFAT: see `SiblingNameCheck`). Called before a pull or a clone writes anything. The file system is
  /// probed (once per process) in the sync folder's `tmp/`, beside the package: a probe killed half-way
  /// leaves an empty file there, which the next pull removes with the rest of `tmp/`.
  /// - Parameters:
  ///   - folder: The sync folder of the package the tree is to be written to.
  ///   - action: What is refused, for the message: `cannot pull`, `cannot clone`.
  /// - Throws: `PackageError` (code `invalidName`) naming the entries and why.
  /// - Complexity: Nothing on a file system that holds every name (after one probe per process);
  ///   else O(*n* log *n*) for *n* entries.
  func checkNamesFit(in folder: SyncFolder, _ action: String) throws {
    let packagePath = folder.packagePath
    let parent = packagePath.removingLastComponent().isEmpty ? FilePath(".") : packagePath.removingLastComponent()
    // Where nothing can be made beside the package, nothing will be written there either.
    var check =
      folder.withTemporaryFolder { fd in SiblingNameCheck(forDirectory: fd, at: parent) }
      ?? SiblingNameCheck(naming: .posix, fileSystem: parent)
    guard check.isNeeded else { return }
    // In byte order, a directory's entries come together (each path after its parent's).
    for path in keys.sorted(by: { $0.utf8Precedes($1) }) {
      if let clash = check.add(path.split(separator: "/").map(String.init)) {
        throw clash.error(action, "into '\(packagePath.string)'")
      }
    }
  }
}

extension SyncFolder {
  /// Calls `body` with the sync folder's `tmp/`, open, made for the call (and the sync folder with it) if
  /// it is not there, and removed again after (if empty); `nil` when it cannot be made or opened.
  fileprivate func withTemporaryFolder<T>(_ body: (CInt) -> T) -> T? {
    let parent = packagePath.removingLastComponent().isEmpty ? FilePath(".") : packagePath.removingLastComponent()
    guard let parentFD = try? Syscalls.openDirectory(parent) else { return nil }
    defer { Syscalls.closeFile(parentFD) }
    let folderName = RawName(path.lastComponent!)
    let temporaryName = RawName(temporary.lastComponent!)
    let madeFolder = (try? Syscalls.makeDirectory(in: parentFD, folderName, mode: 0o755)) != nil
    guard let folderFD = try? Syscalls.openDirectory(in: parentFD, folderName) else { return nil }
    defer {
      Syscalls.closeFile(folderFD)
      if madeFolder { try? Syscalls.unlink(in: parentFD, folderName, directory: true) }
    }
    let madeTemporary = (try? Syscalls.makeDirectory(in: folderFD, temporaryName, mode: 0o755)) != nil
    guard let temporaryFD = try? Syscalls.openDirectory(in: folderFD, temporaryName) else { return nil }
    defer {
      Syscalls.closeFile(temporaryFD)
      if madeTemporary { try? Syscalls.unlink(in: folderFD, temporaryName, directory: true) }
    }
    return body(temporaryFD)
  }
}
