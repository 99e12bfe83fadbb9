import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// Pushes that look only at what changed, resumable multipart uploads, and a pull under an open `Document`,
/// against the real server.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncIncrementalTests {
  let credentials = try! S3Credentials.fromEnvironment(ObjectStore.environment)

  func makePackage(_ dir: TemporaryDirectory, _ name: String = "P.mydoc") async throws -> (S3Client, String, String) {
    let client = try await ObjectStore.freshBucket()
    for d in 0..<10 {
      for f in 0..<20 { try dir.write("\(name)/d\(d)/f\(f).txt", "file \(d)/\(f)\n") }
    }
    let url = "s3://\(client.bucket)/p"
    let package = dir.appending(name)
    try await PackageSync.addRemote(
      Remote(name: "origin", url: url, endpoint: ObjectStore.endpointURL), toPackageAt: FilePath(package),
      credentials: credentials)
    return (client, url, package)
  }

  func sync(_ package: String) throws -> PackageSync {
    try PackageSync(packageAt: FilePath(package), remote: "origin", credentials: credentials)
  }

  @Test func aPushAfterOneChangeSendsOneBlobAndTheTreesOnItsPathOnly() async throws {
    let dir = try TemporaryDirectory("sync-incremental")
    let (client, _, package) = try await makePackage(dir)
    guard case .pushed(_, 200, 11, _) = try await sync(package).push() else {
      Issue.record("first push")
      return
    }
    // The push trusts what the synced head names: an unchanged subtree is not looked at on the server again.
    // (Removing one of its blobs behind the push's back shows it: that blob is not sent again.)
    try await client.delete("p/blobs/\(SHA256Hex.of(Data("file 1/1\n".utf8)))")
    try dir.write("P.mydoc/d3/f4.txt", "changed\n")
    guard case .pushed(_, 1, 2, _) = try await sync(package).push() else {
      Issue.record("second push did not send one blob and two trees")
      return
    }
    #expect(try await sync(package).push() == .upToDate)
  }

  func modificationDate(_ path: String) throws -> Date? {
    try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
  }

  /// A file's time is part of the state: a clone and a pull set it, and a touch alone is pushed (as the trees on
  /// its path, no blob).
  @Test func aTouchAloneIsPushedAsTreesAndAPullSetsTheTime() async throws {
    let dir = try TemporaryDirectory("sync-touch")
    let (_, url, package) = try await makePackage(dir)
    _ = try await sync(package).push()
    let copy = dir.appending("Copy.mydoc")
    _ = try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials)
    #expect(try modificationDate(copy + "/d2/f3.txt") == modificationDate(package + "/d2/f3.txt"))
    let time = Date(timeIntervalSince1970: 1_600_000_000.25)
    try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: package + "/d2/f3.txt")
    guard case .pushed(_, 0, 2, _) = try await sync(package).push() else {
      Issue.record("a touch did not push two trees and no blob")
      return
    }
    #expect(try await sync(copy).pull() == .fastForwarded)
    #expect(try modificationDate(copy + "/d2/f3.txt") == time)
    #expect(try await sync(copy).push() == .upToDate)
  }

  @Test func aCloneFillsTheStatCacheSoThatItsFirstScanReadsNoFile() async throws {
    let dir = try TemporaryDirectory("sync-clone-cache")
    let (_, url, package) = try await makePackage(dir)
    guard case .pushed(let tree, _, _, _) = try await sync(package).push() else {
      Issue.record("first push")
      return
    }
    let copy = dir.appending("Copy.mydoc")
    let cloned = try await PackageSync.clone(
      from: url, endpoint: ObjectStore.endpointURL, to: FilePath(copy), credentials: credentials)
    let scan = try VersionStore.scan(packageAt: cloned.folder.packagePath, lockHeld: false)
    #expect(scan.hashedFiles == 0)
    #expect(scan.root == tree)
    #expect(try await sync(copy).push() == .upToDate)
    // The stat cache is a cache of what is on disk: a file changed after the clone is read again.
    try dir.write("Copy.mydoc/d0/f0.txt", "changed after the clone\n")
    #expect(try VersionStore.scan(packageAt: FilePath(copy), lockHeld: false).hashedFiles == 1)
  }

  @Test func anInterruptedMultipartUploadResumesWithoutSendingThePartsThatArrived() async throws {
    let client = try await ObjectStore.freshBucket(multipartThreshold: 6 << 20)
    let dir = try TemporaryDirectory("sync-resume")
    let partSize = 5 << 20
    func bytes(seed: UInt64) -> Data {
      var generator = SplitMix64(seed: seed)
      var words = [UInt64](repeating: 0, count: (6 * partSize) / 8)
      for index in words.indices { words[index] = generator.next() }
      return words.withUnsafeBytes { Data($0) }
    }
    let original = bytes(seed: 1)
    let source = try dir.write("big.bin", original)
    let record = FilePath(dir.appending("record"))
    let holder = TaskHolder<String>()
    let task = Task {
      try await client.upload("big", fromFile: FilePath(source), record: record) { sent in
        if sent >= Int64(2 * partSize) { holder.cancel() }
      }
    }
    holder.set(task)
    guard case .failure = await task.result else {
      Issue.record("the upload was not interrupted")
      return
    }
    let kept = try #require(MultipartRecord(path: record))
    #expect(!kept.parts.isEmpty)
    #expect(kept.parts.count < 6)

    // Every byte of the file changes; the parts that arrived are not sent again, so they keep the old bytes.
    let changed = bytes(seed: 2)
    try changed.write(to: URL(fileURLWithPath: source))
    try await client.upload("big", fromFile: FilePath(source), record: record)
    #expect(!FileManager.default.fileExists(atPath: record.string))
    let stored = try await client.get("big", limit: 64 << 20).data
    #expect(stored.count == changed.count)
    for part in 1...6 {
      let range = (part - 1) * partSize..<part * partSize
      let expected = kept.parts[part] != nil ? original[range] : changed[range]
      #expect(stored[range] == expected, "part \(part)")
    }
  }

  @Test func aPullMergesATextFileBothSidesChangedInDifferentLines() async throws {
    let dir = try TemporaryDirectory("sync-text")
    let (_, url, a) = try await makePackage(dir, "A.mydoc")
    try dir.write("A.mydoc/notes.txt", "one\ntwo\nthree\nfour\nfive\n")
    try await sync(a).push()
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    try dir.write("B.mydoc/notes.txt", "one\ntwo by B\nthree\nfour\nfive\n")
    try await sync(b).push()
    try dir.write("A.mydoc/notes.txt", "one\ntwo\nthree\nfour\nfive by A\n")
    let result = try await sync(a).pull()
    #expect(result == .merged(paths: ["notes.txt"]))
    #expect(try String(contentsOfFile: a + "/notes.txt", encoding: .utf8) == "one\ntwo by B\nthree\nfour\nfive by A\n")
    #expect(try VersionStore(forPackageAt: FilePath(a)).unresolvedConflicts().isEmpty)
    // The merge goes back up, and B fast-forwards to it.
    try await sync(a).push()
    #expect(try await sync(b).pull() == .fastForwarded)
    #expect(try String(contentsOfFile: b + "/notes.txt", encoding: .utf8) == "one\ntwo by B\nthree\nfour\nfive by A\n")
  }

  /// A pull by another program (`docpkg pull`, a sync agent) under an open `Document`.
  @Test func aPullByAnotherProcessUnderAnOpenDocumentIsReloadedOrMergedByIt() async throws {
    try await pullUnderAnOpenDocument("sync-document") { a in
      let output = try Shell.docpkg(["pull", a]).standardOutput
      #expect(output == "fast-forward\n")
    }
  }

  /// A pull through the library in the app's own process, under an open `Document` of the same package.
  @Test func aPullInTheDocumentsProcessUnderAnOpenDocumentIsReloadedOrMergedByIt() async throws {
    try await pullUnderAnOpenDocument("sync-document-in-process") { a in
      let result = try await sync(a).pull()
      #expect(result == .fastForwarded)
    }
  }

  /// Opens package A as a `Document`, then pulls (with `pull`) two changes pushed from a clone B: the first with
  /// no unsaved changes (the document reloads), the second with an unsaved change to another file (merged).
  func pullUnderAnOpenDocument(_ name: String, pull: (String) async throws -> Void) async throws {
    let dir = try TemporaryDirectory(name)
    let (_, url, a) = try await makePackage(dir, "A.mydoc")
    try await sync(a).push()
    let b = dir.appending("B.mydoc")
    try await PackageSync.clone(from: url, endpoint: ObjectStore.endpointURL, to: FilePath(b), credentials: credentials)
    let document = try await Document(contentsOf: FilePath(a))
    let watchingError = await document.watchingError
    #expect(await document.isWatching, "\(String(describing: watchingError))")
    func text(_ path: String) async throws -> String {
      try await document.read { String(decoding: try $0.node(at: path).contents(), as: UTF8.self) }
    }

    // The app shows two files; a pull changes the package under it.
    #expect(try await text("d1/f1.txt") == "file 1/1\n")
    #expect(try await text("d3/f3.txt") == "file 3/3\n")

    // No unsaved changes: the document shows the pulled state.
    try dir.write("B.mydoc/d1/f1.txt", "from B\n")
    try await sync(b).push()
    try await pull(a)
    #expect(await eventually(seconds: 20) { await document.lastOutsideChange != nil })
    #expect(await document.lastOutsideChange?.reaction == .reloaded)
    #expect(try await text("d1/f1.txt") == "from B\n")

    // Unsaved changes to another file: replayed onto the pulled state, still unsaved.
    try await document.edit { try $0.setFile(at: "d2/f2.txt", contents: Data("mine, unsaved\n".utf8)) }
    try dir.write("B.mydoc/d3/f3.txt", "from B again\n")
    try await sync(b).push()
    let seen = await document.lastOutsideChange
    try await pull(a)
    #expect(await eventually(seconds: 20) { await document.lastOutsideChange != seen })
    guard case .merged = await document.lastOutsideChange?.reaction else {
      Issue.record("not merged: \(String(describing: await document.lastOutsideChange))")
      return
    }
    #expect(try await text("d3/f3.txt") == "from B again\n")
    #expect(try await text("d2/f2.txt") == "mine, unsaved\n")
    #expect(await document.hasUnsavedChanges)
    try await document.close(saving: false)
  }
}
