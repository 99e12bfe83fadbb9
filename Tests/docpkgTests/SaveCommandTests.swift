import Foundation
import TestSupport
import Testing

@Suite("docpkg put, rm and check")
struct SaveCommandTests {
  @Test func putWritesFromStandardInputOrAFileAndCreatesDirectories() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    var result = try Shell.docpkg(["put", package, "Text.txt"], input: Data("stdin\n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    let source = try temp.write("source.bin", "from a file")
    result = try Shell.docpkg(["put", package, "New/Deep/file.bin", source])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: package + "/Text.txt", encoding: .utf8) == "stdin\n")
    #expect(try String(contentsOfFile: package + "/New/Deep/file.bin", encoding: .utf8) == "from a file")
    result = try Shell.docpkg(["put", package, "Images", source])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("docpkg: error: cannot put a file over a directory: 'Images'"))
  }

  @Test func putReadsAPipeGivenAsSourceAsAStream() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    // `<(cmd)`: the shell hands docpkg a pipe as /dev/fd/N; --append reads one the same way.
    let script = #""$0" put "$1" Text.txt <(echo from a pipe) && "$0" put "$1" Text.txt --append <(echo more)"#
    let result = try Shell.run("bash", ["-c", script, Shell.docpkgPath, package], check: false)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: package + "/Text.txt", encoding: .utf8) == "from a pipe\nmore\n")
  }

  @Test func putCreatesAPackageOnlyWhenAsked() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("New.pkg")
    var result = try Shell.docpkg(["put", package, "a.txt"], input: Data("a".utf8))
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: no such package '\(package)'\n")
    result = try Shell.docpkg(["put", package, "a.txt", "--create"], input: Data("a".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: package + "/a.txt", encoding: .utf8) == "a")
  }

  @Test func aRefusedPutCreateLeavesNoPackage() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("New.pkg")
    let missing = temp.appending("missing.txt")
    var result = try Shell.docpkg(["put", package, "a.txt", missing, "--create"])
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: cannot open '\(missing)': No such file or directory\n")
    result = try Shell.docpkg(["put", package, "a/" + String(repeating: "x", count: 300), "--create"], input: Data())
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("docpkg: error: invalid name: 'xxx"), "\(result.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    result = try Shell.docpkg(["put", package, "a.txt", "--create", "--append", "--merge"], input: Data("a".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "saved\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted() == [
        ".New.pkg.docpkg-versions", "New.pkg",
      ])
    #expect(try String(contentsOfFile: package + "/a.txt", encoding: .utf8) == "a")
  }

  @Test func putLeavesNoLockFileAndNeverWritesInsideAPackageByMistake() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let source = try temp.write("source.txt", "x")
    var result = try Shell.docpkg(["put", package, "Text.txt", source])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted()
        == [".Notes.mydoc.docpkg-versions", "Notes.mydoc", "source.txt"])
    let inside = try FileManager.default.contentsOfDirectory(atPath: package).sorted()
    result = try Shell.docpkg(["put", package + "/Text.txt", "x", source])  // a mistaken path: a file
    #expect(result.status == 1)
    #expect(result.standardError == "docpkg: error: not a package (a package is a directory): '\(package)/Text.txt'\n")
    result = try Shell.docpkg(["put", package + "/Images", "x", source])  // a folder of a package
    #expect(result.status == 1)
    #expect(result.standardError.contains("a package cannot lie inside another package: '\(package)' holds"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: package).sorted() == inside)
    #expect(try FileManager.default.contentsOfDirectory(atPath: package + "/Images").sorted() == ["tram.png"])
  }

  @Test func rmRemovesFilesAndDirectoriesOnlyWithR() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    var result = try Shell.docpkg(["rm", package, "Images"])
    #expect(result.status == 1)
    #expect(result.standardError.contains("directory not empty"))
    #expect(FileManager.default.fileExists(atPath: package + "/Images/tram.png"))
    result = try Shell.docpkg(["rm", package, "Images", "-r"])
    #expect(result.status == 0, "\(result.standardError)")
    result = try Shell.docpkg(["rm", package, "Text.txt"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: package).sorted() == ["Index.json", "QuickLook"])
    result = try Shell.docpkg(["rm", package, "Missing"])
    #expect(result.standardError == "docpkg: error: no such entry 'Missing' in '\(package)'\n")
  }

  @Test func checkRecoversAndReports() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    try FileManager.default.moveItem(atPath: package, toPath: temp.appending(".Notes.mydoc.docpkg-old"))
    try temp.write(".Notes.mydoc.docpkg-tmp/partial", "x")
    let result = try Shell.docpkg(["check", package])
    #expect(result.status == 0, "\(result.standardError)")
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("recovered: undid an interrupted save"))
    #expect(lines[1].hasPrefix("recovered: removed the temporary tree"))
    #expect(lines[2] == "ok: \(package): 4 files, 2 directories, 0 symbolic links, 1,038 bytes")
  }

  @Test(.enabled(if: Shell.has("python3")))
  func namesThatAreNotUTF8SurviveASave() throws {
    let temp = try TemporaryDirectory()
    let make =
      "import os; os.makedirs(b'P.pkg/sub'); open(b'P.pkg/\\xff.txt','wb').write(b'r'); "
      + "open(b'P.pkg/sub/\\xfe.txt','wb').write(b's')"
    try Shell.run("python3", ["-c", make], directory: temp.path)
    let result = try Shell.docpkg(["put", temp.appending("P.pkg"), "new.txt"], input: Data("n".utf8))
    #expect(result.status == 0, "\(result.standardError)")
    let list =
      "import os; print(sorted((d + b'/' + f).decode('latin-1') for d, _, fs in os.walk(b'P.pkg') for f in fs))"
    let files = try Shell.run("python3", ["-c", list], directory: temp.path).standardOutput
    #expect(files == "['P.pkg/new.txt', 'P.pkg/sub/\u{FE}.txt', 'P.pkg/\u{FF}.txt']\n")
  }

  /// The reduced crash test: a small package, a subset of system calls, every N (see Tests/Scripts/crash-test.py).
  @Test(.enabled(if: Shell.crashSweeps))
  func killedAtEveryStepThePackageIsOldOrNew() async throws {
    let result = try await offThePool { try Self.crashTest(["--quick"]) }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(" 0 failures"))
  }

  /// One test per scenario, so that the three run beside the other sweeps (each takes minutes).
  @Test(.enabled(if: Shell.crashSweeps), arguments: ["replace root file", "new directories", "add root entry"])
  func killedAtEveryStepWithoutExchangeThePackageIsOldOrNew(scenario: String) async throws {
    let result = try await offThePool { try Self.crashTest(["--quick", "--fallback", "--scenario", scenario]) }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
  }

  /// A save killed at each step while a pending version still reads the files it replaces: after
  /// `check`, every version is whole (issue 35: a kill between the swap and the pending record
  /// used to cost the earlier pending version the replaced files). The exchange of a root file
  /// here (about 100 kills); `make stress` runs every scenario.
  @Test(.enabled(if: Shell.crashSweeps))
  func killedAtEveryStepWithAPendingVersionEveryVersionIsWhole() async throws {
    let result = try await offThePool {
      try Self.crashTest(["--quick", "--pending", "--scenario", "replace root"])
    }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(" 0 failures"))
  }

  /// A save that adds a root folder, killed at each of its fsyncs and renames (among them every
  /// step between its rename into the package and its pending record), with a pending version
  /// waiting and without: after `check`, which exits 0, no version names a path as not kept
  /// (issue 35: recovery recorded no version for such a save, so the earlier pending version took
  /// the new folder for its own and named every file in it; a record without the root's times
  /// before the rename made the killed save's own version name the folder, and `check` fail).
  @Test(.enabled(if: Shell.crashSweeps), arguments: [["--pending"], []])
  func killedAtEveryStepAfterAddingARootFolderNoVersionNamesWhatItNeverHeld(mode: [String]) async throws {
    let result = try await offThePool {
      try Self.crashTest(
        mode + ["--scenario", "add file, new directories", "--syscalls", "fsync,renameat", "--sample", "1"])
    }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(" 0 failures"))
  }

  @Test(.enabled(if: Shell.crashSweeps))
  func injectedErrorsLeaveThePackageIntact() async throws {
    let result = try await offThePool { try Self.crashTest(["--quick", "--no-crash", "--errors"]) }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
  }

  /// A save that fails after its swap (a full disk at the flush of its folder, at its pending record, or where it
  /// moves the replaced file into the store) while a pending version waits: it swaps back, and the pending version
  /// is still whole (issue 35: the two renames moved the folder's times after the pending version's capture, and
  /// `check` named the folder, or the package's root, as not kept: 52 of 228 failures injected).
  @Test(.enabled(if: Shell.crashSweeps))
  func injectedErrorsAfterTheSwapLeaveThePendingVersionWhole() async throws {
    let result = try await offThePool {
      try Self.crashTest([
        "--quick", "--no-crash", "--errors", "--pending", "--syscalls", "openat,fsync,renameat,renameat2,write",
      ])
    }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains(", 0 problems"))
  }

  /// A save that fails after its swap (the flush of its folder) while another program writes a file into the folder
  /// it rebuilt (`sub/deep`, to add a file), between the swap and the swap back: the new state with that file is kept beside the package and
  /// named in the error, never removed (outsider attack on issue 35: the file was gone from everywhere, 6 of 6).
  @Test(.enabled(if: Shell.has("strace")))
  func aFileWrittenIntoTheNewStateOfAFailingSaveIsKept() async throws {
    let temp = try TemporaryDirectory()
    let environment = ["DOCPKG_NO_BACKGROUND_SETTLE": "1"]
    func makePackage(_ name: String) throws -> String {
      let package = temp.appending(name)
      try temp.write(name + "/sub/a.txt", "a\n")
      try temp.write(name + "/sub/deep/b.txt", "b\n")
      try Shell.docpkg(["put", package, "sub/a.txt", "-"], input: Data("a2\n".utf8), environment: environment)
      return package
    }
    // The first fsync after the exchange, on a twin made the same way.
    let twin = try makePackage("Twin.pkg")
    let trace = temp.appending("trace")
    try Shell.run(
      "strace",
      [
        "-f", "-qq", "-e", "trace=fsync,renameat2", "-o", trace, Shell.docpkgPath, "put", twin,
        "sub/deep/new.txt", "-",
      ], input: Data("new\n".utf8), environment: environment)
    var fsyncs = 0
    var flush: Int?
    var exchanged = false
    for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
      if line.contains("RENAME_EXCHANGE") && line.contains(".docpkg-tmp") { exchanged = true }  // not a probe's
      if line.contains("fsync(") {
        fsyncs += 1
        if exchanged {
          flush = fsyncs
          break
        }
      }
    }
    let call = try #require(flush)
    let package = try makePackage("Doc.pkg")
    let deep = package + "/sub/deep"
    let before = try FileManager.default.attributesOfItem(atPath: deep)[.systemFileNumber] as? Int
    // Once the new `sub/deep` is in place (a new inode there, for the 5 s the save waits before its flush fails),
    // another program writes into it. (A loaded machine may take seconds to get the save there.) The twin's count
    // can be short of this save's (one CI run of a loaded machine failed a flush before the swap): a save that failed
    // before its swap left the package as it was, and the next fsync is tried.
    var swapped = false
    var outcome: Shell.Output?
    for offset in 0..<4 where !swapped {
      let finished = Finished()
      let put = Task {
        defer { finished.mark() }
        return try await offThePool {
          try Shell.run(
            "strace",
            [
              "-f", "-qq", "-o", "/dev/null", "-e", "inject=fsync:error=EIO:delay_enter=5000000:when=\(call + offset)",
              Shell.docpkgPath, "put", package, "sub/deep/new.txt", "-",
            ], input: Data("new\n".utf8),
            environment: environment, check: false)
        }
      }
      for _ in 0..<6000 where !swapped && !finished.isMarked {
        try await Task.sleep(for: .milliseconds(10))
        swapped = (try? FileManager.default.attributesOfItem(atPath: deep)[.systemFileNumber] as? Int) != before
      }
      if swapped { try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: deep + "/theirs.txt")) }
      outcome = try await put.value
    }
    #expect(swapped)
    let result = try #require(outcome)
    #expect(result.status == 1)
    let kept = temp.appending(".Doc.pkg.docpkg-unsaved")
    #expect(result.standardError.contains("kept at '\(kept)'"), "\(result.standardError)")
    // The tree kept is the new `sub/deep` (what the save swapped in).
    #expect(try String(contentsOfFile: kept + "/theirs.txt", encoding: .utf8) == "theirs\n")
    #expect(!FileManager.default.fileExists(atPath: deep + "/new.txt"))
    #expect(try Shell.docpkg(["check", package]).status == 0)
  }

  @Test(.enabled(if: Shell.has("python3")))
  func concurrentPutsAreAllKept() async throws {
    let result = try await offThePool { try Self.crashTest(["--no-crash", "--concurrency", "30"]) }
    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    #expect(result.standardOutput.contains("-> 60 entries present (ok)"))
  }

  static func crashTest(_ arguments: [String]) throws -> Shell.Output {
    let script = Fixtures.script("crash-test.py")
    return try Shell.run("python3", [script, "--docpkg", Shell.sweepDocpkgPath] + arguments, check: false)
  }
}

/// Whether a task has finished, read by another.
private final class Finished: @unchecked Sendable {
  private let lock = NSLock()
  private var marked = false
  func mark() { lock.withLock { marked = true } }
  var isMarked: Bool { lock.withLock { marked } }
}
