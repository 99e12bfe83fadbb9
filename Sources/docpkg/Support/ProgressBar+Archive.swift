import DocPkgCommandLine
import DocumentArchive

extension ProgressBar {
  /// Redraws the bar for a pack's or an unpack's progress, if it is time to.
  func update(_ progress: ArchiveProgress) {
    update(
      Counts(
        entriesDone: progress.entriesDone, entriesTotal: progress.entriesTotal, bytesDone: progress.bytesDone,
        bytesTotal: progress.bytesTotal, fractionDone: progress.fractionDone))
  }
}
