import Foundation
import TestSupport
import Testing

/// A command on one file costs its path, not the folders on it (issue 40): the same system calls,
/// one by one, whether the file's folder holds 5 files or 200.
@Suite("One-file commands cost their path")
struct PathCostCommandTests {
  /// `Small.pkg` and `Large.pkg`: folders d0…d3, each of `small` or `large` files f0…; returns both paths.
  private func packages(in temp: TemporaryDirectory, small: Int = 5, large: Int = 200) throws -> [String] {
    for (name, count) in [("Small.pkg", small), ("Large.pkg", large)] {
      for folder in 0..<4 {
        for file in 0..<count { try temp.write("\(name)/d\(folder)/f\(file).txt", "\(folder)/\(file)\n") }
      }
    }
    return [temp.appending("Small.pkg"), temp.appending("Large.pkg")]
  }

  /// The calls of `docpkg ARGUMENTS` from the list `calls`, by name, each with its count.
  private func counts(_ arguments: [String], calls: String) throws -> [String: Int] {
    let (result, lines) = try Shell.traceDocpkg(arguments, calls: calls)
    #expect(result.status == 0, "\(arguments): \(result.standardError)")
    var counts: [String: Int] = [:]
    for line in lines {
      // "PID name(arguments) = result" (strace -f -qq); exits and signals have no call.
      let words = line.split(separator: " ", maxSplits: 1)
      guard words.count == 2 else { continue }
      let call = words[1].drop { $0 == " " }  // strace pads a pid shorter than 5 digits
      guard let open = call.firstIndex(of: "(") else { continue }
      counts[String(call[..<open]), default: 0] += 1
    }
    return counts
  }

  @Test func removingOneFileListsNoFolderAndStatsAsManyEntriesInAFolderOf200AsOf5() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    let calls = "newfstatat,fstatat64,statx,lstat,stat,getdents64,linkat,unlinkat,renameat,renameat2"
    var seen: [[String: Int]] = []
    for package in try packages(in: temp) {
      seen.append(try counts(["rm", "--versions", "none", package, "d2/f3.txt"], calls: calls))
      #expect(!FileManager.default.fileExists(atPath: package + "/d2/f3.txt"))
      #expect(try FileManager.default.contentsOfDirectory(atPath: package + "/d2").contains("f4.txt"))
    }
    // Renamed out of its folder, nothing linked: the folder is neither listed nor built anew.
    #expect(seen[1]["linkat", default: 0] == 0, "\(seen[1])")
    #expect(seen == [seen[0], seen[0]], "folder of 5: \(seen[0]); folder of 200: \(seen[1])")
  }

  @Test func showingOneFileOfAVersionReadsTheTreesOnItsPathOnly() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    var seen: [[String: Int]] = []
    var objects: [Int] = []
    for package in try packages(in: temp) {
      let source = try temp.write("source-\(seen.count).txt", "changed\n")
      #expect(try Shell.docpkg(["put", package, "d2/f3.txt", source]).status == 0)
      #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
      let (result, lines) = try Shell.traceDocpkg(["versions", "show", package, "1", "d2/f3.txt"], calls: "openat")
      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput == "2/3\n")
      // The store's objects opened: the root's tree, d2's tree and the file's blob.
      objects.append(lines.filter { $0.contains(".docpkg-versions/objects/") && !$0.contains("ENOENT") }.count)
      seen.append(try counts(["versions", "show", package, "1", "d2/f3.txt"], calls: "openat,newfstatat,statx"))
    }
    #expect(objects == [3, 3], "objects opened: \(objects)")
    #expect(seen[0] == seen[1], "folders of 5: \(seen[0]); folders of 200: \(seen[1])")
  }

  @Test func listingVersionsReadsTheTreesTheyShareOnce() throws {
    guard Shell.has("strace") else {
      Issue.record("strace is not installed (Scripts/setup.sh installs it)")
      return
    }
    let temp = try TemporaryDirectory()
    let package = try packages(in: temp, small: 5, large: 5)[0]
    for index in 1...6 {
      let source = try temp.write("source-\(index).txt", "edit \(index)\n")
      #expect(try Shell.docpkg(["put", package, "d2/f3.txt", source]).status == 0)
      #expect(try Shell.docpkg(["versions", "settle", package]).status == 0)
    }
    // The first listing hashes the blobs (the store then remembers them whole); the second is traced.
    let first = try Shell.docpkg(["versions", "list", package])
    #expect(first.status == 0, "\(first.standardError)")
    #expect(first.standardOutput.split(separator: "\n").count == 7, "\(first.standardOutput)")
    let (result, lines) = try Shell.traceDocpkg(["versions", "list", package], calls: "openat")
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == first.standardOutput)
    let trees = lines.filter { $0.contains(".docpkg-versions/objects/") && !$0.contains("ENOENT") }.count
    // Six versions: the first's five trees (the root's, d0…d3), then each other's root and d2 only.
    #expect(trees == 5 + 5 * 2, "tree objects opened: \(trees)")
  }
}
