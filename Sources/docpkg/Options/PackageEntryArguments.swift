import ArgumentParser
import DocumentPackage

/// `PACKAGE ENTRY`: a package and a path inside it (`cat`, `put`, `rm`).
struct PackageEntryArguments: ParsableArguments {
  @Argument(help: "The package (cat also reads an archive, or PACKAGE@ID for a version).", completion: .file())
  var package: String

  @Argument(help: "A path inside the package, such as Data/notes.txt.")
  var entry: String

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
