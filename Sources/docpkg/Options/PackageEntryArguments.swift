import ArgumentParser

/// `PACKAGE ENTRY`: a package and a path inside it (`cat`, `put`, `rm`).
struct PackageEntryArguments: ParsableArguments {
  @Argument(help: "The package (cat also reads an archive, or PACKAGE@ID for a version).", completion: .file())
  var package: String

  @Argument(help: "A path inside the package, such as Data/notes.txt.")
  var entry: String
}
