import ArgumentParser

/// `PACKAGE ENTRY`: a package and a path inside it (`cat`, `put`, `rm`).
struct PackageEntryArguments: ParsableArguments {
  @Argument(help: "The package: a directory, an archive (cat only) or PACKAGE@ID (cat only).")
  var package: String

  @Argument(help: "A path inside the package, such as Data/notes.txt.")
  var entry: String
}
