/// Groups an edit script into unified-diff hunks.
enum HunkBuilder {
  /// The hunks of `script`; `nil` once `isCancelled`, asked every 65,536 lines, returns `true`.
  static func hunks(
    script: [LineDifference.Edit], context: Int, oldLine: (Int) -> String, newLine: (Int) -> String,
    isCancelled: () -> Bool
  ) -> [TextPatch.Hunk]? {
    let changed = script.indices.filter { if case .keep = script[$0] { false } else { true } }
    guard !changed.isEmpty else { return [] }
    // Group changes whose context would touch or overlap.
    var groups: [ClosedRange<Int>] = []
    var start = changed[0], end = changed[0]
    for index in changed.dropFirst() {
      if index - end - 1 <= 2 * context {
        end = index
      } else {
        groups.append(start...end)
        start = index
        end = index
      }
    }
    groups.append(start...end)
    // Old and new line numbers before each script position.
    var oldBefore = [Int](repeating: 0, count: script.count + 1)
    var newBefore = [Int](repeating: 0, count: script.count + 1)
    for (index, edit) in script.enumerated() {
      oldBefore[index + 1] = oldBefore[index]
      newBefore[index + 1] = newBefore[index]
      switch edit {
      case .keep:
        oldBefore[index + 1] += 1
        newBefore[index + 1] += 1
      case .delete: oldBefore[index + 1] += 1
      case .insert: newBefore[index + 1] += 1
      }
    }
    var hunks: [TextPatch.Hunk] = []
    var made = 0
    for group in groups {
      let first = max(0, group.lowerBound - context)
      let last = min(script.count - 1, group.upperBound + context)
      var lines: [TextPatch.Line] = []
      for edit in script[first...last] {
        if made & 0xFFFF == 0, isCancelled() { return nil }
        made += 1
        switch edit {
        case .keep(let i, _): lines.append(.init(kind: .context, text: oldLine(i)))
        case .delete(let i): lines.append(.init(kind: .deleted, text: oldLine(i)))
        case .insert(let j): lines.append(.init(kind: .inserted, text: newLine(j)))
        }
      }
      let oldCount = oldBefore[last + 1] - oldBefore[first]
      let newCount = newBefore[last + 1] - newBefore[first]
      hunks.append(
        TextPatch.Hunk(
          oldStart: oldCount == 0 ? oldBefore[first] : oldBefore[first] + 1, oldCount: oldCount,
          newStart: newCount == 0 ? newBefore[first] : newBefore[first] + 1, newCount: newCount, lines: lines))
    }
    return hunks
  }
}
