import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Date {
  /// The date in the local time zone (`TZ`), to the second: `2026-11-24 03:23:08`.
  var localTimestamp: String {
    let utc = Int64(timeIntervalSince1970.rounded(.down))
    let local = utc + LocalTime.offset(atSecondsSince1970: utc)
    let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    let second = local - days * 86_400
    let (year, month, day) = CivilDate.of(daysSince1970: days)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
    return "\(year)-\(two(month))-\(two(day)) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
  }
}
