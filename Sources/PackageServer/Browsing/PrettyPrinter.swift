/// Re-indents JSON and XML for the preview without parsing them into values: every byte of the file is kept in
/// order (numbers, key order, escapes, comments and CDATA as written); only whitespace between tokens changes. A
/// file that does not nest properly is shown as it is.
///
/// **Bounded** (issue 38: a 2 KB zip held a JSON whose indented form was 2.7 GB). Both printers make one pass over
/// the bytes, with no recursion, and their output is linear in the input:
/// - a line is indented by its depth only up to ``indentedLevels``; deeper lines keep that indentation, so no line
///   adds more than `2 × indentedLevels` spaces to the bytes it holds;
/// - the output stops at `limit` bytes, at the end of a line, and says it was cut (``Output/truncated``);
/// - a file with control characters (other than tab, line feed and carriage return) is not re-indented: neither
///   JSON nor XML allows them, and in a JSON response each would grow sixfold (`\u0001`), while every byte the
///   printers write grows at most twofold there (`\n`, `\"`, `\\`); nor is a file that is not UTF-8 (each byte
///   that is not would grow threefold, into U+FFFD).
///
/// **Stoppable.** Each printer asks `isCancelled` at every 64 KiB of input and gives up (`nil`) once it returns
/// `true`: a preview whose client has gone frees its place in the ``PreviewPool`` at once.
enum PrettyPrinter {
  /// What a printer made.
  struct Output: Equatable {
    /// The re-indented text (the first `limit` bytes of it, to the end of a line, when ``truncated``).
    var text: String
    /// Whether the re-indented text was longer than the limit, and cut.
    var truncated: Bool
  }

  /// The levels of nesting that are indented; a line deeper than this is indented as one at this depth.
  static let indentedLevels = 32
  /// The bytes of input read between two questions to `isCancelled`.
  static let cancellationStride = 64 << 10

  /// `bytes` as JSON, indented by two spaces a level, at most `limit` bytes; `nil` when brackets do not balance, a
  /// string is open, a control character is in it, or it is not UTF-8, or once `isCancelled` returns `true`.
  /// - Complexity: O(*n*) in time and memory, *n* the size of `bytes` (the output is at most `limit` bytes).
  static func json(_ bytes: [UInt8], limit: Int, isCancelled: () -> Bool = { false }) -> Output? {
    guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
    var out = Writer(limit: limit, reserving: bytes.count + bytes.count / 4)
    var depth = 0
    var inString = false
    var escaped = false
    var pendingNewline = false
    var untilCheck = 0
    for byte in bytes {
      if untilCheck == 0 {
        if isCancelled() { return nil }
        untilCheck = cancellationStride
      }
      untilCheck -= 1
      if out.isFull { return out.output }
      if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return nil }
      if inString {
        out.append(byte)
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D: continue
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        guard depth >= 0 else { return nil }
        if pendingNewline { pendingNewline = false } else { out.newline(depth: depth) }
        out.append(byte)
        continue
      default: break
      }
      if pendingNewline {
        pendingNewline = false
        out.newline(depth: depth)
      }
      out.append(byte)
      switch byte {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
        pendingNewline = true
      case UInt8(ascii: ","): out.newline(depth: depth)
      case UInt8(ascii: ":"): out.append(0x20)
      default: break
      }
    }
    if out.isFull { return out.output }
    guard depth == 0, !inString else { return nil }
    return out.output
  }

  /// `bytes` as XML, one tag (or run of text) a line, indented by two spaces a level, at most `limit` bytes; `nil`
  /// when tags do not balance, one is not closed, a control character is in it, or it is not UTF-8, or once
  /// `isCancelled` returns `true`. Comments, processing instructions, declarations and CDATA are kept whole on
  /// their own lines.
  /// - Complexity: O(*n*) in time and memory, *n* the size of `bytes` (the output is at most `limit` bytes).
  static func xml(_ bytes: [UInt8], limit: Int, isCancelled: () -> Bool = { false }) -> Output? {
    guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
    if bytes.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) { return nil }
    var out = Writer(limit: limit, reserving: bytes.count + bytes.count / 4)
    var depth = 0
    var index = 0
    func line(_ range: Range<Int>) {
      if out.count > 0 { out.newline(depth: depth) } else { out.indent(depth: depth) }
      out.append(contentsOf: bytes[range])
    }
    var nextCheck = 0
    while index < bytes.count, !out.isFull {
      if index >= nextCheck {
        if isCancelled() { return nil }
        nextCheck = index + cancellationStride
      }
      guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) else {
        let text = trimmed(bytes, index..<bytes.count)
        if !text.isEmpty { line(text) }
        break
      }
      let text = trimmed(bytes, index..<open)
      if !text.isEmpty { line(text) }
      let terminator: [UInt8] =
        starts(bytes, open, "<!--")
        ? Array("-->".utf8)
        : starts(bytes, open, "<![CDATA[") ? Array("]]>".utf8) : starts(bytes, open, "<?") ? Array("?>".utf8) : [0x3E]
      guard let end = find(terminator, in: bytes, from: open + 1) else { return nil }
      let tag = open..<end
      index = end
      if starts(bytes, open, "</") {
        depth -= 1
        guard depth >= 0 else { return nil }
        line(tag)
      } else {
        line(tag)
        let opens = terminator == [0x3E] && !starts(bytes, open, "<!") && bytes[end - 2] != UInt8(ascii: "/")
        if opens { depth += 1 }
      }
    }
    if out.isFull { return out.output }
    guard depth == 0 else { return nil }
    out.append(0x0A)
    return out.output
  }

  /// The output of a printer: bytes up to a limit, then the end of the last whole line.
  private struct Writer {
    private var bytes: [UInt8] = []
    private let limit: Int
    private(set) var isFull = false
    private static let spaces = [UInt8](repeating: 0x20, count: PrettyPrinter.indentedLevels * 2)

    init(limit: Int, reserving capacity: Int) {
      self.limit = limit
      bytes.reserveCapacity(min(capacity, limit))
    }

    var count: Int { bytes.count }

    mutating func append(_ byte: UInt8) {
      bytes.append(byte)
      if bytes.count > limit { isFull = true }
    }

    mutating func append(contentsOf more: ArraySlice<UInt8>) {
      bytes += more.prefix(limit + 1 - min(bytes.count, limit + 1))
      if bytes.count > limit { isFull = true }
    }

    /// A line feed, then the indentation of `depth` (at most ``PrettyPrinter/indentedLevels``).
    mutating func newline(depth: Int) {
      append(0x0A)
      indent(depth: depth)
    }

    mutating func indent(depth: Int) {
      bytes += Self.spaces[..<(min(depth, PrettyPrinter.indentedLevels) * 2)]
      if bytes.count > limit { isFull = true }
    }

    /// The text written; when over the limit, cut after the last line feed within it (the bytes before a line
    /// feed are whole UTF-8 characters: every byte of a character's encoding is 0x80 or more).
    var output: Output {
      guard isFull else { return Output(text: String(decoding: bytes, as: UTF8.self), truncated: false) }
      let end = bytes[..<min(bytes.count, limit)].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
      return Output(text: String(decoding: bytes[..<end], as: UTF8.self), truncated: true)
    }
  }

  /// `range` without the whitespace at both ends.
  private static func trimmed(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    var (start, end) = (range.lowerBound, range.upperBound)
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return start..<end
  }

  /// Whether `bytes` has `prefix` at `index`.
  private static func starts(_ bytes: [UInt8], _ index: Int, _ prefix: String) -> Bool {
    let prefix = prefix.utf8
    return bytes.count - index >= prefix.count && bytes[index..<index + prefix.count].elementsEqual(prefix)
  }

  /// The index just after the first `needle` in `bytes` from `start`.
  /// - Complexity: O(*n*·*m*) for a needle of *m* bytes (at most 3 here).
  private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    var index = start
    while index + needle.count <= bytes.count {
      if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) {
        return index + needle.count
      }
      index += 1
    }
    return nil
  }
}
