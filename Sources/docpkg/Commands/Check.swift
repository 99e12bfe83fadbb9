import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg check PACKAGE`: settles an interrupted save and verifies the package can be read.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Recover an interrupted save and verify a package.",
    discussion: """
      Removes what an interrupted save left beside the package and, if the package itself is missing, \
      moves the complete new state (or the previous one) back in; then lists every directory of the package. \
      Prints what it did. Exits 0 when the package is consistent.
      """
  )

  @Argument(help: "The package.", completion: .file())
  var package: String

  func run() throws {
    let out = StandardOutput.shared
    let actions = try PackageFile.recover(at: FilePath(package))
    for action in actions {
      out.write("recovered: \(action.description) \(action.path.escapingControlCharacters)\n")
    }
    var files: Int64 = 0, directories: Int64 = 0, links: Int64 = 0, bytes: Int64 = 0
    let root = try PackageNode(contentsOf: FilePath(package))
    try root.walk { node, path, _ in
      switch node.kind {
      case .file:
        files += 1
        bytes += node.size
      case .directory: if !path.isEmpty { directories += 1 }
      case .symlink: links += 1
      }
      return true
    }
    if actions.isEmpty { out.write("nothing to recover\n") }
    out.write(
      "ok: \(package.escapingControlCharacters): \(files.grouped) files, \(directories.grouped) directories, "
        + "\(links.grouped) symbolic links, \(bytes.grouped) bytes\n")
  }
}
