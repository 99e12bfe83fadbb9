import SystemPackage

/// The one way back from a swap that must not stand (``Saver``): its failure to become durable or to be
/// kept, or a swap into a directory that is not the package loaded.
extension Saver {
  /// Undoes `swap` (``Swap/undo(parentFD:temporary:)``); the keeper abandons what it began, told the
  /// statuses after the undo; both directories are flushed. The new state, renamed back out to the
  /// temporary name, is then removed, or kept aside where nothing removes it (`.NAME.docpkg-unsaved`)
  /// when it may hold the one copy of something: `keepingBuilt`, or another program wrote into it while
  /// it was in place (since `swapTime`; unknown counts as written).
  /// - Returns: The error the save fails with: `failure`; `keptError` with where the new state is kept;
  ///   or, when the rename could not be undone, one naming where the previous state is (``notRestored(_:_:)``).
  func rollBack(
    _ swap: Swap, parentFD: CInt, swapTime: FileTime?, after failure: Error, keepingBuilt: Bool,
    keptError: (FilePath) -> Error
  ) -> Error {
    let restored = swap.undo(parentFD: parentFD, temporary: names.temporary)
    versions?.abandon(undone: restored ? swap.undoneStatus : nil)
    // An added entry that cannot be taken out again leaves the package new, and nothing to lose.
    guard restored || swap.move == .adding else { return notRestored(failure, parentFD) }
    try? flushDirectory(swap.containerFD, swap.containerPath)
    try? flushDirectory(parentFD, names.parent)
    // No new state at the temporary name: an added entry left in place, or a removed entry put back.
    guard restored && swap.move != .removing else { return failure }
    let written = swapTime.map { WrittenWhileInPlace.found(since: $0, names.temporary, in: parentFD) } ?? true
    guard keepingBuilt || written else {
      discardTemporary(parentFD)
      return failure
    }
    return keptError(keepAside(parentFD, as: "unsaved") ?? names.path(names.temporary))
  }

  /// The swap could not be undone (the package was moved away from its folder, or the rename failed): the
  /// previous state at the temporary name, which a later save or recovery there would remove, is renamed to
  /// `.NAME.docpkg-previous` where nothing removes it, and the error names where it is.
  private func notRestored(_ error: Error, _ parentFD: CInt) -> PackageError {
    // What the failure's own context says (a stranger's "nothing was changed") no longer holds: it is left out.
    var cause = error as? PackageError
    cause?.context = ""
    let failure = cause.map { "\($0)" } ?? "\(error)"
    if let kept = keepAside(parentFD, as: "previous") {
      return PackageError(
        .io, "\(failure); and the previous state could not be put back: it is kept at", path: kept.string,
        context: "(nothing removes it)")
    }
    return PackageError(
      .io, "\(failure); and the previous state could not be put back: it is left at",
      path: names.path(names.temporary).string,
      context: "(move it back by hand before the next save or recovery removes it)")
  }

  /// Renames the tree at the temporary name to a free `.NAME.docpkg-KIND` (`-2`, `-3`, …) beside the
  /// package, where no later save or recovery removes it; where it is then, or nil if it could not be moved.
  private func keepAside(_ parentFD: CInt, as kind: String) -> FilePath? {
    for attempt in 1...100 {
      let kept = RawName(".\(names.package.string).docpkg-\(kind)" + (attempt == 1 ? "" : "-\(attempt)"))
      do {
        try Syscalls.rename(from: parentFD, names.temporary, to: parentFD, kept, flags: Syscalls.renameNoReplace)
      } catch  where error == .fileExists {
        continue
      } catch {
        return nil
      }
      try? flushDirectory(parentFD, names.parent)
      return names.path(kept)
    }
    return nil
  }
}
