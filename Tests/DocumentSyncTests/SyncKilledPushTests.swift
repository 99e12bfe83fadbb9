import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentSync

/// `docpkg push` killed (SIGKILL) in the middle of a multipart upload, against the real server: the package and the
/// remote's head are as they were, and the next push completes the upload, sending only the parts that had not
/// arrived (its byte count says so, to the byte) — for a plain remote, and an encrypted one (whose sealed file is
/// the same bytes every time, so its upload resumes too).
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncKilledPushTests {
  static let passphrase = ["DOCPKG_SYNC_PASSPHRASE": "a long passphrase for the tests"]

  @Test(arguments: [false, true])
  func aPushKilledMidUploadResumesSendingOnlyThePartsThatHadNotArrived(encrypted: Bool) async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(encrypted ? "sync-kill-sealed" : "sync-kill")
    // 40 MiB + 5 bytes: five parts of docpkg's 8 MiB (four in flight) and a short one; and a few small files.
    var generator = SplitMix64(seed: encrypted ? 12 : 11)
    var words = [UInt64](repeating: 0, count: (40 << 20) / 8)
    for index in words.indices { words[index] = generator.next() }
    let big = words.withUnsafeBytes { Data($0) } + Data("last!".utf8)
    try dir.write("P.mydoc/big.raw", big)
    let small = (0..<6).map { Data("small file \($0)\n".utf8) }
    for (index, data) in small.enumerated() { try dir.write("P.mydoc/notes/n\(index).txt", data) }
    let package = dir.appending("P.mydoc")
    let url = "s3://\(client.bucket)/p"
    let environment = encrypted ? Self.passphrase : [:]
    let add = try Shell.docpkg(
      ["remote", "add", package, "origin", url, "--endpoint", ObjectStore.endpointURL]
        + (encrypted ? ["--encrypt"] : []),
      environment: environment)
    #expect(add.status == 0, "\(add.standardError)")
    let hash = SHA256Hex.of(big)
    let syncFolder = dir.appending(".P.mydoc.docpkg-sync")
    let record = "\(syncFolder)/uploads/origin/\(hash)"

    // Killed once the first part of the big file arrived (its record has a part line).
    let push = try await docpkgKilled(["push", package, "--quiet"], environment: environment) {
      guard let text = try? String(contentsOfFile: record, encoding: .utf8) else { return false }
      return text.split(separator: "\n").count > 2
    }
    #expect(push.conditionHeld, "no part arrived before the push ended")
    #expect(push.killed)
    #expect(try await client.head("p/head") == nil)  // the head never moved
    #expect(FileManager.default.contents(atPath: package + "/big.raw") == big)
    let kept = try #require(MultipartRecord(path: FilePath(record)))
    let stored = encrypted ? SealedFormat.sealedSize(plainSize: Int64(big.count)) : Int64(big.count)
    let partCount = Int((stored + Int64(kept.partSize) - 1) / Int64(kept.partSize))
    #expect(!kept.parts.isEmpty && kept.parts.count < partCount, "\(kept.parts.count) of \(partCount) parts")
    // The server holds at least the parts the record lists (a part answered after the record's last line is sent
    // again: its line was lost with the process).
    let listed = try await client.send(.GET, key: kept.key, query: [("uploadId", kept.uploadID)])
    let listing = String(decoding: try await listed.data(), as: UTF8.self)[...]
    let onServer = Set(XMLText.blocks("Part", in: listing).compactMap { XMLText.value("PartNumber", in: $0) })
    #expect(Set(kept.parts.keys.map(String.init)).isSubset(of: onServer), "server has parts \(onServer.sorted())")

    // The next push sends what had not arrived: the big file's missing parts, and the small blobs the killed
    // push's journal does not list.
    let journal = Set(
      ((try? String(contentsOfFile: "\(syncFolder)/pushing/origin", encoding: .utf8)) ?? "").split(separator: "\n")
        .map(String.init))
    let missingSmall = small.filter { !journal.contains(SHA256Hex.of($0)) }
    let storedSize = { (size: Int) in encrypted ? SealedFormat.sealedSize(plainSize: Int64(size)) : Int64(size) }
    let recorded = kept.parts.keys.reduce(Int64(0)) { sum, number in
      sum + min(Int64(kept.partSize), stored - Int64((number - 1) * kept.partSize))
    }
    let expected = stored - recorded + missingSmall.reduce(Int64(0)) { $0 + storedSize($1.count) }
    let second = try Shell.docpkg(["push", package], environment: environment)
    #expect(second.status == 0, "\(second.standardError)")
    #expect(
      second.standardOutput.hasPrefix("pushed \(1 + missingSmall.count) blobs, ")
        && second.standardOutput.hasSuffix(" trees (\(expected) bytes)\n"),
      "\(second.standardOutput), expected \(expected) bytes of \(stored + small.reduce(0) { $0 + storedSize($1.count) })"
    )
    #expect(!FileManager.default.fileExists(atPath: record))

    let copy = dir.appending("Copy.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, copy, "--endpoint", ObjectStore.endpointURL, "--quiet"], environment: environment)
    #expect(clone.status == 0, "\(clone.standardError)")
    #expect(SHA256Hex.of(FileManager.default.contents(atPath: copy + "/big.raw") ?? Data()) == hash)
    #expect(FileManager.default.contents(atPath: copy + "/notes/n5.txt") == small[5])
  }
}
