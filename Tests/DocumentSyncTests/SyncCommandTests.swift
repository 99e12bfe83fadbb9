import Foundation
import TestSupport
import Testing

/// `docpkg remote`, `push`, `clone`, `pull` end to end against the real server.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncCommandTests {
  @Test func twoDeviceWalkthrough() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("sync-cli")
    try dir.write("Trip.mydoc/Index.json", "{}\n")
    try dir.write("Trip.mydoc/Notes/day1.txt", "day one\n")
    let laptop = dir.appending("Trip.mydoc")
    let desktop = dir.appending("Desk/Trip.mydoc")
    try FileManager.default.createDirectory(atPath: dir.appending("Desk"), withIntermediateDirectories: true)
    let url = "s3://\(client.bucket)/notes/trip"
    let endpoint = ObjectStore.endpointURL

    var result = try Shell.docpkg(["remote", "add", laptop, "origin", url, "--endpoint", endpoint])
    #expect(result.status == 0, "\(result.standardError)")
    result = try Shell.docpkg(["remote", "list", laptop])
    #expect(result.standardOutput == "origin\t\(url)\t\(endpoint)\n")
    #expect(!result.standardOutput.contains(ObjectStore.environment["AWS_SECRET_ACCESS_KEY"] ?? "-"))
    result = try Shell.docpkg(["push", laptop])
    #expect(result.standardOutput.hasPrefix("pushed 2 blobs, 2 trees"), "\(result.standardError)")
    result = try Shell.docpkg(["clone", url, desktop, "--endpoint", endpoint])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: desktop + "/Notes/day1.txt", encoding: .utf8) == "day one\n")

    // The desktop pushes an edit; the laptop, edited meanwhile, is refused, pulls (a merge), pushes.
    #expect(try Shell.docpkg(["put", desktop, "Notes/day2.txt", "-"], input: Data("day two\n".utf8)).status == 0)
    #expect(try Shell.docpkg(["push", desktop]).standardOutput.hasPrefix("pushed 1 blobs, 2 trees"))
    #expect(try Shell.docpkg(["put", laptop, "Index.json", "-"], input: Data("{\"days\":2}\n".utf8)).status == 0)
    result = try Shell.docpkg(["push", laptop])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("docpkg: error: "))
    #expect(result.standardError.contains("pull, then push again"))
    #expect(try Shell.docpkg(["pull", laptop]).standardOutput == "merged\n")
    #expect(try String(contentsOfFile: laptop + "/Notes/day2.txt", encoding: .utf8) == "day two\n")
    #expect(try Shell.docpkg(["push", laptop]).standardOutput.hasPrefix("pushed 1 blobs, 1 trees"))
    #expect(try Shell.docpkg(["pull", desktop]).standardOutput == "fast-forward\n")
    #expect(try String(contentsOfFile: desktop + "/Index.json", encoding: .utf8) == "{\"days\":2}\n")

    // Nothing about sync is inside the packages; the remote goes away with `remote remove`.
    #expect(!FileManager.default.fileExists(atPath: laptop + "/.docpkg-sync"))
    #expect(try Shell.docpkg(["remote", "remove", laptop, "origin"]).status == 0)
    #expect(try Shell.docpkg(["remote", "list", laptop]).standardOutput == "")
    result = try Shell.docpkg(["push", laptop])
    #expect(result.standardError.contains("no remote 'origin'"))
  }

}

/// What the sync commands say without a server.
@Suite struct SyncCommandOfflineTests {
  @Test func missingCredentialsAreAnError() throws {
    let dir = try TemporaryDirectory("sync-cli-creds")
    try dir.write("A.mydoc/a.txt", "a")
    let result = try Shell.run(
      "/usr/bin/env",
      [
        "-u", "AWS_ACCESS_KEY_ID", "-u", "AWS_SECRET_ACCESS_KEY", "HOME=\(dir.path)", Shell.docpkgPath, "remote", "add",
        dir.appending("A.mydoc"), "origin", "s3://b/p", "--endpoint", "http://127.0.0.1:1",
      ], check: false)
    #expect(result.status == 1)
    #expect(result.standardError.contains("no credentials"))
  }
}
