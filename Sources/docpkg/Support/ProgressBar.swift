import DocumentArchive
import DocumentPackage

/// A one-line progress bar on standard error, drawn only on a terminal, at most ten times a
/// second, and only once the work has taken longer than a moment.
final class ProgressBar {
  private let label: String
  private let enabled: Bool
  private let start = ProgressBar.now()
  private var lastDraw = 0.0
  private var drawn = false

  /// - Parameter quiet: `--quiet`: never draw.
  init(_ label: String, quiet: Bool) {
    self.label = label
    enabled = !quiet && Syscalls.isTerminal(2)
  }

  func update(_ progress: ArchiveProgress) {
    guard enabled else { return }
    let now = Self.now()
    guard now - start > 0.5, now - lastDraw > 0.1 else { return }
    lastDraw = now
    drawn = true
    let fraction: Double =
      progress.bytesTotal > 0
      ? Double(progress.bytesDone) / Double(progress.bytesTotal)
      : progress.entriesTotal > 0 ? Double(progress.entriesDone) / Double(progress.entriesTotal) : 0
    let width = 30
    let filled = max(0, min(width, Int(fraction * Double(width))))
    var line =
      "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
    if progress.entriesTotal > 0 || progress.bytesTotal > 0 { line += " \(Int(fraction * 100))%" }
    line += " \(progress.entriesDone) entries, \(progress.bytesDone >> 20) MiB"
    StandardError.write(line + "\u{1B}[K")
  }

  /// Clears the bar, if it was drawn.
  func finish() {
    if drawn { StandardError.write("\r\u{1B}[K") }
  }

  private static func now() -> Double {
    let elapsed = ContinuousClock.now - origin
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  /// A fixed instant that `now()` counts from.
  private static let origin = ContinuousClock.now
}
