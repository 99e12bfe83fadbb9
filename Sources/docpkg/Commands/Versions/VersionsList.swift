import ArgumentParser
import DocPkgCommandLine
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `docpkg versions list PACKAGE [--json]`.
struct VersionsList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List a package's versions, oldest first.",
    discussion: """
      Prints a header, then one line per version: id, date (local time), saved or conflict (resolved or not), \
      size in bytes, and the entries a conflict version disagrees on. Nothing for a package without versions. \
      --json prints [{"id", "date" (seconds since 1970), "origin", "resolved", "size", "conflictPaths"}], and \
      "unkeptPaths" for a version that could not keep entries written in place before its copy was made.
      """)

  @Argument(help: "The package.", completion: .file())
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
          + "\"size\":\(version.size),\"conflictPaths\":[\(paths)]" + unkept(version) + "}"
      }
      out.write("[" + items.joined(separator: ",") + "]\n")
      return
    }
    guard !versions.isEmpty else { return }
    let rows = versions.map { version in
      let state =
        version.origin == .conflict
        ? (version.isResolved ? "conflict (resolved)" : "conflict (unresolved)")
        : version.unkeptPaths.isEmpty ? "saved" : "saved (\(version.unkeptPaths.count) not kept)"
      return [
        "\(version.id)", version.date.localTimestamp, state, Int64(version.size).grouped,
        version.conflictPaths.joined(separator: ", "),
      ]
    }
    let header = ["ID", "DATE", "STATE", "BYTES", "CONFLICTS"]
    let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    for row in [header] + rows {
      let cells = row.enumerated().map { column, cell in
        // Bytes align right, like ls -l; the last column is not padded.
        let pad = String(repeating: " ", count: widths[column] - cell.count)
        return column == 3 ? pad + cell : column == row.count - 1 ? cell : cell + pad
      }
      var line = cells.joined(separator: "  ")
      while line.hasSuffix(" ") { line.removeLast() }
      out.write(line.escapingControlCharacters + "\n")
    }
  }

  /// `,"unkeptPaths":[...]` for a version with entries it could not keep, else nothing.
  private func unkept(_ version: PackageVersion) -> String {
    guard !version.unkeptPaths.isEmpty else { return "" }
    return ",\"unkeptPaths\":[" + version.unkeptPaths.map(\.jsonQuoted).joined(separator: ",") + "]"
  }
}
