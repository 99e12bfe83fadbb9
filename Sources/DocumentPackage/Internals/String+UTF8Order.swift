#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
  /// Whether `self` sorts before `other` byte-wise in UTF-8: the order of `sort`, `ls` in the C locale
  /// and `git`, the same in every locale. Uses `memcmp` on the strings' contiguous UTF-8 storage.
  package func utf8Precedes(_ other: String) -> Bool {
    var lhs = self
    var rhs = other
    return lhs.withUTF8 { a in
      rhs.withUTF8 { b in
        let common = min(a.count, b.count)
        if common > 0 {
          let order = memcmp(a.baseAddress!, b.baseAddress!, common)
          if order != 0 { return order < 0 }
        }
        return a.count < b.count
      }
    }
  }
}
