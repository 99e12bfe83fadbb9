import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A pull keeps the state it replaces as a version that leaves on the remote the files the remote holds too
/// (issue 26: "a pull must not cost a copy of the whole package"), through `docpkg` against the real server:
/// the version costs the changed files, `versions show` and `restore` fetch the rest, a prune keeps what such a
/// version relies on (its pin), and a file gone from the server is said as such.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncVersionOnRemoteTests {
  /// Bytes that do not compress or repeat, `count` of them, from `seed`.
  func noise(_ count: Int, seed: UInt64) -> Data {
    var generator = SplitMix64(seed: seed)
    var data = Data(capacity: count)
    while data.count < count { withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) } }
    return data.prefix(count)
  }

  /// A.mydoc with two 4 MiB files and a note, pushed; B.mydoc its clone.
  func pushedAndCloned(_ label: String) async throws -> (TemporaryDirectory, S3Client, String, String, String) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(label)
    try dir.write("A.mydoc/media/one.bin", noise(4 << 20, seed: 1))
    try dir.write("A.mydoc/media/two.bin", noise(4 << 20, seed: 2))
    try dir.write("A.mydoc/notes.txt", "first\n")
    let url = "s3://\(client.bucket)/doc"
    let a = dir.appending("A.mydoc")
    let b = dir.appending("B.mydoc")
    try run(["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL])
    try run(["push", a, "--quiet"])
    try run(["clone", url, b, "--endpoint", ObjectStore.endpointURL, "--quiet"])
    return (dir, client, url, a, b)
  }

  /// Runs `docpkg`; returns its standard output, failing the test on a non-zero exit.
  @discardableResult
  func run(_ arguments: [String]) throws -> String {
    let result = try Shell.docpkg(arguments)
    #expect(result.status == 0, "docpkg \(arguments.joined(separator: " ")): \(result.standardError)")
    return result.standardOutput
  }

  /// The bytes of the regular files below `path`.
  func bytes(below path: String) throws -> Int {
    var total = 0
    for case let name as String in FileManager.default.enumerator(atPath: path) ?? .init() {
      let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
      if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
    }
    return total
  }

  @Test func aPullKeepsThePreviousStateWithoutCopyingWhatTheRemoteHolds() async throws {
    let (dir, _, _, a, b) = try await pushedAndCloned("version-on-remote")
    try dir.write("A.mydoc/notes.txt", "second\n")
    try run(["push", a, "--quiet"])
    try dir.write("B.mydoc/local.txt", "only here\n")  // a change of B's own: the version must copy it
    #expect(try run(["pull", b, "--quiet"]) == "merged\n")

    let store = dir.appending(".B.mydoc.docpkg-versions")
    #expect(try bytes(below: store) < 1 << 20, "the pull's version copied the package")
    let listed = try run(["versions", "list", b, "--json"])
    #expect(listed.contains("\"remote\":\"origin\""), "\(listed)")
    #expect(try run(["versions", "list", b]).contains("saved (files on origin)"))
    let checked = try run(["check", b])
    #expect(checked.contains("\non remote: version 1: 2 files on 'origin'\nok: "), "\(checked)")

    // Shown: the version's files are fetched first, checked, and kept.
    #expect(try run(["versions", "show", b, "1", "notes.txt"]) == "first\n")
    #expect(try bytes(below: store) > 8 << 20)
    #expect(try run(["remote", "fetch", b, "1"]) == "fetched 0 files\n")
    // Fetched, the version is one like any other: its files are no longer said to be on the remote.
    let relisted = try run(["versions", "list", b])
    #expect(!relisted.contains("files on origin"), "\(relisted)")
    let rechecked = try run(["check", b, "--full"])
    #expect(!rechecked.contains("on remote") && rechecked.contains("\nok: "), "\(rechecked)")
    try run(["versions", "restore", b, "1"])
    #expect(try String(contentsOfFile: b + "/notes.txt", encoding: .utf8) == "first\n")
    #expect(try String(contentsOfFile: b + "/local.txt", encoding: .utf8) == "only here\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: b + "/media/two.bin")) == noise(4 << 20, seed: 2))
  }

  @Test func restoreFetchesAndAPruneKeepsWhatThePinnedStateHolds() async throws {
    let (dir, _, _, a, b) = try await pushedAndCloned("version-pinned")
    try dir.write("A.mydoc/notes.txt", "second\n")
    try run(["push", a, "--quiet"])
    #expect(try run(["pull", b, "--quiet"]) == "fast-forward\n")
    // A replaces one.bin and pushes twice more; a prune keeping one state would delete the old one.bin, which
    // only B's version still needs.
    try dir.write("A.mydoc/media/one.bin", noise(4 << 20, seed: 3))
    try run(["push", a, "--quiet"])
    try dir.write("A.mydoc/notes.txt", "third\n")
    try run(["push", a, "--quiet"])
    #expect(try run(["remote", "prune", a, "--keep", "1"]).hasPrefix("kept 1 states"))

    try run(["versions", "restore", b, "1"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: b + "/media/one.bin")) == noise(4 << 20, seed: 1))
    #expect(try String(contentsOfFile: b + "/notes.txt", encoding: .utf8) == "first\n")
  }

  @Test func aFileGoneFromTheServerFailsTheFetchInOneLine() async throws {
    let (dir, client, _, a, b) = try await pushedAndCloned("version-gone")
    try dir.write("A.mydoc/notes.txt", "second\n")
    try run(["push", a, "--quiet"])
    try run(["pull", b, "--quiet"])
    let two = SHA256Hex.of(noise(4 << 20, seed: 2))
    try await client.delete("doc/blobs/\(two)")

    let result = try Shell.docpkg(["versions", "show", b, "1", "notes.txt"])
    #expect(result.status != 0)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1, "\(result.standardError)")
    #expect(lines.first?.contains("no longer has") == true && lines.first?.contains("doc/blobs/\(two)") == true)
    // Nothing half-fetched is taken for the version's: the other file was fetched, this one is still missing.
    #expect(try Shell.docpkg(["versions", "show", b, "1", "notes.txt"]).status != 0)
  }

  @Test func aFetchKilledMidDownloadIsDoneByTheNextRead() async throws {
    let (dir, _, _, a, b) = try await pushedAndCloned("version-fetch-killed")
    try dir.write("A.mydoc/notes.txt", "second\n")
    try run(["push", a, "--quiet"])
    try run(["pull", b, "--quiet"])
    let temporary = dir.appending(".B.mydoc.docpkg-sync/tmp")
    let (held, killed) = try await docpkgKilled(["remote", "fetch", b, "1"]) {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
      return names.contains { name in
        let size = (try? FileManager.default.attributesOfItem(atPath: temporary + "/" + name)[.size] as? Int) ?? 0
        return size > 1 << 20
      }
    }
    #expect(held && killed, "the fetch was not killed mid-download")
    #expect(try run(["versions", "show", b, "1", "notes.txt"]) == "first\n")
    let checked = try run(["check", b, "--full"])
    #expect(!checked.contains("on remote") && checked.contains("\nok: "), "\(checked)")
    let version = try VersionStore(forPackageAt: FilePath(b)).tree(of: 1)
    #expect(try version.node(at: "media/one.bin").contents() == noise(4 << 20, seed: 1))
    #expect(!FileManager.default.fileExists(atPath: dir.appending(".B.mydoc.docpkg-sync/fetching")))
  }

  @Test func theServedPageFetchesAVersionsFilesWhenItFirstReadsIt() async throws {
    let (dir, _, _, a, b) = try await pushedAndCloned("version-served")
    try dir.write("A.mydoc/notes.txt", "second\n")
    try run(["push", a, "--quiet"])
    try run(["pull", b, "--quiet"])
    let server = try RunningProcess(Shell.docpkgPath, ["serve", b])
    defer { server.stop() }
    #expect(await server.wait { $0.standardOutput.contains("\n") }, "\(server.standardError)")
    let url = try #require(server.standardOutput.split(separator: " ").last).trimmingCharacters(
      in: .whitespacesAndNewlines)
    let components = try #require(URLComponents(string: url))
    let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
    let port = try #require(components.port)
    let preview = try Shell.run(
      "curl", ["-fsS", "http://127.0.0.1:\(port)/api/preview?path=notes.txt&state=1&token=\(token)"], check: false)
    #expect(preview.status == 0, "\(preview.standardError)")
    #expect(preview.standardOutput.contains("\"text\":\"first\\n\""), "\(preview.standardOutput)")
    #expect(try !run(["check", b]).contains("on remote"))  // the page's read fetched them into the store
  }
}
