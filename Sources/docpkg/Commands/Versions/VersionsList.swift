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
      Prints a header, then one line per version: id, date (local time), saved or conflict (resolved or not; \
      a saved version that keeps files on a remote, as a pull keeps the state it replaced, says which), size \
      in bytes, and the entries a conflict version disagrees on. A version whose record is damaged is listed \
      as damaged, and one a save left pending that cannot be settled as pending, each with its record and the \
      reason in the last column; so is a version whose files or trees are missing or damaged in the store, as \
      `docpkg check` finds them (each blob is hashed once; the store remembers which ones it found whole), with \
      the first problem in the last column. Nothing for a package without versions. --json prints [{"id", "state" \
      (saved, conflict, damaged or pending), "date" (seconds since 1970), "origin", "resolved", "size", \
      "conflictPaths"}], "unkeptPaths" for a version that could not keep entries written in place before its \
      copy was made, and "remote" for one that keeps files on a remote (fetched when the version is shown or \
      restored); a damaged or pending one has "id", "state", "record" and "reason" (and "date" when its \
      record says); one whose files are damaged has its usual keys, "state": "damaged" and "problems". Keys \
      are sorted; `docpkg serve` describes versions in the same shape. When a version is damaged as `docpkg \
      check` finds it (its record, a tree or blob, or entries it could not keep), the whole list is still \
      printed, then one line on standard error names the package and the damaged ids, and the exit status is \
      1; a pending version alone does not fail the command.
      """)

  @Argument(help: "The package.", completion: .file())
  var package: String

  @OptionGroup var jsonOption: JSONOption
  private var json: Bool { jsonOption.json }

  func run() throws {
    let store = try VersionStore(forPackageAt: FilePath(package))
    let versions = try store.versions()
    let problems = try store.versionProblems()
    // What `check` finds in the blobs and trees, past the entries a version could not keep (listed
    // first, and shown as "not kept"); its damaged records are in `problems` already.
    let unkeptCounts = Dictionary(versions.map { ($0.id, $0.unkeptPaths.count) }, uniquingKeysWith: { a, _ in a })
    let damagedVersions = try store.damagedVersions()
    let damage = Dictionary(
      damagedVersions.compactMap { damage -> (Int, [String])? in
        let problems = Array(damage.problems.dropFirst(unkeptCounts[damage.id] ?? 0))
        return problems.isEmpty ? nil : (damage.id, problems)
      }, uniquingKeysWith: { first, _ in first })
    let out = StandardOutput.shared
    // Versions and problems by id: a damaged or pending version is listed where it belongs.
    let entries: [(id: Int, version: PackageVersion?, problem: VersionProblem?)] =
      (versions.map { ($0.id, $0, nil) } + problems.map { ($0.id, nil, $0) }).sorted { $0.id < $1.id }
    if json {
      let items = entries.map { entry in
        entry.version.map { VersionSummary($0, problems: damage[$0.id]) } ?? VersionSummary(entry.problem!)
      }
      out.write(VersionSummary.json(items) + "\n")
    } else {
      writeTable(entries, damage: damage, to: out)
    }
    // What `check` calls damaged (damaged records, blobs and trees, entries not kept) fails the
    // command once the whole list is printed: a command that finds damage never exits 0.
    let failed = damagedVersions.map(\.id)
    guard failed.isEmpty else {
      throw PackageError(
        .corrupt,
        "\(failed.count) of \(Set(entries.map(\.id) + failed).count) versions damaged (\(failed.map { String($0) }.joined(separator: ", "))) in",
        path: package)
    }
  }

  /// The list as a table: a header, then one row per version.
  private func writeTable(
    _ entries: [(id: Int, version: PackageVersion?, problem: VersionProblem?)], damage: [Int: [String]],
    to out: StandardOutput
  ) {
    guard !entries.isEmpty else { return }
    let rows = entries.map { entry in
      guard let version = entry.version else {
        let problem = entry.problem!
        let record = "\(problem.recordPath.string): \(problem.reason)"
        return ["\(problem.id)", problem.date?.localTimestamp ?? "-", problem.state.rawValue, "-", record]
      }
      if let problems = damage[version.id], let first = problems.first {
        let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
        return ["\(version.id)", version.date.localTimestamp, "damaged", Int64(version.size).grouped, first + more]
      }
      let state =
        version.origin == .conflict
        ? (version.isResolved ? "conflict (resolved)" : "conflict (unresolved)")
        : !version.unkeptPaths.isEmpty
          ? "saved (\(version.unkeptPaths.count) not kept)"
          : version.remote.map { "saved (files on \($0))" } ?? "saved"
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
}
