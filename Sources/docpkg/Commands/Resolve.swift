import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// `docpkg resolve REFERENCE`: where the package a reference names is now.
struct Resolve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Print the current path of the package a reference (from 'docpkg bookmark') names.",
    discussion: """
      Looks at the recorded path first; if the package is not there, searches its file system near it: the \
      old folder and its subfolders, then each enclosing folder and its subfolders, breadth-first, up to \
      --search-limit folders. When the package was found elsewhere, the reference is stale: a line on \
      standard error gives the fresh reference to store instead, and the exit status is still 0. When the \
      package is gone (deleted, moved to another file system, or beyond the search), resolve fails with one \
      line naming the recorded path and where it searched.
      """
  )

  @Argument(help: "The reference, as 'docpkg bookmark' printed it.")
  var reference: String

  @Option(help: "The most folders to search when the package is not at its recorded path.")
  var searchLimit: Int = PackageReference.ResolutionOptions().maximumFolders

  func validate() throws {
    guard searchLimit >= 0 else {
      throw ValidationError("--search-limit takes a number of folders, not \(searchLimit)")
    }
    do { _ = try PackageReference(text: reference) } catch { throw ValidationError(String(describing: error)) }
  }

  func run() throws {
    let resolution = try PackageReference(text: reference).resolve(
      options: PackageReference.ResolutionOptions(maximumFolders: searchLimit))
    StandardOutput.shared.write(resolution.path.string.escapingControlCharacters + "\n")
    if resolution.isStale {
      StandardError.write(
        "docpkg: stale reference (the package is not where it said); store this one instead: "
          + "\(resolution.reference.text)\n")
    }
  }
}
