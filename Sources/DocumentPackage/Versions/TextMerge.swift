#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Line-wise three-way merge (diff3) of text files changed on both sides.
///
/// Lines are matched base↔ours and base↔theirs with the Myers edit script of ``LineDifference``
/// (the one `docpkg diff -p` uses); the merge walks the base, taking each region as the side that
/// changed it. A region both sides changed differently is a conflict, and the merge fails (`nil`):
/// the caller keeps a conflict version.
enum TextMerge {
  /// The merge, or `nil` if a file is not text (UTF-8 without NUL) or hunks overlap.
  /// - Complexity: O((*n* + *m*) · *d*) for *d* differing lines.
  static func merge(base: Data, ours: Data, theirs: Data) -> Data? {
    if ours == theirs { return ours }
    if ours == base { return theirs }
    if theirs == base { return ours }
    guard let b = lines(base), let o = lines(ours), let t = lines(theirs) else { return nil }
    var ids: [Substring: Int] = [:]
    func number(_ list: [Substring]) -> [Int] {
      list.map { line in
        if let id = ids[line] { return id }
        ids[line] = ids.count
        return ids.count - 1
      }
    }
    let (bi, oi, ti) = (number(b), number(o), number(t))
    let toOurs = matches(bi, oi)
    let toTheirs = matches(bi, ti)
    var result: [Substring] = []
    var (i, a, c) = (0, 0, 0)
    while i < b.count || a < o.count || c < t.count {
      if i < b.count, toOurs[i] == a, toTheirs[i] == c {
        result.append(b[i])
        i += 1
        a += 1
        c += 1
        continue
      }
      var j = i
      while j < b.count, toOurs[j] == nil || toTheirs[j] == nil { j += 1 }
      let (aEnd, cEnd) = j < b.count ? (toOurs[j]!, toTheirs[j]!) : (o.count, t.count)
      let baseChunk = Array(b[i..<j])
      let ourChunk = Array(o[a..<aEnd])
      let theirChunk = Array(t[c..<cEnd])
      if ourChunk == baseChunk {
        result += theirChunk
      } else if theirChunk == baseChunk || ourChunk == theirChunk {
        result += ourChunk
      } else {
        return nil
      }
      (i, a, c) = (j, aEnd, cEnd)
    }
    return Data(result.joined().utf8)
  }

  /// The lines of `data` with their line ends, or `nil` if it is not text.
  static func lines(_ data: Data) -> [Substring]? {
    if data.contains(0) { return nil }
    guard let text = String(data: data, encoding: .utf8) else { return nil }
    var lines: [Substring] = []
    var start = text.startIndex
    for index in text.indices where text[index] == "\n" {
      let end = text.index(after: index)
      lines.append(text[start..<end])
      start = end
    }
    if start < text.endIndex { lines.append(text[start...]) }
    return lines
  }

  /// For each line of `a`, the index of the line of `b` it is matched with, or nil: the kept
  /// lines of the diff engine's Myers edit script. Past ``LineDifference/maximumEdits`` the script
  /// matches fewer lines, which can only turn a merge into a conflict, never into a wrong merge.
  static func matches(_ a: [Int], _ b: [Int]) -> [Int?] {
    var result = [Int?](repeating: nil, count: a.count)
    for case .keep(let i, let j) in LineDifference.editScript(from: a, to: b) { result[i] = j }
    return result
  }
}
