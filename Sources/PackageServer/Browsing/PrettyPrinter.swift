/// Re-indents JSON and XML for the preview without parsing them into values: every character of the file is
/// kept in order (numbers, key order, escapes, comments and CDATA as written); only whitespace between tokens
/// changes. A file that does not nest properly is shown as it is.
enum PrettyPrinter {
  /// `text` as JSON indented by two spaces a level; `nil` when brackets do not balance or a string is open.
  static func json(_ text: String) -> String? {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + text.utf8.count / 4)
    var depth = 0
    var inString = false
    var escaped = false
    var pendingNewline = false
    func newline() {
      out.append(0x0A)
      out.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }
    for byte in text.utf8 {
      if inString {
        out.append(byte)
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == 0x22 {
          inString = false
        }
        continue
      }
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D: continue
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        guard depth >= 0 else { return nil }
        if pendingNewline { pendingNewline = false } else { newline() }
        out.append(byte)
        continue
      default: break
      }
      if pendingNewline {
        pendingNewline = false
        newline()
      }
      out.append(byte)
      switch byte {
      case 0x22: inString = true
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
        pendingNewline = true
      case UInt8(ascii: ","): newline()
      case UInt8(ascii: ":"): out.append(0x20)
      default: break
      }
    }
    guard depth == 0, !inString else { return nil }
    return String(decoding: out, as: UTF8.self)
  }

  /// `text` as XML, one tag (or run of text) a line, indented by two spaces a level; `nil` when tags do not
  /// balance. Comments, processing instructions, declarations and CDATA are kept whole on their own lines.
  static func xml(_ text: String) -> String? {
    var lines: [String] = []
    var depth = 0
    var rest = Substring(text)
    func add(_ piece: Substring) {
      lines.append(String(repeating: "  ", count: depth) + piece)
    }
    while !rest.isEmpty {
      guard let open = rest.firstIndex(of: "<") else {
        let trimmed = rest.trimmingWhitespace
        if !trimmed.isEmpty { add(trimmed) }
        break
      }
      let before = rest[..<open].trimmingWhitespace
      if !before.isEmpty { add(before) }
      rest = rest[open...]
      let terminator =
        rest.hasPrefix("<!--") ? "-->" : rest.hasPrefix("<![CDATA[") ? "]]>" : rest.hasPrefix("<?") ? "?>" : ">"
      guard let close = rest.range(of: terminator) else { return nil }
      let tag = rest[..<close.upperBound]
      rest = rest[close.upperBound...]
      if tag.hasPrefix("</") {
        depth -= 1
        guard depth >= 0 else { return nil }
        add(tag)
      } else {
        add(tag)
        let opens = terminator == ">" && !tag.hasPrefix("<!") && !tag.hasSuffix("/>")
        if opens { depth += 1 }
      }
    }
    guard depth == 0 else { return nil }
    return lines.joined(separator: "\n") + "\n"
  }
}

extension Substring {
  /// Without the whitespace and line breaks at both ends.
  fileprivate var trimmingWhitespace: Substring {
    guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return self[first...last]
  }

  /// The range of the first `needle` in this substring.
  fileprivate func range(of needle: String) -> Range<Index>? {
    var index = startIndex
    while index < endIndex {
      if self[index...].hasPrefix(needle) {
        return index..<self.index(index, offsetBy: needle.count)
      }
      index = self.index(after: index)
    }
    return nil
  }
}
