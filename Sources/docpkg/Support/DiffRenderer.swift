import DocumentPackage

/// The text outputs of `docpkg diff`: the default summary, `--name-status`, `--stat` and `-p`.
struct DiffRenderer {
  typealias Change = PackageDifference.Change

  /// Use ANSI colors (only on a terminal).
  let color: Bool

  /// A change with the path shown for it: nested changes are prefixed by `CONTAINER!/`.
  struct Shown {
    var change: Change
    var path: String
    var oldPath: String?
    /// Whether the change is inside a container (`--recursive`).
    var isNested: Bool
  }

  /// Every change, nested ones right after their container.
  /// (An explicit stack, not recursion: containers nest as deep as their contents choose.)
  static func flatten(_ difference: PackageDifference, prefix: String = "") -> [Shown] {
    var shown: [Shown] = []
    var stack: [(changes: [Change], index: Int, prefix: String)] = [(Array(difference), 0, prefix)]
    while !stack.isEmpty {
      let top = stack.count - 1
      guard stack[top].index < stack[top].changes.count else {
        stack.removeLast()
        continue
      }
      let change = stack[top].changes[stack[top].index]
      stack[top].index += 1
      let prefix = stack[top].prefix
      shown.append(
        Shown(
          change: change, path: prefix + display(change.path, change.new ?? change.old),
          oldPath: change.oldPath.map { prefix + display($0, change.old) }, isNested: !prefix.isEmpty))
      if let nested = change.nested {
        stack.append((Array(nested), 0, prefix + change.path.escapingName + "!/"))
      }
    }
    return shown
  }

  /// The path with control characters escaped, `/` after directories, `.` for the root.
  static func display(_ path: String, _ entry: PackageDifference.Entry?) -> String {
    let shown = path.isEmpty ? "." : path.escapingName
    return entry?.kind == .directory ? shown + "/" : shown
  }

  /// `R086`, `M`, ...: git's status letter, with the score for renames.
  static func status(_ change: Change) -> String {
    guard change.kind == .renamed, let similarity = change.similarity else { return change.kind.rawValue }
    let digits = String(similarity)
    return "R" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
  }

  func paint(_ text: String, _ kind: Change.Kind) -> String {
    guard color else { return text }
    let code =
      switch kind {
      case .added: "32"
      case .deleted: "31"
      case .modified: "33"
      case .renamed: "36"
      case .typeChanged: "35"
      }
    return "\u{1B}[\(code)m\(text)\u{1B}[0m"
  }

  // MARK: --name-status

  func nameStatus(_ difference: PackageDifference) -> String {
    var text = ""
    for item in Self.flatten(difference) {
      text += paint(Self.status(item.change), item.change.kind) + "\t"
      if let oldPath = item.oldPath { text += oldPath + "\t" }
      text += item.path + "\n"
    }
    return text
  }

  // MARK: default

  func summary(_ difference: PackageDifference) -> String {
    let items = Self.flatten(difference)
    guard !items.isEmpty else { return "" }
    let width = min(60, items.map { ($0.oldPath.map { $0.count + 3 } ?? 0) + $0.path.count }.max() ?? 0)
    var text = ""
    for item in items {
      let name = (item.oldPath.map { $0 + " → " } ?? "") + item.path
      text +=
        paint(Self.status(item.change).rightPadded(to: 4), item.change.kind) + " "
        + name.rightPadded(to: width) + "  " + Self.describe(item.change) + "\n"
    }
    var counts = difference.counts
    for item in items where item.isNested { counts[item.change.kind, default: 0] += 1 }
    let parts = Change.Kind.allCases.compactMap { kind -> String? in
      guard let n = counts[kind], n > 0 else { return nil }
      return "\(n) \(Self.word(kind))"
    }
    text += "\(items.count) change\(items.count == 1 ? "" : "s"): " + parts.joined(separator: ", ") + "\n"
    return text
  }

  static func word(_ kind: Change.Kind) -> String {
    switch kind {
    case .added: "added"
    case .deleted: "deleted"
    case .modified: "modified"
    case .renamed: "renamed"
    case .typeChanged: "type changed"
    }
  }

  /// What changed, in words: sizes, modes, link targets, kinds.
  static func describe(_ change: Change) -> String {
    func size(_ entry: PackageDifference.Entry) -> String {
      switch entry.kind {
      case .file: "\(entry.size.grouped) bytes"
      case .directory: "directory"
      case .symlink: "→ \((entry.symbolicLinkDestination ?? "").escapingName)"
      }
    }
    switch change.kind {
    case .added: return change.new.map(size) ?? ""
    case .deleted: return change.old.map(size) ?? ""
    case .typeChanged:
      guard let old = change.old, let new = change.new else { return "" }
      return "\(old.kind) → \(new.kind)"
    case .modified, .renamed:
      guard let old = change.old, let new = change.new else { return "" }
      var parts: [String] = []
      if change.kind == .renamed, let similarity = change.similarity { parts.append("\(similarity)% similar") }
      if change.details.contains(.contents) || (change.kind == .renamed && old.kind == .file) {
        parts.append(
          old.size == new.size ? "\(new.size.grouped) bytes" : "\(old.size.grouped) → \(new.size.grouped) bytes")
      }
      if change.details.contains(.permissions) {
        parts.append("mode \(old.permissions.octal) → \(new.permissions.octal)")
      }
      if change.details.contains(.symbolicLinkDestination) {
        parts.append(
          "link \((old.symbolicLinkDestination ?? "").escapingName) → \((new.symbolicLinkDestination ?? "").escapingName)"
        )
      }
      if change.details.contains(.modificationTime) {
        parts.append("mtime \(old.modificationTime?.description ?? "-") → \(new.modificationTime?.description ?? "-")")
      }
      if let nested = change.nested, nested.isEmpty { parts.append("entries inside are the same") }
      return parts.joined(separator: ", ")
    }
  }

  /// Whether the change is about directories only (which have no contents to count or diff).
  static func isDirectoryOnly(_ change: Change) -> Bool {
    [change.old?.kind, change.new?.kind].allSatisfy { $0 == nil || $0 == .directory }
  }
}
