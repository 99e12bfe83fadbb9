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

  /// For a program's start, never a library's code (a library must not change its process): when `TZ` is
  /// unset, sets it to `:/etc/localtime`, the file the C library reads then, so the zone is the same.
  ///
  /// Why: with `TZ` unset, glibc `stat`s `/etc/localtime` on every `mktime` and `localtime` to see
  /// whether it changed, and libarchive's zip reader converts each entry's MS-DOS time with them (twice
  /// per entry: 200,000 `stat`s for a 100,000-entry zip). With `TZ` set to the same file, glibc reads
  /// it once. The only difference: a change of `/etc/localtime` while the program runs goes unseen
  /// (child processes inherit the variable, with the same meaning). `docpkg` calls it first thing.
  package static func readZoneFileOnce() {
    #if os(Linux)
    if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
    #endif
  }
}
