#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Date {
  /// The date in the local time zone (`TZ`), to the second: `2026-11-24 03:23:08`.
  var localTimestamp: String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: self)
    func two(_ value: Int?) -> String {
      let digits = String(value ?? 0)
      return digits.count < 2 ? "0" + digits : digits
    }
    return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) "
      + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
  }
}
