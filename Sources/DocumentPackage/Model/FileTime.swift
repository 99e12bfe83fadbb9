#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file time with the nanosecond precision of the file system (`st_mtim`).
public struct FileTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// Whole seconds since 1970-01-01 00:00:00 UTC.
  public var seconds: Int64
  /// Nanoseconds past `seconds`, in `0..<1_000_000_000`.
  public var nanoseconds: Int32

  /// Creates a time from seconds and nanoseconds since the epoch.
  public init(seconds: Int64, nanoseconds: Int32 = 0) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// Creates a time from a `Date`, rounded down to the nanosecond.
  public init(_ date: Date) {
    let interval = date.timeIntervalSince1970
    let whole = interval.rounded(.down)
    self.init(seconds: Int64(whole), nanoseconds: Int32(((interval - whole) * 1e9).rounded(.down)))
  }

  /// The time as a `Date` (which keeps about a microsecond of precision).
  public var date: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9) }

  public static func < (lhs: FileTime, rhs: FileTime) -> Bool {
    (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
  }

  /// The time as a decimal with nine digits after the point, as `stat -c %.9Y` prints it: -1234567.5 s (whole
  /// seconds -1234568 and 500000000 ns) is `-1234567.500000000`.
  public var description: String {
    let negative = seconds < 0 && nanoseconds > 0
    let whole = negative ? "-\(-(seconds + 1))" : String(seconds)
    let fraction = String(negative ? 1_000_000_000 - nanoseconds : nanoseconds)
    return "\(whole).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)"
  }

  /// Reads ``description``'s form, `[-]SECONDS.NNNNNNNNN`; `nil` if `text` is not one.
  public init?(decimal text: Substring) {
    let negative = text.hasPrefix("-")
    let parts = text.dropFirst(negative ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
      let magnitude = Int64(parts[0]), magnitude >= 0,
      parts[1].count == 9, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let fraction = Int32(parts[1])
    else { return nil }
    if negative, fraction > 0 {
      self.init(seconds: -magnitude - 1, nanoseconds: 1_000_000_000 - fraction)
    } else {
      self.init(seconds: negative ? -magnitude : magnitude, nanoseconds: fraction)
    }
  }
}
