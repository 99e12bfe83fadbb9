/// A shortest edit script between two sequences of line identifiers (Myers, 1986).
enum LineDifference {
  /// One step of an edit script.
  enum Edit: Equatable {
    /// `old[oldIndex]` equals `new[newIndex]`.
    case keep(oldIndex: Int, newIndex: Int)
    /// `old[oldIndex]` is removed.
    case delete(oldIndex: Int)
    /// `new[newIndex]` is inserted.
    case insert(newIndex: Int)
  }

  /// Edits past which the search stops and the rest is one replaced block (memory is O(d²)).
  static let maximumEdits = 2_000

  /// The edits that turn `old` into `new`, in order: deletions before insertions at the same place.
  static func editScript(from old: [Int], to new: [Int]) -> [Edit] {
    // Never nil: nothing cancels it.
    editScript(from: old, to: new, isCancelled: { false })!
  }

  /// The edits that turn `old` into `new`, as ``editScript(from:to:)`` makes them; `nil` once `isCancelled`, asked
  /// at each round of the search, returns `true`.
  static func editScript(from old: [Int], to new: [Int], isCancelled: () -> Bool) -> [Edit]? {
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    { suffix += 1 }
    var script: [Edit] = (0..<prefix).map { .keep(oldIndex: $0, newIndex: $0) }
    let a = old[prefix..<old.count - suffix]
    let b = new[prefix..<new.count - suffix]
    guard let middle = middle(Array(a), Array(b), isCancelled: isCancelled) else { return nil }
    script += middle.map { edit in
      switch edit {
      case .keep(let i, let j): .keep(oldIndex: i + prefix, newIndex: j + prefix)
      case .delete(let i): .delete(oldIndex: i + prefix)
      case .insert(let j): .insert(newIndex: j + prefix)
      }
    }
    script += (0..<suffix).map { .keep(oldIndex: old.count - suffix + $0, newIndex: new.count - suffix + $0) }
    return script
  }

  /// Myers' greedy forward search, keeping each round's frontier to walk back the path.
  private static func middle(_ a: [Int], _ b: [Int], isCancelled: () -> Bool) -> [Edit]? {
    let n = a.count, m = b.count
    if n == 0 { return (0..<m).map { .insert(newIndex: $0) } }
    if m == 0 { return (0..<n).map { .delete(oldIndex: $0) } }
    let limit = min(n + m, maximumEdits)
    let offset = limit + 1
    var v = [Int](repeating: 0, count: 2 * limit + 3)
    // trace[d] holds v[k] for k in -(d-1)...(d-1): the frontier before round d.
    var trace: [[Int]] = []
    var found: Int?
    search: for d in 0...limit {
      if isCancelled() { return nil }
      trace.append(d == 0 ? [] : Array(v[(offset - d + 1)...(offset + d - 1)]))
      for k in stride(from: -d, through: d, by: 2) {
        var x =
          (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
        var y = x - k
        while x < n, y < m, a[x] == b[y] {
          x += 1
          y += 1
        }
        v[offset + k] = x
        if x >= n, y >= m {
          found = d
          break search
        }
      }
    }
    guard let distance = found else {
      // Too different to search further: replace everything.
      return (0..<n).map { .delete(oldIndex: $0) } + (0..<m).map { .insert(newIndex: $0) }
    }
    var reversed: [Edit] = []
    var x = n, y = m
    for d in stride(from: distance, to: 0, by: -1) {
      let previous = trace[d]
      func frontier(_ k: Int) -> Int { previous[k + d - 1] }
      let k = x - y
      let previousK = (k == -d || (k != d && frontier(k - 1) < frontier(k + 1))) ? k + 1 : k - 1
      let previousX = frontier(previousK)
      let previousY = previousX - previousK
      while x > previousX, y > previousY {
        x -= 1
        y -= 1
        reversed.append(.keep(oldIndex: x, newIndex: y))
      }
      if previousK == k + 1 {
        y -= 1
        reversed.append(.insert(newIndex: y))
      } else {
        x -= 1
        reversed.append(.delete(oldIndex: x))
      }
    }
    while x > 0, y > 0 {
      x -= 1
      y -= 1
      reversed.append(.keep(oldIndex: x, newIndex: y))
    }
    return reversed.reversed()
  }
}
