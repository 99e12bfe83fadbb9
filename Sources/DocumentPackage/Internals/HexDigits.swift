/// Bytes as lowercase hexadecimal digits, two a byte: a blob's name in a version store (``ContentHash``), and a
/// name of any bytes on a line of its own (a journal's root names).
package enum HexDigits {
  package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
