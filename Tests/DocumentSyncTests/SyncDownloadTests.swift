import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// How downloaded blobs become package files: a clone hands each blob one file uses over to the save (linked in,
/// no bytes copied) and copies a blob several files use; a blob an interrupted pull left behind is checked again
/// before a later pull uses it.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncDownloadTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  func inode(_ path: String) throws -> (inode: UInt64, links: Int) {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (
      (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
      (attributes[.referenceCount] as? NSNumber)?.intValue ?? 0
    )
  }

  /// A package `A.mydoc` pushed to a fresh bucket; returns its folder, the remote URL and the package path.
  func pushed(_ label: String, files: [String: String]) async throws -> (TemporaryDirectory, String, String, S3Client) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    for (path, text) in files { try dir.write("A.mydoc/" + path, text) }
    let url = "s3://\(client.bucket)/d"
    let a = dir.appending("A.mydoc")
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL), toPackageAt: FilePath(a),
      credentials: credentials)
    try await PackageSync(packageAt: FilePath(a), remote: "origin", credentials: credentials).push()
    return (dir, url, a, client)
  }

  @Test func aHandedOverFileIsLinkedIntoThePackageNotCopied() throws {
    let dir = try TemporaryDirectory("handover")
    try dir.write("given.bin", "handed over\n")
    try dir.write("copied.bin", "copied\n")
    let root = try PackageNode(directoryWithChildren: [:])
    let given = try DiskFileSource(path: FilePath(dir.appending("given.bin")), handingOver: true)
    let copied = try DiskFileSource(path: FilePath(dir.appending("copied.bin")))
    _ = try root.setNode(PackageNode(regularFileWithSource: given), at: "given.bin")
    _ = try root.setNode(PackageNode(regularFileWithSource: copied), at: "copied.bin")
    try root.setPermissions(FilePermissions(rawValue: 0o640), at: "given.bin")
    let package = dir.appending("P.mydoc")
    try PackageFile.create(at: FilePath(package), root: root).close()

    #expect(try inode(package + "/given.bin").inode == inode(dir.appending("given.bin")).inode)
    #expect(try inode(package + "/copied.bin").inode != inode(dir.appending("copied.bin")).inode)
    #expect(try String(contentsOfFile: package + "/given.bin", encoding: .utf8) == "handed over\n")
    let mode = try FileManager.default.attributesOfItem(atPath: package + "/given.bin")[.posixPermissions] as? Int
    #expect(mode == 0o640)
  }

  @Test func aCloneSharesNoInodeBetweenFilesAndKeepsNoDownloads() async throws {
    let (dir, url, _, _) = try await pushed(
      "clone-inodes",
      files: ["one.txt": "only once\n", "Twins/a.txt": "twice\n", "Twins/b.txt": "twice\n", "big.txt": "big\n"])
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)

    for path in ["one.txt", "Twins/a.txt", "Twins/b.txt", "big.txt"] {
      #expect(try inode(b + "/" + path).links == 1, "\(path) shares its inode")
    }
    #expect(try inode(b + "/Twins/a.txt").inode != inode(b + "/Twins/b.txt").inode)
    #expect(try String(contentsOfFile: b + "/Twins/b.txt", encoding: .utf8) == "twice\n")
    #expect(try String(contentsOfFile: b + "/one.txt", encoding: .utf8) == "only once\n")
    #expect(!FileManager.default.fileExists(atPath: dir.appending(".B.mydoc.docpkg-sync/objects")))
    // The package is whole and pushes nothing back.
    #expect(
      try await PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials).push() == .upToDate)
  }

  @Test func aPullHandsOverTheBlobsOneFileUsesAndCopiesTheOthers() async throws {
    let (dir, url, a, _) = try await pushed("pull-handover", files: ["f.txt": "first\n"])
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("A.mydoc/new.bin", "only here\n")
    try dir.write("A.mydoc/Twins/a.txt", "twice here\n")
    try dir.write("A.mydoc/Twins/b.txt", "twice here\n")
    try await PackageSync(packageAt: FilePath(a), remote: "origin", credentials: credentials).push()

    // The downloads' inodes just before the save, when every blob has arrived.
    let objects = dir.appending(".B.mydoc.docpkg-sync/objects")
    let single = SHA256Hex.of(Data("only here\n".utf8))
    let shared = SHA256Hex.of(Data("twice here\n".utf8))
    let downloaded = InodeLog()
    let result = try await PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials).pull {
      guard $0.phase == .saving else { return }
      for hash in [single, shared] {
        if let node = try? self.inode(objects + "/" + hash).inode { downloaded.record(hash, node) }
      }
    }
    #expect(result == .fastForwarded)
    let seen = downloaded.inodes
    #expect(seen.count == 2, "the downloads were not there when the save began: \(seen)")
    // The blob one file uses became that file (no bytes copied); the one two files use was copied for each.
    #expect(try inode(b + "/new.bin").inode == seen[single])
    for path in ["new.bin", "Twins/a.txt", "Twins/b.txt"] {
      #expect(try inode(b + "/" + path).links == 1, "\(path) shares its inode")
    }
    #expect(try inode(b + "/Twins/a.txt").inode != seen[shared] && inode(b + "/Twins/b.txt").inode != seen[shared])
    #expect(try String(contentsOfFile: b + "/new.bin", encoding: .utf8) == "only here\n")
    #expect(try String(contentsOfFile: b + "/Twins/b.txt", encoding: .utf8) == "twice here\n")
    #expect(!FileManager.default.fileExists(atPath: objects))
  }

  @Test func aDamagedBlobLeftByAnInterruptedPullIsDownloadedAgain() async throws {
    let (dir, url, a, _) = try await pushed("pull-leftover", files: ["f.txt": "first\n", "g.txt": "other\n"])
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("A.mydoc/f.txt", "second\n")
    try await PackageSync(packageAt: FilePath(a), remote: "origin", credentials: credentials).push()
    // What a machine crash after an unsynced rename may leave: the blob's name, not its bytes.
    let hash = SHA256Hex.of(Data("second\n".utf8))
    try dir.write(".B.mydoc.docpkg-sync/objects/\(hash)", "")

    let result = try await PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials).pull()
    #expect(result == .fastForwarded)
    #expect(try String(contentsOfFile: b + "/f.txt", encoding: .utf8) == "second\n")
  }

  @Test func aPullKilledMidDownloadLeavesThePackageAndTheNextPullKeepsWhatArrived() async throws {
    let (dir, url, a, client) = try await pushed("pull-kill", files: ["f.txt": "first\n"])
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    // A's next state: 96 files of 1 MiB of random bytes, so that B's pull takes a while.
    var generator = SplitMix64(seed: 23)
    for index in 0..<96 {
      var words = [UInt64](repeating: 0, count: (1 << 20) / 8)
      for word in words.indices { words[word] = generator.next() }
      try dir.write("A.mydoc/Big/\(index).raw", words.withUnsafeBytes { Data($0) })
    }
    try dir.write("A.mydoc/f.txt", "second\n")
    try await PackageSync(packageAt: FilePath(a), remote: "origin", credentials: credentials).push()

    let objects = dir.appending(".B.mydoc.docpkg-sync/objects")
    @Sendable func arrived() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? []).filter {
        $0.count == 64 && $0.allSatisfy(\.isHexDigit)
      }
    }
    let pull = try await docpkgKilled(["pull", b, "--quiet"]) { arrived().count >= 8 }
    #expect(pull.conditionHeld, "no blob arrived before the pull ended")
    #expect(pull.killed)
    // Killed mid-download, the package is as it was.
    #expect(try String(contentsOfFile: b + "/f.txt", encoding: .utf8) == "first\n")
    #expect(!FileManager.default.fileExists(atPath: b + "/Big"))

    // What arrived is not asked for again: with those blobs gone from the server, the next pull still completes.
    let kept = arrived()
    for hash in kept { try await client.delete("d/blobs/\(hash)") }
    let result = try await PackageSync(packageAt: FilePath(b), remote: "origin", credentials: credentials).pull()
    #expect(result == .fastForwarded)
    #expect(try String(contentsOfFile: b + "/f.txt", encoding: .utf8) == "second\n")
    for index in [0, 47, 95] {
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: b + "/Big/\(index).raw"))
          == Data(contentsOf: URL(fileURLWithPath: a + "/Big/\(index).raw")))
    }
  }
}

/// The inodes a progress handler saw, by blob hash (the handler may run on any thread).
private final class InodeLog: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: [String: UInt64] = [:]
  var inodes: [String: UInt64] { lock.withLock { seen } }
  func record(_ hash: String, _ inode: UInt64) { lock.withLock { seen[hash] = inode } }
}
