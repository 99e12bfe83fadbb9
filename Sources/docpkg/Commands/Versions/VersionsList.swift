import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions list PACKAGE [--json]`.
struct VersionsList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List a package's versions, oldest first.")

  @Argument(help: "The package.")
  var package: String

  @OptionGroup var jsonOption: JSONOption
  private var json: Bool { jsonOption.json }

  func run() throws {
    let versions = try VersionStore(forPackageAt: FilePath(package)).versions()
    let out = StandardOutput.shared
    if json {
      let items = versions.map { version in
        let paths = version.conflictPaths.map(\.jsonQuoted).joined(separator: ",")
        return "{\"id\":\(version.id),\"date\":\(version.date.timeIntervalSince1970),"
          + "\"origin\":\"\(version.origin.rawValue)\",\"resolved\":\(version.isResolved),"
          + "\"size\":\(version.size),\"conflictPaths\":[\(paths)]}"
      }
      out.write("[" + items.joined(separator: ",") + "]\n")
      return
    }
    for version in versions {
      let state =
        version.origin == .conflict ? (version.isResolved ? "conflict (resolved)" : "conflict (unresolved)") : "saved"
      let seconds = Int64(version.date.timeIntervalSince1970)
      var line = "\(version.id)  \(seconds)  \(state)  \(Int64(version.size).grouped) bytes"
      if !version.conflictPaths.isEmpty { line += "  " + version.conflictPaths.joined(separator: ", ") }
      out.write(line.escapingControlCharacters + "\n")
    }
  }
}
