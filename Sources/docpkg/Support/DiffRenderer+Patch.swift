import DocumentPackage

/// `docpkg diff -p`: git-style headers, unified diffs of text files, size and SHA-256 of binary files.
extension DiffRenderer {
  func patches(_ difference: PackageDifference) -> String {
    var text = ""
    for item in Self.flatten(difference) where !Self.isDirectoryOnly(item.change) {
      let change = item.change
      let oldName = item.oldPath ?? item.path
      text +=
        (color ? "\u{1B}[1m" : "") + "diff --docpkg a/\(oldName) b/\(item.path)" + (color ? "\u{1B}[0m" : "") + "\n"
      switch change.kind {
      case .added: text += "new \(change.new!.kind) mode \(change.new!.permissions.octal)\n"
      case .deleted: text += "deleted \(change.old!.kind) mode \(change.old!.permissions.octal)\n"
      case .typeChanged: text += "type \(change.old!.kind) → \(change.new!.kind)\n"
      case .renamed:
        text += "similarity index \(change.similarity ?? 100)%\nrename from \(oldName)\nrename to \(item.path)\n"
      case .modified: break
      }
      if change.details.contains(.permissions), let old = change.old, let new = change.new {
        text += "old mode \(old.permissions.octal)\nnew mode \(new.permissions.octal)\n"
      }
      if change.details.contains(.symbolicLinkDestination) || (change.kind != .modified && change.kind != .renamed) {
        for (label, entry) in [("old", change.old), ("new", change.new)] {
          if let target = entry?.symbolicLinkDestination {
            text += "\(label) link → \(target.escapingName)\n"
          }
        }
      }
      if change.details.contains(.modificationTime), let old = change.old, let new = change.new {
        text += "mtime \(old.modificationTime?.description ?? "-") → \(new.modificationTime?.description ?? "-")\n"
      }
      if let patch = change.patch, !patch.hunks.isEmpty {
        text += (change.old?.kind == .file && change.kind != .added ? "--- a/\(oldName)" : "--- /dev/null") + "\n"
        text += (change.new?.kind == .file && change.kind != .deleted ? "+++ b/\(item.path)" : "+++ /dev/null") + "\n"
        text += color ? colored(patch) : patch.unifiedText
      } else if let old = change.old, let new = change.new, old.sha256 != nil || new.sha256 != nil,
        change.details.contains(.contents)
      {
        text +=
          "Binary files differ: size \(old.size.grouped) → \(new.size.grouped) bytes, "
          + "sha256 \(old.sha256 ?? "?") → \(new.sha256 ?? "?")\n"
      } else if let only = change.kind == .added ? change.new : change.kind == .deleted ? change.old : nil,
        only.kind == .file, only.isText == false || only.sha256 != nil && change.patch == nil
      {
        text += "Binary file: size \(only.size.grouped) bytes, sha256 \(only.sha256 ?? "?")\n"
      }
    }
    return text
  }

  private func colored(_ patch: TextPatch) -> String {
    var text = ""
    for line in patch.unifiedText.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      let code = line.hasPrefix("@@") ? "36" : line.hasPrefix("+") ? "32" : line.hasPrefix("-") ? "31" : ""
      text += code.isEmpty ? line + "\n" : "\u{1B}[\(code)m\(line)\u{1B}[0m\n"
    }
    return text
  }
}
