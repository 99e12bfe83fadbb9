#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The local time zone as the C library knows it (`TZ`, else `/etc/localtime`), without ICU:
/// FoundationEssentials alone knows only UTC.
package enum LocalTime {
  /// The local time zone's offset from UTC, in seconds, at `secondsSince1970` (daylight saving
  /// time included).
  package static func offset(atSecondsSince1970 seconds: Int64) -> Int64 {
    tzset()
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return 0 }
    return Int64(parts.tm_gmtoff)
  }
}
