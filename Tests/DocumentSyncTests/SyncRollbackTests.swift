import DocumentSync
import Foundation
import TestSupport
import Testing

/// An older head put back on the server (issue 39), plain and encrypted, through `docpkg` against the real server:
/// a device that took a newer head refuses it, in one line and changing nothing, and takes it only when told to.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncRollbackTests {
  static let passphrase = ["DOCPKG_SYNC_PASSPHRASE": "a long passphrase for the rollback tests"]

  /// Runs `docpkg arguments` with the passphrase in its environment.
  @discardableResult
  func docpkg(_ arguments: [String], input: String? = nil) throws -> Shell.Output {
    try Shell.docpkg(arguments, input: input.map { Data($0.utf8) }, environment: Self.passphrase)
  }

  func read(_ package: String, _ path: String) throws -> String {
    try String(contentsOfFile: package + "/" + path, encoding: .utf8)
  }

  @Test(arguments: [false, true]) func anOlderHeadPutBackIsRefused(encrypted: Bool) async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("rollback")
    try dir.write("A.mydoc/notes.txt", "first\n")
    let (a, b) = (dir.appending("A.mydoc"), dir.appending("B.mydoc"))
    let url = "s3://\(client.bucket)/p"
    #expect(
      try docpkg(
        ["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL] + (encrypted ? ["--encrypt"] : [])
      ).status == 0)
    #expect(try docpkg(["push", a]).status == 0)
    #expect(try docpkg(["clone", url, b, "--endpoint", ObjectStore.endpointURL]).status == 0)
    let older = try await client.get("p/head").data

    #expect(try docpkg(["put", a, "notes.txt", "-"], input: "second\n").status == 0)
    #expect(try docpkg(["push", a]).status == 0)
    #expect(try docpkg(["pull", b]).standardOutput == "fast-forward\n")
    // Someone with write access to the bucket puts the first head back.
    try await client.put("p/head", data: older)

    for (device, arguments) in [(b, ["pull", b]), (a, ["push", a]), (b, ["sync", b])] {
      let refused = try docpkg(arguments + ["--quiet"])
      #expect(refused.status == 1, "\(arguments): \(refused.standardOutput)")
      let lines = refused.standardError.split(separator: "\n")
      #expect(lines.count == 1, "\(refused.standardError)")
      #expect(
        refused.standardError.contains("the remote's head is older than the one this device took last"),
        "\(refused.standardError)")
      #expect(refused.standardError.contains("docpkg pull --accept-rollback \(device)"), "\(refused.standardError)")
      #expect(try read(device, "notes.txt") == "second\n")  // nothing changed
    }
    #expect(try await client.get("p/head").data == older)  // nor on the server

    // Told to, B takes it; its next push is numbered above what A saw, so A takes that.
    #expect(try docpkg(["pull", b, "--accept-rollback"]).standardOutput == "fast-forward\n")
    #expect(try read(b, "notes.txt") == "first\n")
    #expect(try docpkg(["put", b, "notes.txt", "-"], input: "third\n").status == 0)
    #expect(try docpkg(["push", b]).status == 0)
    let pulled = try docpkg(["pull", a])
    #expect(pulled.status == 0, "\(pulled.standardError)")
    #expect(try read(a, "notes.txt") == "third\n")
  }
}
