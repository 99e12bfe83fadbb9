import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// `docpkg bookmark PACKAGE`: a reference to the package, as one line of text.
struct Bookmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bookmark",
    abstract: "Print a reference to a package that finds it again after renames, moves and saves.",
    discussion: """
      Prints one line, docpkg-ref1:..., with no spaces (safe in a configuration file); \
      'docpkg resolve REFERENCE' prints where the package is now. The first reference to a package gives it \
      an identity: an extended attribute (user.docpkg.identity) on its root directory, nothing inside it. \
      A copy made with cp -a carries that attribute but is not the package: a reference to such a copy gives \
      the copy an identity of its own, unless --adopt says the copy now is the document (after a move to \
      another file system, or a restore from a backup). Where the file system keeps no extended attributes, \
      the reference follows the root directory's inode only, which a save may replace.
      """
  )

  @Argument(help: "The package.", completion: .directory)
  var package: String

  @Flag(help: "Let a copy made with cp -a take over the identity it carries (references to the original find it).")
  var adopt = false

  func run() throws {
    let reference = try PackageReference(package: FilePath(package), adoptingIdentity: adopt)
    StandardOutput.shared.write(reference.text + "\n")
  }
}
