import SystemPackage

/// The bounded search for a moved package (step 2 of ``PackageReference/resolve(options:)``):
/// breadth-first from the old parent folder (or its nearest existing ancestor), then each
/// ancestor's subtree in turn, on the reference's device only, listing at most `maximumFolders`
/// folders.
///
/// Not entered: folders on another device (mount points), symbolic links, names of the form
/// `.NAME.docpkg-*` (version stores, lock files, save leftovers: a version store holds hard links to
/// the package's files), and other packages (folders with an identity: a package holds no package).
struct ReferenceSearch {
  let reference: PackageReference
  let maximumFolders: Int
  /// How many folders were listed.
  private(set) var foldersListed = 0
  /// Whether the budget ran out before every folder up to the file system's root was searched.
  private(set) var budgetExhausted = false
  /// Where the search started (the old parent, or its nearest existing ancestor).
  private(set) var start: FilePath?
  /// The highest folder whose whole subtree was searched.
  private(set) var searchedUpTo: FilePath?

  init(reference: PackageReference, maximumFolders: Int) {
    self.reference = reference
    self.maximumFolders = maximumFolders
  }

  /// The package's path, or nil if the search did not find it.
  mutating func run() -> FilePath? {
    var folder = reference.path.removingLastComponent()
    while !isFolderOnDevice(folder) {
      let parent = folder.removingLastComponent()
      if parent == folder || parent.isEmpty { return nil }
      folder = parent
    }
    start = folder
    var searched: FilePath?
    while true {
      if let found = searchSubtree(of: folder, skipping: searched) { return found }
      if budgetExhausted { return nil }
      searchedUpTo = folder
      let parent = folder.removingLastComponent()
      if parent == folder || parent.isEmpty || !isFolderOnDevice(parent) { return nil }
      searched = folder
      folder = parent
    }
  }

  private func isFolderOnDevice(_ path: FilePath) -> Bool {
    guard let status = try? Syscalls.statusNoFollow(path) else { return false }
    return status.kind == .directory && status.device == reference.device
  }

  /// Breadth-first through `top`'s subtree, leaving out `skipping` (a subtree searched already).
  private mutating func searchSubtree(of top: FilePath, skipping: FilePath?) -> FilePath? {
    // Raw byte paths: building `FilePath`s would cost more than the system calls.
    let skipped = skipping.map { RawName(path: $0) }
    var queue = [RawName(path: top)]
    var next = 0
    while next < queue.count {
      if foldersListed >= maximumFolders {
        budgetExhausted = true
        return nil
      }
      let folder = queue[next]
      next += 1
      foldersListed += 1
      guard let subdirectories = try? Syscalls.subdirectories(at: folder, onDevice: reference.device) else {
        continue
      }
      for (name, status) in subdirectories where !SiblingNames.isSiblingEntry(name.string) {
        let path = folder.appending(name)
        if path == skipped { continue }
        let identity = PackageIdentity.read(at: path)
        if reference.matches(identity, status, requireBound: true) { return path.filePath }
        if identity == nil { queue.append(path) }
      }
    }
    return nil
  }

}

extension PackageReference {
  /// Whether a directory with `identity` and `status` is the referenced package: it carries the
  /// reference's identity (bound to it, if `requireBound`), or, for a reference without identity,
  /// it is the recorded inode.
  func matches(_ identity: PackageIdentity?, _ status: FileStatus, requireBound: Bool) -> Bool {
    guard status.kind == .directory, status.device == device else { return false }
    guard let identifier else { return status.inode == inode }
    guard let identity, identity.identifier == identifier else { return false }
    return !requireBound || identity.isBound(to: status)
  }
}
