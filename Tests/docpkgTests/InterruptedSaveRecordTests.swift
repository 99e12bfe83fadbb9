import Foundation
import TestSupport
import Testing

/// Issue 35: what recovery believes of a deferred save killed between its swap and its pending record. The save's
/// capture marker (`pending/ID.start`) is all recovery has to write that record from: a marker damaged or edited by
/// hand (or an earlier release's, without checks) is damage, never believed; and the record recovery writes says
/// all the save's would have said, the status of entries the save saw before its own links included.
@Suite("docpkg versions: a save killed after its swap")
struct InterruptedSaveRecordTests {
  /// The commands, run with the detached settler held off, as in the window tests.
  typealias Commands = PendingWindowCommandTests

  /// A package NAME in `temp` with `a.txt` and `b.txt`, saved one after the other, its version settled.
  static func settledPackage(in temp: TemporaryDirectory, _ name: String) throws -> String {
    let package = temp.appending(name)
    try Commands.run(["put", package, "a.txt", "--create"], "a")
    try Commands.run(["put", package, "b.txt"], "b")
    try Commands.run(["versions", "settle", package])
    return package
  }

  /// A package NAME in `temp` whose `file` was saved "a", "b" (settled) and "c": version 3 is pending, its record
  /// at the returned path, what it replaced ("b") beside it.
  static func pendingThirdVersion(in temp: TemporaryDirectory, _ name: String, file: String) throws -> (
    package: String, record: String
  ) {
    let package = temp.appending(name)
    try Commands.run(["put", package, file, "--create"], "a")
    try Commands.run(["put", package, file], "b")
    try Commands.run(["versions", "settle", package])
    try Commands.run(["put", package, file], "c")
    return (package, Self.pending(of: package) + "/3")
  }

  static func pending(of package: String) -> String {
    let url = URL(fileURLWithPath: package)
    return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).docpkg-versions/pending")
      .path
  }

  /// The one line of `docpkg check` that names `record`: `check` must exit 1 and name it on exactly one line.
  static func checkLine(naming record: String, _ package: String) throws -> String? {
    let check = try Shell.docpkg(["check", package], environment: Commands.noBackground)
    #expect(check.status == 1, "\(check.standardOutput)")
    let lines = check.standardOutput.split(separator: "\n").filter { $0.contains("'\(record)'") }
    #expect(lines.count == 1, "\(check.standardOutput)")
    return lines.first.map(String.init)
  }

  /// Runs `docpkg ARGUMENTS` killed (strace) at its first rename into the store's `pending/`: the save has swapped
  /// and is moving the replaced entry into the store, before its record. Expects the capture marker of version
  /// `id` left behind, and no record.
  static func killedAfterSwap(_ arguments: [String], _ input: String, package: String, id: Int) throws {
    let pending = Self.pending(of: package)
    let killed = try Shell.run(
      "/usr/bin/env",
      [
        "DOCPKG_NO_BACKGROUND_SETTLE=1", "strace", "-f", "-o", "/dev/null", "-P", pending, "-e", "trace=renameat",
        "-e", "inject=renameat:signal=KILL:when=1", Shell.docpkgPath,
      ] + arguments, input: Data(input.utf8), check: false)
    #expect(killed.status != 0, "the save was not killed: \(killed.standardError)")
    #expect(FileManager.default.fileExists(atPath: pending + "/\(id).start"))
    #expect(!FileManager.default.fileExists(atPath: pending + "/\(id)"))
  }

  /// Appends `text` to the file at `path` (another program, after the save).
  static func append(_ text: String, to path: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    handle.closeFile()
  }

  /// Moves the time on each line of `text` that starts with one of `keys` an hour later.
  static func movingTimesLater(_ text: String, on keys: [String]) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      guard let key = keys.first(where: { line.hasPrefix($0 + " ") }) else { return String(line) }
      let rest = line.dropFirst(key.count + 1)
      guard let seconds = Int(rest.prefix { $0 != "." }) else { return String(line) }
      return "\(key) \(seconds + 3600)" + rest.drop { $0 != "." }
    }.joined(separator: "\n")
  }

  /// `text` as an earlier release wrote it: `header`, and no check at the end of each line.
  static func unchecked(_ text: String, header: String) -> String {
    var lines = text.split(separator: "\n").map { line in
      line.lastIndex(of: " ").map { String(line[..<$0]) } ?? String(line)
    }
    lines[0] = header
    return lines.joined(separator: "\n") + "\n"
  }

  /// A capture marker whose time was moved later by hand (or one without checks, so moved), then a file appended
  /// to: recovery believed the marker, and the version held the appended bytes while `check` said ok.
  @Test(.enabled(if: Shell.has("strace")), arguments: ["edited", "unchecked"])
  func aCaptureMarkerNotWholeIsDamageNotBelieved(_ damage: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Self.settledPackage(in: temp, "M.mydoc")
    try Self.killedAfterSwap(["put", package, "a.txt"], "new", package: package, id: 3)
    let marker = Self.pending(of: package) + "/3.start"
    let text = try String(contentsOfFile: marker, encoding: .utf8)
    var edited = Self.movingTimesLater(text, on: ["start", "before-swap"])
    #expect(edited != text)
    if damage == "unchecked" { edited = Self.unchecked(edited, header: "docpkg-save-intent 1") }
    try Data(edited.utf8).write(to: URL(fileURLWithPath: marker))
    try Self.append("OUT", to: package + "/b.txt")

    let record = Self.pending(of: package) + "/3"
    let line = try Self.checkLine(naming: record, package)
    #expect(line?.contains("damaged pending version record") == true, "\(String(describing: line))")
    #expect(line?.contains("capture marker of a save killed after its swap") == true, "\(String(describing: line))")
    let why = damage == "edited" ? "does not match its check" : "an earlier release wrote it"
    #expect(line?.contains(why) == true, "\(String(describing: line))")
    // The save's change stays; what it replaced is kept in the store for whoever repairs the record.
    #expect(FileManager.default.contents(atPath: package + "/a.txt") == Data("new".utf8))
    #expect(FileManager.default.contents(atPath: record + ".old") == Data("a".utf8))
    // Never settled as good, however often asked.
    #expect(try Shell.docpkg(["versions", "settle", package], environment: Commands.noBackground).status == 0)
    #expect(FileManager.default.fileExists(atPath: record))
    let list = try Shell.docpkg(["versions", "list", package])
    #expect(list.status == 1)
    #expect(list.standardOutput.split(separator: "\n").last?.hasPrefix("3 ") == true, "\(list.standardOutput)")
    #expect(list.standardOutput.split(separator: "\n").last?.contains("damaged") == true, "\(list.standardOutput)")
    #expect(try Shell.docpkg(["cat", package + "@3", "b.txt"]).standardOutput != "bOUT")
    // Saves go on, and their versions settle.
    try Commands.run(["put", package, "a.txt"], "newer")
    try Commands.run(["versions", "settle", package])
    #expect(try Commands.run(["cat", package + "@4", "a.txt"]).standardOutput == "new")
  }

  /// The marker's own time moved later (`touch`, a backup tool) says nothing: the capture time is a checked line.
  @Test(.enabled(if: Shell.has("strace")))
  func aCaptureMarkerTouchedLaterMovesNoCaptureTime() throws {
    let temp = try TemporaryDirectory()
    let package = try Self.settledPackage(in: temp, "T.mydoc")
    try Self.killedAfterSwap(["put", package, "a.txt"], "new", package: package, id: 3)
    try Self.append("OUT", to: package + "/b.txt")
    try Shell.run("/usr/bin/touch", ["-d", "+1 hour", Self.pending(of: package) + "/3.start"])

    let check = try Shell.docpkg(["check", package], environment: Commands.noBackground)
    #expect(check.standardOutput.contains("recorded pending version 3"), "\(check.standardOutput)")
    #expect(check.status == 1, "\(check.standardOutput)")
    let lines = check.standardOutput.split(separator: "\n").filter { $0.hasPrefix("damaged: version 3: ") }
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 3: b.txt: not kept "], "\(lines)")
    #expect(try Commands.run(["cat", package + "@3", "a.txt"]).standardOutput == "a")
  }

  /// A pending record an earlier release wrote (`docpkg-pending 1`, no checks): nothing tells it whole, so it is
  /// damage, named, its replaced files left in place; it was settled as it said.
  @Test func anUncheckedPendingRecordIsDamageNotSettled() throws {
    let temp = try TemporaryDirectory()
    let (package, record) = try Self.pendingThirdVersion(in: temp, "U.mydoc", file: "a.txt")
    let text = try String(contentsOfFile: record, encoding: .utf8)
    try Data(Self.unchecked(text, header: "docpkg-pending 1").utf8).write(to: URL(fileURLWithPath: record))

    let line = try Self.checkLine(naming: record, package)
    #expect(line?.contains("an earlier release wrote it ('docpkg-pending 1')") == true, "\(String(describing: line))")
    #expect(FileManager.default.contents(atPath: record + ".old") == Data("b".utf8))
    #expect(FileManager.default.fileExists(atPath: record))
    #expect(try Shell.docpkg(["versions", "list", package]).status == 1)
  }

  /// `text` without the line that `which` picks among the lines after the header: `first`, the last before the
  /// last `count` line (`beforeCount`), or the last line (`last`).
  static func removingLine(_ text: String, _ which: String) throws -> String {
    var lines = text.split(separator: "\n").map(String.init)
    let index: Int
    switch which {
    case "first": index = 1
    case "beforeCount": index = try #require(lines.lastIndex { $0.hasPrefix("count ") }) - 1
    default: index = lines.count - 1
    }
    lines.remove(at: index)
    return lines.joined(separator: "\n") + "\n"
  }

  /// A whole line removed from a pending record (not damaged: every line left matches its own check): the record is
  /// damage, named, never settled as it now says (a `seen`, `container` or `keep` line removed would let the version
  /// keep what a change hid, or trust a directory, or keep more versions).
  @Test(arguments: ["first", "beforeCount", "last"])
  func aPendingRecordWithALineRemovedIsDamage(_ which: String) throws {
    let temp = try TemporaryDirectory()
    let (package, record) = try Self.pendingThirdVersion(in: temp, "R.mydoc", file: "d/a.txt")
    let text = try String(contentsOfFile: record, encoding: .utf8)
    #expect(text.contains("\ncontainer "), "\(text)")
    try Data(try Self.removingLine(text, which).utf8).write(to: URL(fileURLWithPath: record))

    let line = try Self.checkLine(naming: record, package)
    #expect(line?.contains("damaged pending version record") == true, "\(String(describing: line))")
    #expect(line?.contains("missing") == true, "\(String(describing: line))")
    #expect(FileManager.default.contents(atPath: record + ".old") == Data("b".utf8))
    #expect(try Shell.docpkg(["versions", "list", package]).status == 1)
  }

  /// A whole line removed from the capture marker of a save killed after its swap: recovery does not believe it,
  /// and keeps it as a damaged record, named by `check`.
  @Test(.enabled(if: Shell.has("strace")), arguments: ["first", "beforeCount", "last"])
  func aCaptureMarkerWithALineRemovedIsDamageNotBelieved(_ which: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Self.settledPackage(in: temp, "L.mydoc")
    try Self.killedAfterSwap(["put", package, "a.txt"], "new", package: package, id: 3)
    let marker = Self.pending(of: package) + "/3.start"
    let text = try String(contentsOfFile: marker, encoding: .utf8)
    #expect(text.split(separator: "\n").filter { $0.hasPrefix("count ") }.count == 4, "\(text)")
    try Data(try Self.removingLine(text, which).utf8).write(to: URL(fileURLWithPath: marker))

    let record = Self.pending(of: package) + "/3"
    let line = try Self.checkLine(naming: record, package)
    #expect(line?.contains("capture marker of a save killed after its swap") == true, "\(String(describing: line))")
    #expect(line?.contains("missing") == true, "\(String(describing: line))")
    #expect(FileManager.default.contents(atPath: record + ".old") == Data("a".utf8))
  }

  /// PendingWindowCommandTests' write hidden by the next save's own link, with that save killed after its swap:
  /// recovery wrote its record without what the save saw before linking the file, and version 4 held the new bytes
  /// while `check` said ok.
  @Test(.enabled(if: Shell.has("strace")))
  func aWriteHiddenByAKilledSavesLinkIsNamed() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try Commands.run(["put", package, "d/a.txt", "--create"], "a\n")
    try Commands.run(["put", package, "e/x.txt"], "xxxx\n")
    try Commands.run(["put", package, "e/other.txt"], "o\n")
    try Commands.run(["versions", "settle", package])
    try Commands.run(["put", package, "d/a.txt"], "b\n")  // version 4: the state with x.txt = xxxx
    try Commands.writeInPlaceKeepingTime(package + "/e/x.txt", "YYYY")
    // Version 5: adds a folder to e/, so rebuilds e/, linking x.txt into the new one; killed before its record.
    try Self.killedAfterSwap(["put", package, "e/sub/new.txt"], "n\n", package: package, id: 5)

    let check = try Shell.docpkg(["check", package], environment: Commands.noBackground)
    #expect(check.standardOutput.contains("recorded pending version 5"), "\(check.standardOutput)")
    #expect(check.status == 1, "\(check.standardOutput)")
    let lines = check.standardOutput.split(separator: "\n").filter { $0.hasPrefix("damaged: version 4: ") }
    #expect(lines.map { $0.prefix { $0 != "(" } } == ["damaged: version 4: e/x.txt: not kept "], "\(lines)")
    let shown = try Shell.docpkg(["versions", "show", package, "4", "e/x.txt"], environment: Commands.noBackground)
    #expect(shown.standardOutput != "YYYY\n")
    #expect(try Commands.run(["cat", package + "@5", "e/other.txt"]).standardOutput == "o\n")
    #expect(FileManager.default.contents(atPath: package + "/e/sub/new.txt") == Data("n\n".utf8))
  }
}
