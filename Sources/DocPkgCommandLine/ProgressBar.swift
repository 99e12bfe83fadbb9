import DocumentPackage

/// A one-line progress bar on standard error, drawn only on a terminal, at most ten times a
/// second, and only once the work has taken longer than a moment.
///
/// Where the total is known (every pack; an unpack of an archive file, measured by the archive's
/// bytes read) it shows the bar filling, the percent, the bytes and the time left:
/// `unpacking [#########        ]  31%  2816 entries, 85 MiB  0:04 left`. Reading a stream it
/// shows what it has done so far.
package final class ProgressBar {
  /// What the bar shows: the work done, and its totals where known.
  package struct Counts {
    package var entriesDone: Int
    /// 0 while unknown.
    package var entriesTotal: Int
    package var bytesDone: Int64
    /// 0 while unknown.
    package var bytesTotal: Int64
    /// The part done, from 0 to 1; `nil` when no total is known.
    package var fractionDone: Double?

    /// Counts whose part done is measured by bytes when their total is known, else by entries, unless given.
    package init(
      entriesDone: Int, entriesTotal: Int, bytesDone: Int64, bytesTotal: Int64, fractionDone: Double? = nil
    ) {
      self.entriesDone = entriesDone
      self.entriesTotal = entriesTotal
      self.bytesDone = bytesDone
      self.bytesTotal = bytesTotal
      self.fractionDone =
        fractionDone
        ?? (bytesTotal > 0
          ? min(1, Double(bytesDone) / Double(bytesTotal))
          : entriesTotal > 0 ? min(1, Double(entriesDone) / Double(entriesTotal)) : nil)
    }
  }

  private let label: String
  private let enabled: Bool
  private let start = ProgressBar.now()
  private var lastDraw = 0.0
  private var drawn = false

  /// - Parameter quiet: `--quiet`: never draw.
  package init(_ label: String, quiet: Bool) {
    self.label = label
    enabled = !quiet && Syscalls.isTerminal(2)
  }

  /// Redraws the bar for `progress`, if it is time to.
  package func update(_ progress: Counts) {
    guard enabled else { return }
    let now = Self.now()
    guard now - start > 0.5, now - lastDraw > 0.1 else { return }
    lastDraw = now
    drawn = true
    StandardError.write("\r" + Self.line(label, progress, elapsed: now - start) + "\u{1B}[K")
  }

  /// The bar's text for `progress` after `elapsed` seconds.
  package static func line(_ label: String, _ progress: Counts, elapsed: Double) -> String {
    let width = 30
    var line = label
    let fraction = progress.fractionDone
    if let fraction {
      let filled = max(0, min(width, Int(fraction * Double(width))))
      line +=
        " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
        + leftPadded(String(Int(fraction * 100)), to: 3) + "%"
    }
    let entries =
      progress.entriesTotal > 0 ? "\(progress.entriesDone)/\(progress.entriesTotal)" : "\(progress.entriesDone)"
    line += "  \(entries) entries, \(mebibytes(progress.bytesDone))"
    if progress.bytesTotal > 0 { line += " of \(mebibytes(progress.bytesTotal))" }
    if let fraction, fraction > 0.01, fraction < 1 {
      line += "  " + duration(elapsed * (1 - fraction) / fraction) + " left"
    }
    return line
  }

  private static func leftPadded(_ text: String, to width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
  }

  private static func mebibytes(_ bytes: Int64) -> String { "\(bytes >> 20) MiB" }

  /// `m:ss`, or `h:mm:ss` from an hour.
  private static func duration(_ seconds: Double) -> String {
    let total = Int(seconds.rounded(.up))
    let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
    let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
  }

  /// Clears the bar, if it was drawn.
  package func finish() {
    if drawn { StandardError.write("\r\u{1B}[K") }
  }

  private static func now() -> Double {
    let elapsed = ContinuousClock.now - origin
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  /// A fixed instant that `now()` counts from.
  private static let origin = ContinuousClock.now
}
