import DocPkgCommandLine
import DocumentPackage

extension StandardOutput {
  /// Writes `entry` as the JSON a `JSONEncoder` with sorted keys makes of it (the one form of an entry:
  /// ``EntrySummary``), piece by piece: `inspect --json` writes one per entry, and encoding a value per entry costs
  /// more than the `lstat` behind it.
  func writeJSON(_ entry: EntrySummary) {
    write("{\"kind\":\"")
    write(entry.kind)
    write("\",\"mode\":\"")
    write(entry.mode)
    write("\",\"path\":")
    writeJSONString(entry.path)
    if let refused = entry.refused {
      write(",\"refused\":")
      writeJSONString(refused)
    }
    write(",\"size\":")
    write(String(entry.size))
    if let special = entry.special {
      write(",\"special\":")
      writeJSONString(special)
    }
    if let target = entry.target {
      write(",\"target\":")
      writeJSONString(target)
    }
    write("}")
  }
}
