#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lines of a pending record (``PendingVersion``) and of a capture marker (``SaveIntent``): each
/// ends with a check of the rest of it *and of its number* (1 for the line after the header), and
/// the lines a writer writes at once end with `count N`, N the number of lines before it.
///
/// A check of each line alone (``HashCache/checked(_:)``) catches a damaged or edited line, but not
/// a whole line removed: the lines left still match their checks. With its number in each check, a
/// line removed makes every line after it fail its check at its new place (and match one a place
/// or more further on, which says how many went missing); `count` catches the last lines removed,
/// itself included. A line moved or repeated fails too. Written in one `write` per group of lines
/// (a record whole, a marker in the appends ``SaveIntent`` describes), so a kill leaves each group
/// whole or absent, never cut inside.
enum NumberedLines {
  /// `text` as line `number`, followed by its check.
  static func line(_ text: String, number: Int) -> String {
    "\(text) \(HashCache.checkDigits(check(text[...], number: number)))"
  }

  /// `texts` as the lines numbered from `first` on, then `count N` (N: the lines before it, `first - 1`
  /// plus these), each followed by its newline.
  static func counted(_ texts: [String], from first: Int = 1) -> String {
    let lines = texts.enumerated().map { line($0.element, number: first + $0.offset) }
    let count = first - 1 + texts.count
    return (lines + [line("count \(count)", number: count + 1)]).map { $0 + "\n" }.joined()
  }

  /// What reading numbered lines gave.
  enum Reading: Equatable {
    /// The lines without their checks (the `count` lines left out), and how many `count` lines
    /// there were.
    case lines([Substring], counts: Int)
    /// Why they are not believed, in words.
    case damaged(String)
  }

  /// Verifies `lines` (those after the header): each matches its check at its number, and each
  /// `count N` line says how many came before it. With `countedLast`, the last line must be a
  /// `count` line (a record is written whole, in one `write`).
  static func read(_ lines: ArraySlice<Substring>, countedLast: Bool) -> Reading {
    var verified: [Substring] = []
    var counts = 0
    var lastWasCount = false
    for (offset, line) in lines.enumerated() {
      let number = offset + 1
      guard let (text, found) = HashCache.splitCheck(line) else {
        return .damaged("line \(number) of it is malformed (it has no check)")
      }
      guard check(text, number: number) == found else {
        // The line matches its check a place or more further on: that many lines before it were removed.
        if let further = (number + 1...number + 64).first(where: { check(text, number: $0) == found }) {
          let missing = further - number
          return .damaged(
            missing == 1
              ? "line \(number) of it is missing (a whole line was removed)"
              : "lines \(number)–\(further - 1) of it are missing (whole lines were removed)")
        }
        return .damaged("line \(number) of it does not match its check (damaged, edited or moved)")
      }
      if text.hasPrefix("count ") {
        guard Int(text.dropFirst("count ".count)) == number - 1 else {
          return .damaged("its line count (line \(number)) does not match its lines")
        }
        counts += 1
        lastWasCount = true
      } else {
        verified.append(text)
        lastWasCount = false
      }
    }
    if countedLast && !lastWasCount {
      return .damaged("its last line (the line count) is missing: whole lines at its end were removed")
    }
    return .lines(verified, counts: counts)
  }

  private static func check(_ text: Substring, number: Int) -> UInt64 {
    Array("\(number) \(text)".utf8).withUnsafeBufferPointer { HashCache.lineCheck($0) }
  }
}
