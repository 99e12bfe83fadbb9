import SystemPackage

// A document's saves keep the previous state in O(changed) (`PackageFile.defersVersionCopies`:
// the replaced subtree moves into the version store as a pending version) and the document
// settles the pending version itself after each save, in this process, on the `PendingSettler`'s
// queue: never on the cooperative pool, never on the document's queue, so the save returns as soon
// as the package is saved and the next edit does not wait for the copies. An app has nothing to
// remember; `close()` waits for the settles it queued. Reading the versions settles first anyway.
extension Document {
  /// Opens the package at ``path`` for editing the way the document's saves want it: its
  /// ``versionPolicy``, and version copies deferred (see the comment above).
  func openPackageFile(options: PackageFile.Options = []) throws -> PackageFile {
    let file = try PackageFile(at: path, options: options)
    file.versionPolicy = policy
    file.defersVersionCopies = true
    file.saveOwner = ObjectIdentifier(self)
    return file
  }

  /// After a save: settles the versions it left pending, off the document's queue.
  func settleSavedVersions() {
    guard let package, package.defersVersionCopies else { return }
    PendingSettler.shared.settleInBackground(packageAt: package.path)
  }
}
