import Foundation
import TestSupport
import Testing

/// Issue 40: what a one-file save with versions leaves to its settle, and what the settle costs.
/// The detached settler is held off, so that each test settles when it says.
@Suite("docpkg versions: one-file saves and their settle")
struct SettleCostCommandTests {
  static let noBackground = ["DOCPKG_NO_BACKGROUND_SETTLE": "1"]

  @discardableResult
  static func run(_ arguments: [String]) throws -> Shell.Output {
    let result = try Shell.docpkg(arguments, environment: noBackground)
    #expect(result.status == 0, "docpkg \(arguments.joined(separator: " ")): \(result.standardError)")
    return result
  }

  /// A package of folders d0…d3 of `count` files f0… each, with a settled version of it, at `name`.
  static func package(_ name: String, files count: Int, in temp: TemporaryDirectory) throws -> String {
    for folder in 0..<4 {
      for file in 0..<count { try temp.write("\(name)/d\(folder)/f\(file).txt", "\(folder)/\(file)\n") }
    }
    let package = temp.appending(name)
    let source = try temp.write("\(name)-first.txt", "first\n")
    try run(["put", package, "d0/f0.txt", source])
    try run(["versions", "settle", package])
    return package
  }

  static func status(_ path: String) throws -> stat {
    var status = stat()
    guard lstat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
    return status
  }

  @Test func aSettleStatsEachFileOnceInItsOpenFolderAndNeverByItsPath() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    var stats: [Int] = []
    for (name, count) in [("Small.pkg", 5), ("Large.pkg", 105)] {
      let package = try Self.package(name, files: count, in: temp)
      let source = try temp.write("\(name)-second.txt", "second\n")
      try Self.run(["put", package, "d2/f3.txt", source])
      let calls = "newfstatat,fstatat64,statx,lstat,stat"
      let (result, lines) = try Shell.traceDocpkg(["versions", "settle", package], calls: calls)
      #expect(result.status == 0, "\(result.standardError)")
      // A package file is stat'ed by its name in its folder, held open; never by its whole path.
      let byPath = lines.filter { $0.contains(package + "/d") }
      #expect(byPath.isEmpty, "\(byPath.prefix(3))")
      stats.append(lines.count)
      #expect(try Self.run(["versions", "show", package, "2", "d2/f3.txt"]).standardOutput == "2/3\n")
    }
    // 400 files more: one stat each in its folder and one of its copy in the store, no more.
    #expect(stats[1] - stats[0] <= 2 * 400, "stat calls: \(stats)")
  }

  @Test func removingOneFileWithVersionsRenamesItOutAndItsVersionHoldsIt() throws {
    let temp = try TemporaryDirectory()
    let package = try Self.package("P.pkg", files: 20, in: temp)
    let folder = try Self.status(package + "/d2")
    let sibling = try Self.status(package + "/d2/f4.txt")
    try Self.run(["rm", package, "d2/f3.txt"])  // versions deferred: the CLI's default
    #expect(!FileManager.default.fileExists(atPath: package + "/d2/f3.txt"))
    // The folder is the same one, its other files untouched: nothing was linked into a new folder.
    #expect(try Self.status(package + "/d2").st_ino == folder.st_ino)
    let after = try Self.status(package + "/d2/f4.txt")
    #expect(after.st_ctim.tv_sec == sibling.st_ctim.tv_sec && after.st_ctim.tv_nsec == sibling.st_ctim.tv_nsec)
    let settled = try Self.run(["versions", "settle", package])
    #expect(settled.standardError.isEmpty, "\(settled.standardError)")
    #expect(try Self.run(["versions", "show", package, "2", "d2/f3.txt"]).standardOutput == "2/3\n")
    #expect(try Self.run(["versions", "show", package, "2", "d2/f4.txt"]).standardOutput == "2/4\n")
    let check = try Shell.docpkg(["check", package], environment: Self.noBackground)
    #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    try Self.run(["versions", "restore", package, "2"])
    #expect(try String(contentsOfFile: package + "/d2/f3.txt", encoding: .utf8) == "2/3\n")
  }

  @Test func aRemovalAndASaveAfterItBeforeTheSettleKeepBothVersionsWhole() throws {
    let temp = try TemporaryDirectory()
    let package = try Self.package("P.pkg", files: 20, in: temp)
    try Self.run(["rm", package, "d2/f3.txt"])
    let source = try temp.write("again.txt", "again\n")
    try Self.run(["put", package, "d2/f4.txt", source])
    try Self.run(["rm", package, "d1/f0.txt"])
    try Self.run(["versions", "settle", package])
    let check = try Shell.docpkg(["check", package], environment: Self.noBackground)
    #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    // Version 2: before the removal; 3: before the put; 4: before the second removal.
    let show = { (id: Int, path: String) in
      try Shell.docpkg(["versions", "show", package, String(id), path], environment: Self.noBackground)
    }
    #expect(try show(2, "d2/f3.txt").standardOutput == "2/3\n")
    #expect(try show(3, "d2/f3.txt").status != 0)
    #expect(try show(3, "d2/f4.txt").standardOutput == "2/4\n")
    #expect(try show(4, "d2/f4.txt").standardOutput == "again\n")
    #expect(try show(4, "d1/f0.txt").standardOutput == "1/0\n")
    #expect(try show(4, "d2/f3.txt").status != 0)
  }
}
