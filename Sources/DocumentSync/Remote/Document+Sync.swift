import DocumentPackage

// A Document that syncs itself. DocumentPackage knows nothing of sync; this extension joins the two: the document
// saves, the sync pulls and pushes its package, and the document's own monitor shows what a pull brought (a pull's
// save is an outside change to it: reloaded, or merged with unsaved edits, as any other program's save).

extension Document {
  /// Saves the document if it has unsaved changes, then syncs its package with `packageSync` (pull, merge, push,
  /// again until the push lands: ``PackageSync/sync(maximumAttempts:progress:)``). What the pull brought shows in
  /// the document as an outside change (unless it was opened `Document.Options.unwatched`).
  /// - Parameters:
  ///   - packageSync: A sync of this document's package (``PackageSync/init(packageAt:remote:credentials:environment:parallelism:timeouts:)``).
  ///   - maximumAttempts: The most rounds of pull and push.
  /// - Returns: What the sync did.
  /// - Throws: What `save(overwritingOutsideChanges:)` and ``PackageSync/sync(maximumAttempts:progress:)`` throw.
  @discardableResult
  public func sync(
    with packageSync: PackageSync, maximumAttempts: Int = PackageSync.defaultSyncAttempts
  ) async throws -> PackageSync.SyncResult {
    if hasUnsavedChanges { try await save() }
    return try await packageSync.sync(maximumAttempts: maximumAttempts)
  }

  /// Syncs the document's package after each save (the document's, autosaves included, or any other program's)
  /// and whenever another device pushed, until the iterating task is cancelled: ``PackageSync/watch(options:)``
  /// on `packageSync`. Each pull shows in the document as an outside change.
  ///
  /// ```swift
  /// let sync = try PackageSync(packageAt: document.path, remote: "origin", credentials: credentials)
  /// syncTask = Task {
  ///   for try await case .synced(let result) in document.syncAfterSaves(with: sync) where !result.conflicts.isEmpty {
  ///     showConflictBadge()
  ///   }
  /// }
  /// ```
  /// - Parameters:
  ///   - packageSync: A sync of this document's package.
  ///   - options: The poll interval, debounce and attempts of each sync.
  /// - Returns: The watch's events (``PackageSync/WatchEvent``).
  public nonisolated func syncAfterSaves(
    with packageSync: PackageSync, options: PackageSync.WatchOptions = PackageSync.WatchOptions()
  ) -> AsyncThrowingStream<PackageSync.WatchEvent, any Error> {
    packageSync.watch(options: options)
  }
}
