import DocumentSync
import Foundation
import TestSupport
import Testing

/// `docpkg remote check [--read-data] [--repair]` (issue 39) against the real server: a blob overwritten on the
/// server is found (by its size, or with --read-data by its hash), repaired from a device that has it, and a clone
/// afterwards is whole.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncCheckTests {
  @discardableResult
  func docpkg(_ arguments: [String]) throws -> Shell.Output { try Shell.docpkg(arguments) }

  @Test func aBlobOverwrittenOnTheServerIsFoundAndRepaired() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("remote-check")
    let page = "the page the server damages\n"
    try dir.write("A.mydoc/Pages/one.txt", page)
    try dir.write("A.mydoc/Index.json", "{}\n")
    let (a, b) = (dir.appending("A.mydoc"), dir.appending("B.mydoc"))
    let url = "s3://\(client.bucket)/p"
    #expect(try docpkg(["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL]).status == 0)
    #expect(try docpkg(["push", a]).status == 0)
    #expect(try docpkg(["clone", url, b, "--endpoint", ObjectStore.endpointURL]).status == 0)
    let key = "p/blobs/\(SHA256Hex.of(Data(page.utf8)))"
    let whole = try docpkg(["remote", "check", b])
    #expect(whole.status == 0, "\(whole.standardError)")
    #expect(whole.standardOutput.hasSuffix(": ok\n"), "\(whole.standardOutput)")

    // Overwritten with other bytes of another size: found by the sizes alone.
    try await client.put(key, data: Data("garbage\n".utf8))
    let found = try docpkg(["remote", "check", b])
    #expect(found.status == 1)
    #expect(found.standardOutput == "damaged \(key): 8 bytes, expected \(page.utf8.count)\n", "\(found.standardOutput)")
    #expect(found.standardError.contains("1 damaged (--repair uploads again what this device has)"))

    // Overwritten with bytes of the same size: only --read-data sees it.
    try await client.put(key, data: Data(String(repeating: "x", count: page.utf8.count).utf8))
    #expect(try docpkg(["remote", "check", b]).status == 0)
    let read = try docpkg(["remote", "check", b, "--read-data"])
    #expect(read.status == 1)
    #expect(read.standardOutput == "damaged \(key): does not hash to its name, or does not open\n")
    #expect(try docpkg(["clone", url, dir.appending("C.mydoc"), "--endpoint", ObjectStore.endpointURL]).status == 1)

    let repaired = try docpkg(["remote", "check", b, "--read-data", "--repair"])
    #expect(repaired.status == 0, "\(repaired.standardError)")
    #expect(repaired.standardOutput.contains("repaired \(key)\n"), "\(repaired.standardOutput)")
    #expect(try docpkg(["remote", "check", a, "--read-data"]).standardOutput.hasSuffix(": ok\n"))
    let d = dir.appending("D.mydoc")
    #expect(try docpkg(["clone", url, d, "--endpoint", ObjectStore.endpointURL]).status == 0)
    #expect(try String(contentsOfFile: d + "/Pages/one.txt", encoding: .utf8) == page)
  }
}
