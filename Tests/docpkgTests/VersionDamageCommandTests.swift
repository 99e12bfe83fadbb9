import Foundation
import TestSupport
import Testing

/// Issue 23: the version store never says ok about damage. Each test damages one thing after
/// five saves and checks what `check`, `versions list` and the settler do about it.
@Suite("docpkg versions: damage is reported, never dropped")
struct VersionDamageCommandTests {
  /// Saves run without the detached settler, so a test decides when settling happens.
  static let noBackground = ["DOCPKG_NO_BACKGROUND_SETTLE": "1"]

  /// Five saves of `a.txt` ("0" to "4"): version (or pending version) 1 is the empty package the
  /// first one created, 2 to 5 hold "0" to "3".
  static func fiveSaves(_ package: String, as user: [String] = []) throws {
    for index in 0..<5 {
      let arguments = ["put", package, "a.txt"] + (index == 0 ? ["--create"] : [])
      let result =
        user.isEmpty
        ? try Shell.docpkg(arguments, input: Data("\(index)".utf8), environment: noBackground)
        : try Shell.run(
          "/usr/bin/setpriv", user + [Shell.docpkgPath] + arguments, input: Data("\(index)".utf8),
          environment: noBackground, check: false)
      #expect(result.status == 0, "\(result.standardError)")
    }
  }

  static func store(of package: String) -> String {
    let url = URL(fileURLWithPath: package)
    return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).docpkg-versions").path
  }

  /// The `versions list` rows after the header, split into cells. With `damaged` ids, the command
  /// printed every row and then failed (exit 1) with one line naming the package and those ids.
  static func rows(_ package: String, damaged: [Int] = [], of total: Int = 0) throws -> [[Substring]] {
    let result = try Shell.docpkg(["versions", "list", package])
    expectListing(result, damaged: damaged, of: total, package: package)
    return result.standardOutput.split(separator: "\n").dropFirst().map { $0.split(separator: " ") }
  }

  /// `versions list` (text or JSON) exited 0 with nothing on standard error, or, with `damaged` ids,
  /// exited 1 with one summary line on standard error.
  static func expectListing(
    _ result: Shell.Output, damaged: [Int], of total: Int, package: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard !damaged.isEmpty else {
      #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
      #expect(result.standardError.isEmpty, sourceLocation: sourceLocation)
      return
    }
    let ids = damaged.map { String($0) }.joined(separator: ", ")
    #expect(result.status == 1, sourceLocation: sourceLocation)
    #expect(
      result.standardError
        == "docpkg: error: \(damaged.count) of \(total) versions damaged (\(ids)) in '\(package)'\n",
      sourceLocation: sourceLocation)
  }

  /// Issue 35: a blob deleted or with a byte flipped is marked in `versions list` (text and JSON) on
  /// the versions that hold it, as `check` reports it.
  @Test(arguments: ["deleted", "flipped"])
  func aDamagedBlobIsMarkedInTheList(_ damage: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("B.mydoc")
    try Self.fiveSaves(package)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    // Version 3 holds "1": the only version with that blob.
    let hash = try Shell.run("/bin/sh", ["-c", "printf 1 | sha256sum | cut -c1-64"]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let blob = Self.store(of: package) + "/objects/" + hash.prefix(2) + "/" + hash.dropFirst(2)
    if damage == "deleted" {
      try FileManager.default.removeItem(atPath: blob)
    } else {
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: blob)
      try Data("7".utf8).write(to: URL(fileURLWithPath: blob))
    }
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1, "\(check.standardOutput)")
    #expect(check.standardOutput.contains("damaged: version 3: a.txt: blob"), "\(check.standardOutput)")
    // The whole list is printed, the damaged version marked, and the command fails.
    let rows = try Self.rows(package, damaged: [3], of: 5)
    #expect(rows.map { $0[0] } == ["1", "2", "3", "4", "5"])
    #expect(rows.filter { $0.contains("damaged") }.map { $0[0] } == ["3"], "\(rows)")
    let listing = try Shell.docpkg(["versions", "list", package, "--json"])
    Self.expectListing(listing, damaged: [3], of: 5, package: package)
    let json = listing.standardOutput
    let listed = listedVersions(json)
    #expect(listed.keys.sorted() == [1, 2, 3, 4, 5], "\(json)")
    #expect(listed[3]?["state"] as? String == "damaged", "\(json)")
    #expect((listed[3]?["problems"] as? [String])?.first?.hasPrefix("a.txt: blob") == true, "\(json)")
    #expect(listed[2]?["state"] as? String == "saved", "\(json)")
  }

  @Test func aTruncatedRecordIsReportedByCheckAndMarkedInTheList() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("T.mydoc")
    try Self.fiveSaves(package)
    let record = Self.store(of: package) + "/versions/3"
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    let whole = try Data(contentsOf: URL(fileURLWithPath: record))
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: record))

    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    #expect(!check.standardOutput.contains("versions\n"))
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(record) }
    #expect(lines.count == 1, "\(check.standardOutput)")
    #expect(lines.first?.contains("damaged version record") == true, "\(check.standardOutput)")

    let rows = try Self.rows(package, damaged: [3], of: 5)
    #expect(rows.map { $0[0] } == ["1", "2", "3", "4", "5"])
    #expect(rows.count == 5 && rows[2].contains("damaged"), "\(rows)")
    let json = try Shell.docpkg(["versions", "list", package, "--json"]).standardOutput
    #expect(listedVersions(json)[3]?["state"] as? String == "damaged", "\(json)")
    // The record is left as it was for whoever repairs it.
    #expect(try Data(contentsOf: URL(fileURLWithPath: record)) == whole.prefix(whole.count / 2))
  }

  /// A settled record changed after it was written (its date, size or root mode edited by hand) is damage: a
  /// record now ends with a check of its other lines (outsider attack on issue 35: `check` and `versions list`
  /// took it as it was, and `versions show` showed the edited mode).
  @Test(arguments: ["date", "size", "root"])
  func anEditedSettledRecordIsReportedAndMarkedInTheList(_ line: String) throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("E.mydoc")
    try Self.fiveSaves(package)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    #expect(try Shell.docpkg(["check", package]).status == 0)
    let record = Self.store(of: package) + "/versions/2"
    let text = try String(contentsOfFile: record, encoding: .utf8)
    let edited = text.split(separator: "\n", omittingEmptySubsequences: false).map { field -> String in
      guard field.hasPrefix(line + " ") else { return String(field) }
      // One digit changed, the last of the value (of the mode, on the root's line): to 7, or 7 to 0.
      var parts = field.split(separator: " ").map(String.init)
      let index = line == "root" ? 2 : 1
      let last = parts[index].removeLast()
      parts[index].append(last == "7" ? "0" : "7")
      return parts.joined(separator: " ")
    }.joined(separator: "\n")
    #expect(edited != text)
    try edited.write(toFile: record, atomically: false, encoding: .utf8)
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1, "\(check.standardOutput)")
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(record) }
    #expect(lines.first?.contains("do not match its check") == true, "\(check.standardOutput)")
    let rows = try Self.rows(package, damaged: [2], of: 5)
    #expect(rows.count == 5 && rows[1].contains("damaged"), "\(rows)")
  }

  /// Outsider attack on issue 35: a record file deleted from the store left a silent gap (`versions list` skipped the
  /// id, `check` said ok). Now it is damage, named with its path; a version removed by `versions remove` is not.
  @Test func aDeletedRecordIsReportedAndMarkedButARemovedVersionIsNot() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("G.mydoc")
    try Self.fiveSaves(package)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    #expect(try Shell.docpkg(["versions", "remove", package, "2"]).status == 0)
    #expect(try Shell.docpkg(["check", package]).status == 0)
    let record = Self.store(of: package) + "/versions/3"
    try FileManager.default.removeItem(atPath: record)

    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(record) }
    #expect(lines.count == 1, "\(check.standardOutput)")
    #expect(lines.first?.contains("record is missing") == true, "\(check.standardOutput)")
    #expect(!check.standardOutput.contains("/versions/2'"), "\(check.standardOutput)")

    let rows = try Self.rows(package, damaged: [3], of: 4)
    #expect(rows.map { $0[0] } == ["1", "3", "4", "5"], "\(rows)")
    #expect(rows.count == 4 && rows[1].contains("damaged"), "\(rows)")
  }

  /// Outsider attack on issue 35 (M1): the newest record deleted (nothing follows it to tell) left `check` saying ok.
  /// Now the store notes the newest id recorded, so the newest record missing is damage too; the newest version
  /// removed by `versions remove` is not.
  @Test func aDeletedNewestRecordIsReportedButARemovedNewestVersionIsNot() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("N.mydoc")
    try Self.fiveSaves(package)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    #expect(try Shell.docpkg(["versions", "remove", package, "5"]).status == 0)
    #expect(try Shell.docpkg(["check", package]).status == 0)
    #expect(
      try Shell.docpkg(["put", package, "a.txt"], input: Data("5".utf8), environment: Self.noBackground).status == 0)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    // The newest, then the one before it too (with 6's record gone, nothing names 4: 1, 2, 3 and 6 are listed).
    for (id, listed) in [(6, 5), (4, 4)] {
      let record = Self.store(of: package) + "/versions/\(id)"
      try FileManager.default.removeItem(atPath: record)
      let check = try Shell.docpkg(["check", package])
      #expect(check.status == 1, "\(check.standardOutput)")
      let newest = Self.store(of: package) + "/versions/6"
      let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(newest) }
      #expect(lines.first?.contains("record is missing") == true, "\(check.standardOutput)")
      let rows = try Self.rows(package, damaged: [6], of: listed)
      #expect(rows.last?.first == "6" && rows.last?.contains("damaged") == true, "\(rows)")
    }
  }

  @Test func garbageInAPendingRecordKeepsTheReplacedBytesAndIsReported() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("G.mydoc")
    try Self.fiveSaves(package)
    let pending = Self.store(of: package) + "/pending/3"
    let old = pending + ".old"
    #expect(FileManager.default.contents(atPath: old) == Data("1".utf8))
    try Data("garbage\u{1}\u{2}\n".utf8).write(to: URL(fileURLWithPath: pending))

    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    // The only copy of version 3's bytes is still there, and so is its record.
    #expect(FileManager.default.contents(atPath: old) == Data("1".utf8))
    #expect(FileManager.default.fileExists(atPath: pending))

    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(pending) }
    #expect(lines.count == 1, "\(check.standardOutput)")
    #expect(lines.first?.contains("damaged pending version record") == true, "\(check.standardOutput)")
    #expect(FileManager.default.contents(atPath: old) == Data("1".utf8))

    let rows = try Self.rows(package, damaged: [3], of: 5)
    #expect(rows.map { $0[0] } == ["1", "2", "3", "4", "5"])
    #expect(rows.count == 5 && rows[2].contains("damaged"), "\(rows)")
    #expect(try Shell.docpkg(["cat", package + "@4", "a.txt"]).standardOutput == "2")
    let json = try Shell.docpkg(["versions", "list", package, "--json"]).standardOutput
    #expect(listedVersions(json)[3]?["state"] as? String == "damaged", "\(json)")
  }

  /// Outsider attack (issue 35): a pending record's `start` line moved later, then a file of the package
  /// appended to: the settle believed the edited capture time and put the appended bytes into the version. Each
  /// line of a pending record carries a check of the rest of it, as the hash cache's lines do: the edited record
  /// is reported as damaged and never settled.
  @Test func anEditedPendingRecordIsDamageNotTrusted() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("E.mydoc")
    try Self.fiveSaves(package)
    #expect(
      try Shell.docpkg(["put", package, "b.txt"], input: Data("b".utf8), environment: Self.noBackground).status == 0)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    #expect(
      try Shell.docpkg(["put", package, "a.txt"], input: Data("x".utf8), environment: Self.noBackground).status == 0)
    let pending = Self.store(of: package) + "/pending/7"
    let text = try String(contentsOfFile: pending, encoding: .utf8)
    let edited = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      guard line.hasPrefix("start "), let seconds = Int(line.dropFirst(6).prefix { $0 != "." }) else {
        return String(line)
      }
      return "start \(seconds + 3600)" + line.drop { $0 != "." }
    }.joined(separator: "\n")
    #expect(edited != text)
    try Data(edited.utf8).write(to: URL(fileURLWithPath: pending))
    let handle = try #require(FileHandle(forWritingAtPath: package + "/b.txt"))
    handle.seekToEndOfFile()
    handle.write(Data("OUT".utf8))
    handle.closeFile()

    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    #expect(FileManager.default.fileExists(atPath: pending))
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains(pending) }
    #expect(lines.count == 1, "\(check.standardOutput)")
    #expect(lines.first?.contains("damaged pending version record") == true, "\(check.standardOutput)")
    #expect(lines.first?.contains("does not match its check") == true, "\(check.standardOutput)")
    let rows = try Self.rows(package, damaged: [7], of: 7)
    #expect(rows.last?.first == "7" && rows.last?.contains("damaged") == true, "\(rows)")
    #expect(try Shell.docpkg(["cat", package + "@7", "b.txt"]).standardOutput != "bOUT")
  }

  @Test(.enabled(if: getuid() == 0, "running a save as another user needs root (setpriv)"))
  func aSaveThatCannotKeepTheReplacedStateFailsAndChangesNothing() throws {
    let temp = try TemporaryDirectory()
    let user = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    let folder = try temp.makeDirectory("home")
    try Shell.run("/bin/chown", ["65534:65534", folder])
    let package = folder + "/R.mydoc"
    try Self.fiveSaves(package, as: user)
    let put = try Shell.run(
      "/usr/bin/setpriv", user + [Shell.docpkgPath, "put", package, "b.txt"], input: Data("bee".utf8),
      environment: Self.noBackground)
    #expect(put.status == 0)
    #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    try Shell.run("/bin/chown", ["-R", "0:0", package])
    let before = try Shell.run("/bin/ls", ["-liR", "--full-time", package]).standardOutput
    let listed = try Self.rows(package)

    // Removing a root entry renames it out of the root, and replacing one exchanges it there:
    // both fail at that rename, since the package's root is not the user's.
    for (arguments, message) in [
      (["rm", package, "b.txt"], "cannot remove"), (["put", package, "a.txt"], "cannot exchange"),
    ] {
      let result = try Shell.run(
        "/usr/bin/setpriv", user + [Shell.docpkgPath] + arguments, input: Data("new".utf8),
        environment: Self.noBackground, check: false)
      #expect(result.status == 1, "\(arguments): \(result.standardOutput)")
      #expect(result.standardError.hasPrefix("docpkg: error: "), "\(result.standardError)")
      #expect(result.standardError.contains(message), "\(result.standardError)")
      #expect(result.standardError.contains("Permission denied"), "\(result.standardError)")
      // The package is as it was, and nothing half-written is left beside it.
      #expect(try Shell.run("/bin/ls", ["-liR", "--full-time", package]).standardOutput == before)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [".R.mydoc.docpkg-versions", "R.mydoc"])
    }
    #expect(try Self.rows(package) == listed)
    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    #expect(FileManager.default.contents(atPath: package + "/b.txt") == Data("bee".utf8))
    #expect(try Shell.docpkg(["cat", package + "@6", "a.txt"]).standardOutput == "4")
  }

  @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
  func versionsThatCannotSettleOnAFullDiskAreListedAsPendingWithTheReason() throws {
    let temp = try TemporaryDirectory()
    let point = try temp.makeDirectory("small")
    try Shell.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", point])
    defer { _ = try? Shell.run("/bin/umount", [point], check: false) }
    let package = point + "/F.mydoc"
    try Self.fiveSaves(package)
    try Shell.docpkg(
      ["put", package, "big.bin"], input: Data(repeating: 7, count: 1 << 20), environment: Self.noBackground)
    let filler = point + "/filler"
    let fill = try Shell.run("/bin/dd", ["if=/dev/zero", "of=" + filler, "bs=64k"], check: false)
    #expect(fill.standardError.contains("No space left on device"))

    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 1)
    #expect(!check.standardOutput.contains("versions\n"))
    let pendingLines = check.standardOutput.split(separator: "\n").filter { $0.hasPrefix("not settled: ") }
    #expect(pendingLines.count == 6, "\(check.standardOutput)")
    #expect(pendingLines.allSatisfy { $0.contains("/pending/") }, "\(check.standardOutput)")
    #expect(pendingLines.first?.contains("No space left on device") == true, "\(check.standardOutput)")

    let rows = try Self.rows(package)
    #expect(rows.map { $0[0] } == ["1", "2", "3", "4", "5", "6"], "\(rows)")
    #expect(rows.allSatisfy { $0.contains("pending") }, "\(rows)")
    let json = try Shell.docpkg(["versions", "list", package, "--json"]).standardOutput
    #expect(listedVersions(json)[1]?["state"] as? String == "pending", "\(json)")
    #expect(json.contains("No space left on device"), "\(json)")
    let show = try Shell.docpkg(["versions", "show", package, "1"])
    #expect(show.status == 1)
    #expect(show.standardError.contains("version 1 is pending"), "\(show.standardError)")
    #expect(show.standardError.contains("No space left on device"), "\(show.standardError)")

    try FileManager.default.removeItem(atPath: filler)
    let again = try Shell.docpkg(["check", package])
    #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
    #expect(again.standardOutput.contains("ok: 6 versions"))
    #expect(try Shell.docpkg(["cat", package + "@6", "a.txt"]).standardOutput == "4")
  }
}

/// The items of `docpkg versions list --json`'s output, by id.
private func listedVersions(_ json: String) -> [Int: [String: Any]] {
  let items = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]] ?? []
  return Dictionary(
    items.compactMap { item in (item["id"] as? Int).map { ($0, item) } }, uniquingKeysWith: { a, _ in a })
}
