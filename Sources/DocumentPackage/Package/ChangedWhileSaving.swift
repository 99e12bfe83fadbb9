import SystemPackage

/// What an in-place save's last check before its commit point found (``PackageFile/saveLocked(_:store:holding:guarding:)``):
/// another program changed what the save rebuilds while it built the new state (one that does not take
/// the package's lock: a shell, an editor). The save failed, the package untouched; a plain save
/// reports a conflict (``error(_:)``), a merging save merges again (``PackageFile/saveMerging()``).
struct ChangedWhileSaving: Error {
  let changes: [OutsideEntryChange]

  /// The conflict a plain save reports.
  func error(_ package: FilePath) -> PackageError {
    let shown = changes.prefix(3).map(\.description).joined(separator: ", ")
    let more = changes.count > 3 ? ", and \(changes.count - 3) more" : ""
    return PackageError(
      .conflict, "package changed on disk while it was saved, not overwriting:", path: package.string,
      context: "(\(shown)\(more))")
  }
}
