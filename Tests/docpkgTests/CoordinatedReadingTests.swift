import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Readers of a package never combine entries of two saved states while another process saves it
/// (issue 12, "Coordinated reading and writing"): a writer process saves 200 times, each save changing
/// files in several directories to one new generation number (odd saves swap `Data/`, even ones the
/// whole package), while a library reader process and the CLI (`pack`, `inspect --json`, `cat`) read
/// in loops and check that every read shows one generation. Without the read lock, the same library
/// reader mixed two generations in 35 of 466 reads and failed 10 (a file vanished under it).
/// Serialized: each stress test blocks a thread of the cooperative pool (two on this machine) for a
/// minute, and two at once would stall every other suite's waits.
@Suite("Coordinated reading", .serialized)
struct CoordinatedReadingTests {
  /// The `read-write-stress` tool built beside `docpkg` (Benchmarks/Tools/ReadWriteStress).
  static let tool = URL(fileURLWithPath: Shell.docpkgPath).deletingLastPathComponent()
    .appendingPathComponent("read-write-stress").path

  @Test func readersInOtherProcessesSeeOneSavedStateWhileAWriterSaves() async throws {
    let temp = try TemporaryDirectory("coordination")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "5"])
    let stop = temp.appending("stop")
    let reader = try Background(Self.tool, ["read", package, stop], logs: temp.appending("reader"))
    let writer = try Background(Self.tool, ["write", package, "200"], logs: temp.appending("writer"))
    // The CLI's readers take turns in one loop: on two cores, more loops mostly slow the writer.
    let (cliReads, problems) = try await offThePool {
      var cliReads = 0
      var problems: [String] = []
      while writer.isRunning || cliReads == 0 {
        for kind in ["pack", "inspect"] {
          cliReads += 1
          if let problem = Self.readWithCLI(kind, package, in: temp, round: cliReads) { problems.append(problem) }
        }
      }
      return (cliReads, problems)
    }
    let written = writer.wait()
    _ = FileManager.default.createFile(atPath: stop, contents: nil)
    let read = reader.wait()

    #expect(written.status == 0, "\(written.standardError)")
    #expect(written.standardOutput.contains("\"saves\":200,\"errors\":0"), "\(written.standardOutput)")
    #expect(read.status == 0, "\(read.standardError)")
    #expect(read.standardOutput.contains("\"torn\":0,\"errors\":0"), "\(read.standardOutput)")
    #expect(problems.isEmpty, "\(problems.count) of \(cliReads) CLI reads: \(problems.prefix(5))")
    #expect(cliReads >= 2)
  }

  @Test func aReaderHoldsUpAWriterOnlyUntilItsLimitAndTheWriterSavesAfterwards() throws {
    let temp = try TemporaryDirectory("coordination")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "3"])
    let lock = try PackageReadLock(forPackageAt: FilePath(package))
    #expect(lock.isHeld)
    let start = Date()
    let refused = try Shell.run(Self.tool, ["write", package, "1", "300"], check: false)
    #expect(Date().timeIntervalSince(start) < 8)
    #expect(refused.standardOutput.contains("\"saves\":0,\"errors\":1"), "\(refused.standardOutput)")
    #expect(refused.standardError.contains("package is being read by another process (waited 0.3 s), not saved:"))
    #expect(try String(contentsOfFile: package + "/Data/A/gen.txt", encoding: .utf8) == "0")
    lock.unlock()
    let saved = try Shell.run(Self.tool, ["write", package, "1", "300"])
    #expect(saved.standardOutput.contains("\"saves\":1,\"errors\":0"), "\(saved.standardOutput)")
    #expect(try String(contentsOfFile: package + "/Data/A/gen.txt", encoding: .utf8) == "1")
  }

  @Test func readingCreatesNothingBesideOrInsideThePackage() throws {
    let temp = try TemporaryDirectory("coordination")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let before = try FileManager.default.subpathsOfDirectory(atPath: temp.path).sorted()
    _ = try Shell.run("/bin/chmod", ["a-w", temp.path])
    let count = try PackageNode.reading(contentsOf: FilePath(package)) { try $0.sortedChildren().count }
    #expect(count > 0)
    let inspected = try Shell.docpkg(["inspect", "--json", package])
    #expect(inspected.status == 0, "\(inspected.standardError)")
    _ = try Shell.run("/bin/chmod", ["u+w", temp.path])
    #expect(try FileManager.default.subpathsOfDirectory(atPath: temp.path).sorted() == before)
  }

  /// A folder inside a package (`Doc.pkg/Data`) is read under the package's own read lock: the
  /// writer saves 100 times (a lock file beside the package says a writer is there), while
  /// `inspect --json`, `cat` and `pack` of the folder each must show one generation.
  @Test func readersOfAFolderInsideThePackageSeeOneSavedStateWhileAWriterSaves() async throws {
    let temp = try TemporaryDirectory("coordination")
    let package = temp.appending("Doc.pkg")
    try Shell.run(Self.tool, ["init", package, "5"])
    let writer = try Background(Self.tool, ["write", package, "100"], logs: temp.appending("writer"))
    #expect(
      await eventually(seconds: 10) { FileManager.default.fileExists(atPath: temp.appending(".Doc.pkg.docpkg-lock")) })
    let (reads, problems) = try await offThePool {
      var reads = 0
      var problems: [String] = []
      while writer.isRunning || reads == 0 {
        reads += 1
        if let problem = Self.readFolderWithCLI(package + "/Data", in: temp, round: reads) { problems.append(problem) }
      }
      return (reads, problems)
    }
    let written = writer.wait()
    #expect(written.status == 0, "\(written.standardError)")
    #expect(written.standardOutput.contains("\"saves\":100,\"errors\":0"), "\(written.standardOutput)")
    #expect(problems.isEmpty, "\(problems.count) of \(reads) CLI reads of Doc.pkg/Data: \(problems.prefix(5))")
  }

  /// One round of reads of the folder `data` (a package's `Data/`): `inspect --json`, `cat`, `pack`.
  static func readFolderWithCLI(_ data: String, in temp: TemporaryDirectory, round: Int) -> String? {
    do {
      let inspected = try Shell.docpkg(["inspect", "--json", data])
      guard inspected.status == 0 else { return "inspect failed: \(inspected.standardError)" }
      let json = try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any]
      let paths = (json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
      let markers = paths.filter { $0.contains("/gen-") }
      guard Set(markers.map { $0.split(separator: "-").last! }).count == 1, markers.count == 2 else {
        return "inspect --json shows markers \(markers)"
      }
      let cat = try Shell.docpkg(["cat", data, "C/x/gen.txt"])
      guard cat.status == 0, Int(cat.standardOutput) != nil else { return "cat failed: \(cat.standardError)" }
      let archive = temp.appending("data-\(round).tar")
      let unpacked = temp.appending("data-\(round)")
      defer {
        try? FileManager.default.removeItem(atPath: archive)
        try? FileManager.default.removeItem(atPath: unpacked)
      }
      let packed = try Shell.docpkg(["pack", data, "-o", archive, "--quiet"])
      guard packed.status == 0 else { return "pack failed: \(packed.standardError)" }
      try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
      try Shell.run("tar", ["-xf", archive, "-C", unpacked])
      var seen: Set<String> = []
      for file in ["A/gen.txt", "B/gen.txt", "C/x/gen.txt"] {
        seen.insert(try String(contentsOfFile: unpacked + "/Data/" + file, encoding: .utf8))
      }
      for directory in ["A", "B"] {
        let names = try FileManager.default.contentsOfDirectory(atPath: unpacked + "/Data/" + directory)
        for marker in names where marker.hasPrefix("gen-") { seen.insert(String(marker.dropFirst(4))) }
      }
      return seen.count == 1 ? nil : "pack of Data mixes generations \(seen.sorted())"
    } catch {
      return "read of Data failed: \(error)"
    }
  }

  /// Reading a version (`PACKAGE@ID`) while another process removes it fails with one line naming
  /// the version, not a `corrupt` error about a blob: `pack` of version 1 is held on a full pipe
  /// after its first file, `docpkg versions remove` removes the version, and the pack goes on.
  @Test func aVersionRemovedWhileItIsReadIsAClearError() throws {
    let temp = try TemporaryDirectory("coordination")
    let package = temp.appending("Doc.pkg")
    try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
    var big = Data(count: 2 << 20)
    for index in stride(from: 0, to: big.count, by: 4096) { big[index] = UInt8(truncatingIfNeeded: index >> 12) }
    try big.write(to: URL(fileURLWithPath: package + "/big.bin"))
    try Data("one\n".utf8).write(to: URL(fileURLWithPath: package + "/z.txt"))
    let put = try Shell.docpkg(["put", package, "z.txt", "-"], input: Data("two\n".utf8))
    #expect(put.status == 0, "\(put.standardError)")

    let pack = Process()
    pack.executableURL = URL(fileURLWithPath: Shell.docpkgPath)
    pack.arguments = ["pack", package + "@1", "-o", "-", "--format", "tar", "--quiet"]
    let output = Pipe()
    let errors = Pipe()
    pack.standardOutput = output
    pack.standardError = errors
    try pack.run()
    // The first bytes: the pack is writing big.bin (2 MiB) into the 64 KiB pipe, and waits there.
    let first = output.fileHandleForReading.readData(ofLength: 1)
    #expect(first.count == 1)
    let removed = try Shell.docpkg(["versions", "remove", package, "1"])
    #expect(removed.status == 0, "\(removed.standardError)")
    _ = output.fileHandleForReading.readDataToEndOfFile()
    pack.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(pack.terminationStatus == 1)
    #expect(
      message
        == "docpkg: error: version 1 of 'Doc.pkg' was removed while it was being read (pruned by a save, or versions remove)\n",
      "\(message)")
  }

  /// One read through the CLI; a description of what was wrong, or nil.
  static func readWithCLI(_ kind: String, _ package: String, in temp: TemporaryDirectory, round: Int) -> String? {
    do {
      if kind == "pack" {
        let archive = temp.appending("pack-\(round).tar")
        let unpacked = temp.appending("unpacked-\(round)")
        defer {
          try? FileManager.default.removeItem(atPath: archive)
          try? FileManager.default.removeItem(atPath: unpacked)
        }
        let packed = try Shell.docpkg(["pack", package, "-o", archive, "--quiet"])
        guard packed.status == 0 else { return "pack failed: \(packed.standardError)" }
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        try Shell.run("tar", ["-xf", archive, "-C", unpacked])
        return try checkUnpacked(unpacked + "/Doc.pkg")
      }
      let cat = try Shell.docpkg(["cat", package, "Data/C/x/gen.txt"])
      guard cat.status == 0, Int(cat.standardOutput) != nil else { return "cat failed: \(cat.standardError)" }
      let inspected = try Shell.docpkg(["inspect", "--json", package])
      guard inspected.status == 0 else { return "inspect failed: \(inspected.standardError)" }
      let json = try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any]
      let paths = (json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
      let markers = Set(paths.filter { $0.contains("/gen-") }.map { $0.split(separator: "-").last! })
      let count = paths.filter { $0.contains("/gen-") }.count
      return markers.count == 1 && count == 2
        ? nil : "inspect --json shows markers \(paths.filter { $0.contains("/gen-") })"
    } catch {
      return "\(kind) failed: \(error)"
    }
  }

  /// Whether an unpacked archive of the package shows one generation.
  static func checkUnpacked(_ root: String) throws -> String? {
    func number(_ path: String) throws -> Int? { Int(try String(contentsOfFile: root + "/" + path, encoding: .utf8)) }
    var seen: [Int?] = try ["Data/A/gen.txt", "Data/B/gen.txt", "Data/C/x/gen.txt"].map(number)
    for directory in ["Data/A", "Data/B"] {
      let markers = try FileManager.default.contentsOfDirectory(atPath: root + "/" + directory).filter {
        $0.hasPrefix("gen-")
      }
      guard markers.count == 1 else { return "archive's \(directory) holds \(markers)" }
      seen.append(Int(markers[0].dropFirst(4)))
    }
    let generations = Set(seen)
    guard generations.count == 1, let generation = generations.first!, let index = try number("Index.txt"),
      index == generation - generation % 2
    else { return "archive mixes generations \(seen), Index.txt \(String(describing: try? number("Index.txt")))" }
    return nil
  }
}

/// A program running in the background, its output going to files.
private final class Background: @unchecked Sendable {
  private let process = Process()
  private let output: String
  private let errors: String

  init(_ executable: String, _ arguments: [String], logs: String) throws {
    output = logs + ".out"
    errors = logs + ".err"
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: output)
    process.standardError = FileHandle(forWritingAtPath: errors)
    try process.run()
  }

  var isRunning: Bool { process.isRunning }

  /// Waits for the program to end: its exit status and what it printed.
  func wait() -> (status: Int32, standardOutput: String, standardError: String) {
    process.waitUntilExit()
    func text(_ path: String) -> String {
      String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
    return (process.terminationStatus, text(output), text(errors))
  }
}
