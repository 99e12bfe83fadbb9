import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 35, S2 and S5: the version store's hash cache (`hashes`) names a file's SHA-256 by what
/// `lstat` says of it. A version must never get the bytes the cache remembers instead of those the
/// file held: not after a write in place whose modification time was set back, and not after the
/// cache file itself was damaged or edited.
@Suite("The hash cache never gives a version bytes its file no longer held")
struct HashCacheTrustTests {
  /// Ways to put "BBBB\n" into `$1` (which holds "AAAA\n") in place, leaving its modification time,
  /// size and inode as they were: only its change time moves.
  static let sameStampWrites: [String] = [
    "touch -r \"$1\" \"$1.time\"; printf 'BBBB\\n' | dd of=\"$1\" conv=notrunc status=none; touch -r \"$1.time\" \"$1\"",
    "printf 'BBBB\\n' > \"$1.other\"; touch -r \"$1\" \"$1.other\"; cp -p \"$1.other\" \"$1\"",
  ]

  private func text(_ store: VersionStore, _ id: Int, _ path: String) throws -> String {
    String(decoding: try store.tree(of: id).node(at: path).contents(), as: UTF8.self)
  }

  /// A package `P.mydoc` in `temp` holding `files`.
  private func package(_ temp: TemporaryDirectory, _ files: [String: String]) throws -> String {
    let package = temp.path + "/P.mydoc"
    try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
    for (name, contents) in files {
      try Data(contents.utf8).write(to: URL(fileURLWithPath: package + "/" + name))
    }
    return package
  }

  /// Sets `name` to `contents` and saves, copying the previous state now or at the settle.
  private func put(_ package: String, _ name: String, _ contents: String, deferred: Bool) throws {
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = deferred
    try document.root.setFile(at: name, contents: Data(contents.utf8))
    try document.save()
    _ = try document.versionStore().settlePendingVersions()
  }

  @Test(arguments: sameStampWrites, [false, true])
  func aWriteInPlaceThatKeepsTheStampIsHashedAgain(_ write: String, deferred: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "AAAA\n"])
    // Version 1 is a.txt "AAAA": the cache now knows a.txt's stamp.
    try put(package, "b.txt", "keep\n", deferred: deferred)
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(try text(store, 1, "a.txt") == "AAAA\n")
    let before = try Syscalls.statusNoFollow(FilePath(package + "/a.txt"))

    try Shell.run("/bin/sh", ["-c", write + "; rm -f \"$1.time\" \"$1.other\"", "sh", package + "/a.txt"])
    let after = try Syscalls.statusNoFollow(FilePath(package + "/a.txt"))
    #expect(DiskStamp(after) == DiskStamp(before), "the write is meant to keep the stamp")
    #expect(try String(contentsOfFile: package + "/a.txt", encoding: .utf8) == "BBBB\n")

    try put(package, "a.txt", "CCCC\n", deferred: deferred)
    // Version 2 is the state that save replaced: a.txt held "BBBB".
    #expect(try text(store, 2, "a.txt") == "BBBB\n")
    #expect(try store.damagedVersions(thorough: true).isEmpty)
  }

  /// A save that changes two root entries rebuilds the whole tree, linking every unchanged file
  /// into it; the cache follows the change times those links give (see `RelinkedFile`), but only
  /// from the change time it hashed at: a write in place before the save still shows.
  @Test(arguments: [false, true])
  func aWriteInPlaceBeforeASaveThatRelinksEveryFileIsHashedAgain(deferred: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "AAAA\n", "b.txt": "keep\n"])
    try FileManager.default.createDirectory(atPath: package + "/d", withIntermediateDirectories: false)
    try Data("deep\n".utf8).write(to: URL(fileURLWithPath: package + "/d/e.txt"))
    try put(package, "c.txt", "new\n", deferred: deferred)
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(try text(store, 1, "d/e.txt") == "deep\n")

    try Shell.run("/bin/sh", ["-c", Self.sameStampWrites[0] + "; rm -f \"$1.time\"", "sh", package + "/d/e.txt"])
    let document = try PackageFile(at: FilePath(package))
    document.defersVersionCopies = deferred
    try document.root.setFile(at: "a.txt", contents: Data("CCCC\n".utf8))
    try document.root.setFile(at: "b.txt", contents: Data("kept\n".utf8))
    try document.save()
    _ = try store.settlePendingVersions()
    #expect(try text(store, 2, "d/e.txt") == "BBBB\n")
    #expect(try text(store, 2, "a.txt") == "AAAA\n")
    // The next save, with nothing written meanwhile, reads only what it must.
    #expect(try VersionStore.scan(packageAt: FilePath(package), lockHeld: false).hashedFiles == 2)
  }

  /// A blob is hashed as it is written: the store's `verified` log learns it then, and a check (`versions list`
  /// runs one) reads no blob a save wrote. A blob written in place afterwards, its stamp set back, is read again.
  @Test(arguments: sameStampWrites, [false, true])
  func aBlobIsKnownWholeAsWrittenAndReadAgainOnceWrittenInPlace(_ write: String, deferred: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "AAAA\n", "b.txt": "b\n"])
    try put(package, "b.txt", "c\n", deferred: deferred)
    let store = try VersionStore(forPackageAt: FilePath(package))
    let blob = store.objectPath(ContentHash.of(Data("AAAA\n".utf8)))
    let verified = HashCache(path: store.verifiedPath)
    #expect(verified.hash(for: try Syscalls.statusNoFollow(blob)) == ContentHash.of(Data("AAAA\n".utf8)))
    #expect(try store.damagedVersions().isEmpty)

    try Shell.run("chmod", ["u+w", blob.string])
    try Shell.run("/bin/sh", ["-c", write + "; rm -f \"$1.time\" \"$1.other\"", "sh", blob.string])
    let damage = try store.damagedVersions()
    #expect(damage.map(\.id) == [1])
    #expect(damage.first?.problems.first?.contains("no longer matches") == true, "\(damage)")
  }

  @Test(arguments: [false, true])
  func aHandEditedCacheLineIsNotBelieved(deferred: Bool) throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "AAAA\n", "b.txt": "BBBB\n", "c.txt": "c\n"])
    try put(package, "c.txt", "x\n", deferred: deferred)
    let store = try VersionStore(forPackageAt: FilePath(package))
    #expect(try text(store, 1, "b.txt") == "BBBB\n")

    // b.txt's line now names a.txt's hash, as a hand edit (or a flipped bit) would.
    let hashes = store.hashesPath.string
    let log = try String(contentsOfFile: hashes, encoding: .utf8)
    let (a, b) = (ContentHash.of(Data("AAAA\n".utf8)), ContentHash.of(Data("BBBB\n".utf8)))
    #expect(log.contains(b))
    try log.replacingOccurrences(of: b, with: a).write(toFile: hashes, atomically: false, encoding: .utf8)

    try put(package, "c.txt", "y\n", deferred: deferred)
    #expect(try text(store, 2, "b.txt") == "BBBB\n")
    #expect(try text(store, 2, "a.txt") == "AAAA\n")
    #expect(try store.damagedVersions(thorough: true).isEmpty)
    // The save that found the damaged line wrote the log anew without it.
    #expect(HashCache(path: store.hashesPath).discardedLines == 0)
  }

  @Test func checkDiscardsADamagedCacheLineAndSaysSo() throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "AAAA\n", "b.txt": "BBBB\n"])
    try put(package, "c.txt", "x\n", deferred: true)
    let store = try VersionStore(forPackageAt: FilePath(package))
    let hashes = store.hashesPath.string
    let log = try String(contentsOfFile: hashes, encoding: .utf8)
    let (a, b) = (ContentHash.of(Data("AAAA\n".utf8)), ContentHash.of(Data("BBBB\n".utf8)))
    try log.replacingOccurrences(of: b, with: a).write(toFile: hashes, atomically: false, encoding: .utf8)

    let check = try Shell.docpkg(["check", package])
    #expect(check.status == 0, "\(check.standardError)")
    #expect(
      check.standardOutput.contains(
        "repaired: 1 damaged line of the hash cache discarded (its files are read again): "),
      "\(check.standardOutput)")
    // Written anew: a.txt's own line is left, the forged one is gone.
    #expect(try String(contentsOfFile: hashes, encoding: .utf8).components(separatedBy: a).count == 2)
    let again = try Shell.docpkg(["check", package])
    #expect(again.status == 0 && !again.standardOutput.contains("repaired"), "\(again.standardOutput)")
  }

  /// The directory cache (`dirs`: a directory's tree by its device, inode and time, used when the
  /// previous state is copied at once) is read from disk too: two of its lines with their trees
  /// swapped must not give a version the other directory's files.
  @Test func aHandEditedDirectoryCacheLineIsNotBelieved() throws {
    let temp = try TemporaryDirectory()
    let package = try package(temp, ["a.txt": "a\n"])
    for (directory, text) in [("one", "first\n"), ("two", "second\n")] {
      try FileManager.default.createDirectory(atPath: package + "/" + directory, withIntermediateDirectories: false)
      try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/\(directory)/f.txt"))
    }
    try put(package, "c.txt", "1\n", deferred: false)
    let store = try VersionStore(forPackageAt: FilePath(package))
    let dirs = store.path.appending("dirs").string
    var lines = try String(contentsOfFile: dirs, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }
    let inodes = try ["one", "two"].map { try Syscalls.statusNoFollow(FilePath(package + "/" + $0)).inode }
    guard let one = lines.firstIndex(where: { $0[1] == String(inodes[0]) }),
      let two = lines.firstIndex(where: { $0[1] == String(inodes[1]) })
    else {
      Issue.record("no lines for the two directories in \(dirs)")
      return
    }
    (lines[one][4], lines[two][4]) = (lines[two][4], lines[one][4])
    try (lines.map { $0.joined(separator: " ") }.joined(separator: "\n") + "\n")
      .write(toFile: dirs, atomically: false, encoding: .utf8)

    try put(package, "c.txt", "2\n", deferred: false)
    #expect(try text(store, 2, "one/f.txt") == "first\n")
    #expect(try text(store, 2, "two/f.txt") == "second\n")
  }
}
