import ArgumentParser
import DocumentPackage

/// `PACKAGE ENTRY`: a package and a path inside it (`cat`, `put`, `rm`).
struct PackageEntryArguments: ParsableArguments {
  @Argument(help: "The package (cat also reads an archive, or PACKAGE@ID for a version).", completion: .file())
  var package: String

  @Argument(help: "A path inside the package, such as Data/notes.txt.")
  var entry: String

  /// ENTRY's readings, in the order every command tries them: as the CLI shows names (`\xNN` a byte of a name that
  /// is not UTF-8, `\\` a backslash: ``RawByteNames/unescapingName(_:)``), then as written. One reading when
  /// ENTRY has no such escape.
  var entryReadings: [String] {
    RawByteNames.unescapingName(entry).map { [$0, entry] } ?? [entry]
  }

  /// The entry of `root` ENTRY names: the first of ``entryReadings`` that names one; else the first reading (a new
  /// entry's name, and the path an error names, as `cat` names it).
  func entry(in root: PackageNode) -> String {
    let readings = entryReadings
    return readings.first { reading in (try? root.nodeIfPresent(at: reading)) != nil } ?? readings[0]
  }

  /// Fails, naming the entry, when ENTRY is not valid UTF-8: its bytes reach the command repaired
  /// (each bad byte as U+FFFD), so two such names would write one file, and neither the name given.
  /// - Throws: ``PackageError`` with code `invalidName`.
  func requireWritableEntry() throws {
    guard entry.unicodeScalars.contains("\u{FFFD}") else { return }
    throw PackageError(
      .invalidName, "cannot write an entry whose name is not valid UTF-8:", path: entry,
      context: "in '\(package)' (write it with another program, or rename it)")
  }
}
