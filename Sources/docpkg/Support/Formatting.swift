import DocPkgCommandLine
import DocumentPackage
import SystemPackage

extension Int64 {
  /// The number with thousands separators: `1,234,567`.
  var grouped: String {
    let digits = String(self.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return self < 0 ? "-" + result : result
  }
}

extension String {
  /// The string as a JSON string literal, quotes included: decoded, it is the string with each byte of a name that
  /// is not UTF-8 as `\xNN` and each backslash as `\\`, as text shows names.
  var jsonQuoted: String {
    guard needsJSONEscaping else { return "\"" + self + "\"" }
    var result = "\""
    result.reserveCapacity(utf8.count + 2)
    for scalar in unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      // A backslash as `\\` once decoded, as names are shown (``Swift/String/escapingName``): the name `a\xFE` is
      // then told from the name whose last byte is 0xFE.
      case "\\": result += "\\\\\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      case _ where RawByteNames.isRawByte(scalar):
        // A byte of a name that is not UTF-8 (as DocumentArchive reads a tar's): `\xE9`, as errors and text show it.
        result += "\\\\x" + String(scalar.value - RawByteNames.base, radix: 16, uppercase: true)
      default: result.unicodeScalars.append(scalar)
      }
    }
    result += "\""
    return result
  }

  /// Whether the string holds a character JSON escapes: a control character, `"`, `\` or DEL; or a scalar that
  /// stands for a byte that is not UTF-8 (U+F780–U+F7FF, written `\xNN`).
  var needsJSONEscaping: Bool {
    utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }
      || (utf8.contains(0xEF) && unicodeScalars.contains(where: RawByteNames.isRawByte))
  }

  /// Pads with spaces on the left to `width` characters.
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }

  /// Pads with spaces on the right to `width` characters.
  func rightPadded(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}

extension StandardOutput {
  /// Writes `count` spaces.
  func writeSpaces(_ count: Int) {
    let spaces: StaticString = "                                "  // 32
    var left = count
    while left > 0 {
      let now = min(left, 32)
      write(bytes: UnsafeRawBufferPointer(start: spaces.utf8Start, count: now))
      left -= now
    }
  }

  /// Writes `text` as a JSON string literal, without building the quoted string when nothing needs escaping
  /// (`inspect --json` writes one per entry, and building strings costs more than the `lstat` behind it).
  func writeJSONString(_ text: String) {
    if text.needsJSONEscaping {
      write(text.jsonQuoted)
    } else {
      write("\"")
      write(text)
      write("\"")
    }
  }
}
