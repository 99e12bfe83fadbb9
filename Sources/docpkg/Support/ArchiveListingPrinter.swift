import DocPkgCommandLine
import DocumentArchive
import DocumentPackage
import SystemPackage

/// `inspect`'s flat listing of an archive with refused entries: every entry in archive order, the
/// refused ones marked.
struct ArchiveListingPrinter {
  let json: Bool
  let depth: Int?
  let out = StandardOutput.shared

  func print(_ entries: [ArchiveListingEntry]) {
    var totals = (files: 0, directories: 0, symlinks: 0, refused: 0, bytes: Int64(0))
    var first = true
    if json { out.write("{\"entries\":[") }
    for entry in entries {
      switch entry.kind {
      case .file, .hardlink:
        totals.files += 1
        totals.bytes += entry.size ?? 0
      case .directory: totals.directories += 1
      case .symlink: totals.symlinks += 1
      case .special: break
      }
      if entry.refused != nil { totals.refused += 1 }
      if let depth, entry.path.split(separator: "/").count > depth { continue }
      if json {
        out.write(first ? "\n" : ",\n")
        first = false
        out.writeJSON(EntrySummary(entry))
      } else {
        out.write(line(for: entry))
      }
    }
    let refused = "\(Int64(totals.refused).grouped) refused"
    if json {
      out.write("\n],\"files\":\(totals.files),\"directories\":\(totals.directories),")
      out.write("\"symlinks\":\(totals.symlinks),\"bytes\":\(totals.bytes),\"refused\":\(totals.refused)}\n")
    } else {
      func plural(_ n: Int, _ word: String, _ words: String) -> String {
        "\(Int64(n).grouped) \(n == 1 ? word : words)"
      }
      out.write(
        "\n\(plural(totals.files, "file", "files")), \(plural(totals.directories, "directory", "directories")), "
          + "\(plural(totals.symlinks, "symlink", "symlinks")), \(totals.bytes.grouped) bytes; \(refused)\n")
    }
  }

  private func line(for entry: ArchiveListingEntry) -> String {
    let kind = entry.kind.rawValue
    let size = entry.kind == .directory ? "-" : (entry.size ?? 0).grouped
    var shown = entry.path.escapingName + (entry.kind == .directory ? "/" : "")
    if let target = entry.target {
      shown += (entry.kind == .hardlink ? " => " : " -> ") + target.escapingName
    }
    if let refused = entry.refused { shown += "  [refused: \(refused.escapingControlCharacters)]" }
    return kind.rightPadded(to: 9) + " " + entry.octalMode + " " + size.leftPadded(to: 15) + "  " + shown + "\n"
  }
}
