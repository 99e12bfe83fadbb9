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
    let decimal = signAndDigits
    let whole = decimal.negative ? "-\(decimal.seconds)" : String(decimal.seconds)
    let fraction = String(decimal.nanoseconds)
    return "\(whole).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)"
  }

  /// The time written as a decimal is: its sign, then its whole seconds and nanoseconds as digits (-1234567.5 s,
  /// whole seconds -1234568 and 500000000 ns, is `-`, 1234567 and 500000000).
  package var signAndDigits: (negative: Bool, seconds: Int64, nanoseconds: Int32) {
    guard seconds < 0 else { return (false, seconds, nanoseconds) }
    return nanoseconds > 0 ? (true, -(seconds + 1), 1_000_000_000 - nanoseconds) : (true, -seconds, 0)
  }

  /// The time a decimal's sign and digits give (see ``signAndDigits``): `negative`, `seconds` whole seconds
  /// (not negative) and `nanoseconds` (in `0..<1_000_000_000`) after them.
  package init(negative: Bool, seconds: Int64, nanoseconds: Int32) {
    guard negative else {
      self.init(seconds: seconds, nanoseconds: nanoseconds)
      return
    }
    self.init(
      seconds: nanoseconds > 0 ? -seconds - 1 : -seconds, nanoseconds: nanoseconds > 0 ? 1_000_000_000 - nanoseconds : 0
    )
  }

  /// Reads ``description``'s form, `[-]SECONDS.NNNNNNNNN`; `nil` if `text` is not one.
  public init?(decimal text: Substring) {
    let negative = text.hasPrefix("-")
    let parts = text.dropFirst(negative ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
      let magnitude = Int64(parts[0]), magnitude >= 0,
      parts[1].count == 9, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let fraction = Int32(parts[1])
    else { return nil }
    self.init(negative: negative, seconds: magnitude, nanoseconds: fraction)
  }
}
