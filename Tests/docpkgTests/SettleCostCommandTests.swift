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
}
