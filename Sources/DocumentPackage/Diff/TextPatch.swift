/// The line differences between two versions of a text file, as hunks of a unified diff.
public struct TextPatch: Hashable, Sendable {
  /// One line of a hunk.
  public struct Line: Hashable, Sendable {
    /// Whether the line is in both versions, only the old one, or only the new one.
    public enum Kind: Character, Hashable, Sendable {
      /// In both versions (` `).
      case context = " "
      /// Only in the old version (`-`).
      case deleted = "-"
      /// Only in the new version (`+`).
      case inserted = "+"
    }
    /// Which version the line is in.
    public var kind: Kind
    /// The line's text, with its line feed if it has one (the last line of a file may not).
    public var text: String

    /// Creates a line.
    public init(kind: Kind, text: String) {
      self.kind = kind
      self.text = text
    }
  }

  /// A run of changed lines with context around it: `@@ -oldStart,oldCount +newStart,newCount @@`.
  public struct Hunk: Hashable, Sendable {
    /// The first old line of the hunk, counting from 1 (0 when `oldCount` is 0 at the start).
    public var oldStart: Int
    /// How many old lines the hunk covers.
    public var oldCount: Int
    /// The first new line of the hunk, counting from 1 (0 when `newCount` is 0 at the start).
    public var newStart: Int
    /// How many new lines the hunk covers.
    public var newCount: Int
    /// The hunk's lines in order.
    public var lines: [Line]

    /// Creates a hunk.
    public init(oldStart: Int, oldCount: Int, newStart: Int, newCount: Int, lines: [Line]) {
      self.oldStart = oldStart
      self.oldCount = oldCount
      self.newStart = newStart
      self.newCount = newCount
      self.lines = lines
    }

    /// The hunk header, `@@ -1,3 +1,4 @@`, without a line feed.
    public var header: String {
      func range(_ start: Int, _ count: Int) -> String { count == 1 ? "\(start)" : "\(start),\(count)" }
      return "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"
    }
  }

  /// The hunks, in order.
  public var hunks: [Hunk]

  /// Creates a patch from hunks.
  public init(hunks: [Hunk]) {
    self.hunks = hunks
  }

  /// How many lines only the new version has.
  public var insertions: Int { hunks.reduce(0) { $0 + $1.lines.count { $0.kind == .inserted } } }
  /// How many lines only the old version has.
  public var deletions: Int { hunks.reduce(0) { $0 + $1.lines.count { $0.kind == .deleted } } }

  /// The patch as the body of a unified diff: each hunk header, then its lines prefixed by
  /// ` `, `-` or `+`. A line without a line feed is followed by `\ No newline at end of file`.
  public var unifiedText: String {
    var text = ""
    for hunk in hunks {
      text += hunk.header + "\n"
      for line in hunk.lines {
        text.append(line.kind.rawValue)
        text += line.text
        if !line.text.hasSuffix("\n") { text += "\n\\ No newline at end of file\n" }
      }
    }
    return text
  }
}

extension TextPatch {
  /// The patch that turns the text `old` into `new`, lines compared exactly, with `context`
  /// lines of context around each change.
  ///
  /// Lines are split after each line feed. The line diff is Myers' algorithm (the one `git diff`
  /// uses by default) after trimming the common start and end.
  /// - Complexity: O((*n* + *m*) · *d*) for *n* and *m* lines and *d* differing lines. When *d*
  ///   passes 2,000 the rest is reported as one replaced block: correct, but not minimal.
  public init(from old: [UInt8], to new: [UInt8], context: Int = 3) {
    // Never nil: nothing cancels it.
    self.init(from: old, to: new, context: context, isCancelled: { false })!
  }

  /// The patch that turns `old` into `new`, as ``init(from:to:context:)`` makes it; `nil` once `isCancelled`,
  /// asked every 65,536 lines read or written and at each round of the line search, returns `true`.
  init?(from old: [UInt8], to new: [UInt8], context: Int, isCancelled: () -> Bool) {
    let oldLines = LineSplitter.lines(old)
    let newLines = LineSplitter.lines(new)
    var ids: [ArraySlice<UInt8>: Int] = [:]
    func identifiers(_ lines: [Range<Int>], of bytes: [UInt8]) -> [Int]? {
      var result: [Int] = []
      result.reserveCapacity(lines.count)
      for (index, range) in lines.enumerated() {
        if index & 0xFFFF == 0, isCancelled() { return nil }
        let line = bytes[range]
        let id = ids[line] ?? ids.count
        if id == ids.count { ids[line] = id }
        result.append(id)
      }
      return result
    }
    guard let a = identifiers(oldLines, of: old), let b = identifiers(newLines, of: new),
      let script = LineDifference.editScript(from: a, to: b, isCancelled: isCancelled),
      let hunks = HunkBuilder.hunks(
        script: script, context: max(0, context),
        oldLine: { String(decoding: old[oldLines[$0]], as: UTF8.self) },
        newLine: { String(decoding: new[newLines[$0]], as: UTF8.self) }, isCancelled: isCancelled)
    else { return nil }
    self.init(hunks: hunks)
  }
}

/// Splits bytes into lines, each with its line feed.
enum LineSplitter {
  static func lines(_ bytes: [UInt8]) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    for index in bytes.indices where bytes[index] == 0x0A {
      ranges.append(start..<index + 1)
      start = index + 1
    }
    if start < bytes.count { ranges.append(start..<bytes.count) }
    return ranges
  }
}

extension TextPatch {
  /// Reads back ``unifiedText``: hunk headers, lines prefixed by ` `, `-` or `+`, and
  /// `\ No newline at end of file` after a line without a line feed. `nil` when the text is not in that form.
  init?(unifiedText: String) {
    var hunks: [Hunk] = []
    var lines = unifiedText.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.last == "" else { return nil }
    lines.removeLast()
    for line in lines {
      if line.hasPrefix("@@ ") {
        guard let hunk = Self.hunk(header: line) else { return nil }
        hunks.append(hunk)
      } else if line == "\\ No newline at end of file" {
        guard let last = hunks.last?.lines.last, last.text.hasSuffix("\n") else { return nil }
        hunks[hunks.count - 1].lines[hunks[hunks.count - 1].lines.count - 1].text.removeLast()
      } else {
        guard !hunks.isEmpty, let first = line.first, let kind = Line.Kind(rawValue: first) else { return nil }
        hunks[hunks.count - 1].lines.append(Line(kind: kind, text: String(line.dropFirst()) + "\n"))
      }
    }
    self.init(hunks: hunks)
  }

  /// An empty hunk from `@@ -1,3 +1,4 @@`.
  private static func hunk(header: Substring) -> Hunk? {
    let parts = header.split(separator: " ")
    guard parts.count == 4, parts[3] == "@@", parts[1].first == "-", parts[2].first == "+",
      let old = range(parts[1].dropFirst()), let new = range(parts[2].dropFirst())
    else { return nil }
    return Hunk(oldStart: old.start, oldCount: old.count, newStart: new.start, newCount: new.count, lines: [])
  }

  /// `5,3` → (5, 3); `5` → (5, 1).
  private static func range(_ text: Substring) -> (start: Int, count: Int)? {
    let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
    switch numbers.count {
    case 1: return numbers[0].map { ($0, 1) }
    case 2: return numbers[0].flatMap { start in numbers[1].map { (start, $0) } }
    default: return nil
    }
  }
}
