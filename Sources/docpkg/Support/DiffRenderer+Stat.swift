import DocumentPackage

/// `docpkg diff --stat`: like `git diff --stat`, one line per changed file or link.
extension DiffRenderer {
  func stat(_ difference: PackageDifference) -> String {
    let items = Self.flatten(difference).filter { !Self.isDirectoryOnly($0.change) }
    guard !items.isEmpty else { return "" }
    let names = items.map { item in item.oldPath.map { "\($0) => \(item.path)" } ?? item.path }
    let width = names.map(\.count).max() ?? 0
    var insertions = 0, deletions = 0
    var rows: [(String, String)] = []
    for (item, name) in zip(items, names) {
      let change = item.change
      if let patch = change.patch {
        insertions += patch.insertions
        deletions += patch.deletions
        let total = patch.insertions + patch.deletions
        let scale = total > 50 ? 50.0 / Double(total) : 1
        let plus = String(repeating: "+", count: Int((Double(patch.insertions) * scale).rounded(.up)))
        let minus = String(repeating: "-", count: Int((Double(patch.deletions) * scale).rounded(.up)))
        rows.append((name, "\(total) " + (color ? "\u{1B}[32m\(plus)\u{1B}[31m\(minus)\u{1B}[0m" : plus + minus)))
      } else if change.old?.isText == false || change.new?.isText == false || change.details.contains(.contents)
        || change.kind == .added || change.kind == .deleted
      {
        let old = change.old?.kind == .file ? change.old!.size : 0
        let new = change.new?.kind == .file ? change.new!.size : 0
        rows.append((name, "Bin \(old) -> \(new) bytes"))
      } else {
        rows.append((name, "0"))
      }
    }
    var text = rows.map { " \($0.0.rightPadded(to: width)) | \($0.1)\n" }.joined()
    text += " \(items.count) file\(items.count == 1 ? "" : "s") changed"
    if insertions > 0 { text += ", \(insertions) insertion\(insertions == 1 ? "" : "s")(+)" }
    if deletions > 0 { text += ", \(deletions) deletion\(deletions == 1 ? "" : "s")(-)" }
    return text + "\n"
  }

}
