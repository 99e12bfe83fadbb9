import SystemPackage

extension Document {
  /// Runs `attempt` (a read or an edit of the model). When a lazy load in it met a newer saved
  /// state than the one the model was loaded from (see ``PackageNode/verifyLoad(of:path:)``), reacts
  /// as to an outside change at once, rather than when the monitor reports it, and runs `attempt`
  /// again if the model was replaced and `attempt` had changed nothing: at most three runs in all. A
  /// load that found nothing because the package moved is run again alike, at the package's new path
  /// (`Document+MovedPackage`).
  /// - Throws: What `attempt` throws (the load's `changedOnDisk` when it is not run again).
  func meetingOutsideSaves<Result>(_ attempt: () throws -> Result) throws -> Result {
    var runs = 1
    while true {
      let location = editor.root.origin?.location
      location?.metNewerState = false
      let changesBefore = editor.changesRecorded
      do { return try attempt() } catch {
        // The package moved since the document last looked (unwatched, or before the monitor's report): a
        // load through the old path found nothing. Followed, the attempt runs again there if it changed nothing.
        if (error as? PackageError)?.code == .changedOnDisk, !state.contains(.closed),
          editor.changesRecorded == changesBefore, runs < 3, followMovedRoot()
        {
          runs += 1
          continue
        }
        guard let location, location.metNewerState, !state.contains(.closed) else { throw error }
        location.metNewerState = false
        let changed = editor.changesRecorded != changesBefore
        reactToNewerStateMetByLoad()
        if state.contains(.deleted) { throw deletedError() }  // another package took its place
        let replaced = editor.root.origin?.location !== location
        guard replaced, !changed, runs < 3 else { throw error }
        runs += 1
      }
    }
  }

  /// Takes the outside-change path (``react(to:)``) for the differences between the model and
  /// the disk now, as if the monitor had reported them, named as it names them: a folder whose entries
  /// changed (the root too) by the entries added to it and removed from it, the package replaced only
  /// when its root is another directory (`Document+MergedOutsideChanges`).
  private func reactToNewerStateMetByLoad() {
    let found = outsideChangesOfModel()
    var changes: [PackageMonitor.Change] = []
    if found.contains(where: { $0.path.isEmpty && $0.kind == .replaced }) {
      changes.append(PackageMonitor.Change(.packageReplaced, path.string))
    }
    if !found.isEmpty { changes += outsideChangesOnDisk(found).filter { $0.kind != .rescanned } }
    let event = PackageMonitor.Event(
      changes: changes.isEmpty ? [PackageMonitor.Change(.rescanned, path.string)] : changes,
      isOwnSave: false, packagePath: path.string)
    react(to: event)
  }
}
