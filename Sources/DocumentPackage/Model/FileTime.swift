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

  /// `seconds.nanoseconds`, as `stat` prints it.
  public var description: String {
    let fraction = String(nanoseconds)
    return "\(seconds).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)"
  }
}
