/// How far a pack or unpack has got, for a progress bar.
///
/// A pack knows its totals from the start (the package's entries and file bytes). An unpack
/// reads the archive as it goes, so ``entriesTotal`` and ``bytesTotal`` stay 0 until the end;
/// its fraction done is ``archiveBytesDone`` out of ``archiveBytesTotal`` (the archive's size),
/// which every format gives without reading the archive twice.
public struct ArchiveProgress: Sendable, Hashable {
  /// Entries done so far.
  public var entriesDone: Int
  /// All entries, when known (0 while unknown).
  public var entriesTotal: Int
  /// File bytes done so far.
  public var bytesDone: Int64
  /// All file bytes, when known (0 while unknown).
  public var bytesTotal: Int64
  /// Bytes of the archive file read so far (an unpack); 0 for a pack.
  public var archiveBytesDone: Int64
  /// The archive file's size (an unpack); 0 for a pack, or when unknown.
  public var archiveBytesTotal: Int64

  /// Creates a progress report.
  /// - Parameters:
  ///   - entriesDone: Entries done so far.
  ///   - entriesTotal: All entries, or 0 if unknown.
  ///   - bytesDone: File bytes done so far.
  ///   - bytesTotal: All file bytes, or 0 if unknown.
  ///   - archiveBytesDone: Bytes of the archive read so far (an unpack).
  ///   - archiveBytesTotal: The archive's size (an unpack), or 0.
  public init(
    entriesDone: Int, entriesTotal: Int, bytesDone: Int64, bytesTotal: Int64, archiveBytesDone: Int64 = 0,
    archiveBytesTotal: Int64 = 0
  ) {
    self.entriesDone = entriesDone
    self.entriesTotal = entriesTotal
    self.bytesDone = bytesDone
    self.bytesTotal = bytesTotal
    self.archiveBytesDone = archiveBytesDone
    self.archiveBytesTotal = archiveBytesTotal
  }

  /// The part done, from 0 to 1: by file bytes when their total is known, else by archive bytes
  /// read, else by entries; `nil` when no total is known (an archive read from a pipe).
  public var fractionDone: Double? {
    if bytesTotal > 0 { return min(1, Double(bytesDone) / Double(bytesTotal)) }
    if archiveBytesTotal > 0 { return min(1, Double(archiveBytesDone) / Double(archiveBytesTotal)) }
    if entriesTotal > 0 { return min(1, Double(entriesDone) / Double(entriesTotal)) }
    return nil
  }
}

/// Spaces progress reports by time rather than by work: at most one every ``interval``, however
/// small or big the entries are (a pack to tar.xz that reported every 64 entries first drew its
/// bar after 3.5 s). Reading the monotonic clock costs tens of nanoseconds.
struct ProgressThrottle {
  /// The time between two reports.
  static let interval: Duration = .milliseconds(100)
  private var next = ContinuousClock.now

  /// Whether a report is due now; if so, the next is due one interval later.
  mutating func isDue() -> Bool {
    let now = ContinuousClock.now
    guard now >= next else { return false }
    next = now + Self.interval
    return true
  }
}

/// Counts a pack's progress and hands it to the caller's callback when due (``ProgressThrottle``):
/// a class, so that the closures streaming each file's chunks can count into it.
final class ProgressReporter {
  private(set) var done: ArchiveProgress
  private var throttle = ProgressThrottle()
  private let callback: ((ArchiveProgress) -> Void)?

  init(entriesTotal: Int, bytesTotal: Int64, callback: ((ArchiveProgress) -> Void)?) {
    done = ArchiveProgress(entriesDone: 0, entriesTotal: entriesTotal, bytesDone: 0, bytesTotal: bytesTotal)
    self.callback = callback
  }

  /// Counts `entries` and `bytes` more, and reports if due.
  func add(entries: Int = 0, bytes: Int64 = 0) {
    done.entriesDone += entries
    done.bytesDone += bytes
    if callback != nil, throttle.isDue() { callback?(done) }
  }

  /// Reports the final state, whenever the last report was.
  func finish() { callback?(done) }
}
