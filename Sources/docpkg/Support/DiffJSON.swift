import DocumentPackage

/// `docpkg diff --json`: the schema is documented on ``Diff``.
enum DiffJSON {
  static let version = 1

  static func document(_ difference: PackageDifference, patches: Bool) -> String {
    let counts = difference.counts
    var text = "{\"version\":\(version),\"identical\":\(difference.isEmpty),\"counts\":{"
    text += Change.Kind.allCases.map { "\"\(name($0))\":\(counts[$0] ?? 0)" }.joined(separator: ",")
    text += "},\"changes\":" + changes(difference, patches: patches) + "}\n"
    return text
  }

  typealias Change = PackageDifference.Change

  static func name(_ kind: Change.Kind) -> String {
    switch kind {
    case .added: "added"
    case .deleted: "deleted"
    case .modified: "modified"
    case .renamed: "renamed"
    case .typeChanged: "typeChanged"
    }
  }

  static func changes(_ difference: PackageDifference, patches: Bool) -> String {
    "["
      + difference.map {
        change(
          $0, patches: patches)
      }.joined(separator: ",\n") + "]"
  }

  static func change(_ change: Change, patches: Bool) -> String {
    var fields = ["\"status\":\"\(change.kind.rawValue)\"", "\"path\":\(change.path.jsonQuoted)"]
    if let oldPath = change.oldPath { fields.append("\"oldPath\":\(oldPath.jsonQuoted)") }
    if let similarity = change.similarity { fields.append("\"similarity\":\(similarity)") }
    if change.kind == .modified || change.kind == .renamed {
      var details: [String] = []
      if change.details.contains(.contents) { details.append("\"contents\"") }
      if change.details.contains(.permissions) { details.append("\"mode\"") }
      if change.details.contains(.symbolicLinkDestination) { details.append("\"target\"") }
      if change.details.contains(.modificationTime) { details.append("\"mtime\"") }
      fields.append("\"details\":[" + details.joined(separator: ",") + "]")
    }
    if let old = change.old { fields.append("\"old\":" + entry(old)) }
    if let new = change.new { fields.append("\"new\":" + entry(new)) }
    if patches, let patch = change.patch { fields.append("\"patch\":" + patch.unifiedText.jsonQuoted) }
    if let nested = change.nested {
      fields.append("\"nested\":{\"changes\":" + changes(nested, patches: patches) + "}")
    }
    return "{" + fields.joined(separator: ",") + "}"
  }

  static func entry(_ entry: PackageDifference.Entry) -> String {
    var fields = [
      "\"kind\":\"\(entry.kind.rawValue)\"", "\"size\":\(entry.size)", "\"mode\":\"\(entry.permissions.octal)\"",
    ]
    if let time = entry.modificationTime { fields.append("\"mtime\":\"\(time)\"") }
    if let target = entry.symbolicLinkDestination { fields.append("\"target\":\(target.jsonQuoted)") }
    if let sha256 = entry.sha256 { fields.append("\"sha256\":\"\(sha256)\"") }
    return "{" + fields.joined(separator: ",") + "}"
  }
}
