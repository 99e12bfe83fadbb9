import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Conflict versions every device sees (issue 26): a conflict a pull keeps on one device is pushed with the state,
/// listed on the other after its pull, and resolving it on either device clears it on both.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncConflictTests {
  func docpkg(_ arguments: [String], input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> String
  {
    let result = try Shell.docpkg(arguments, input: input.map { Data($0.utf8) })
    #expect(result.status == 0, "\(arguments): \(result.standardError)", sourceLocation: sourceLocation)
    return result.standardOutput
  }

  /// The package's unresolved conflict versions: id and paths.
  func unresolved(_ package: String) throws -> [(id: Int, paths: [String])] {
    try VersionStore(forPackageAt: FilePath(package)).unresolvedConflicts().map { ($0.id, $0.conflictPaths) }
  }

  /// Both devices change the same line of Notes.txt; `second` pushes after `first` and pulls: a conflict on `second`.
  func makeConflict(first: String, second: String, round: Int) throws -> Int {
    _ = try docpkg(["put", first, "Notes.txt", "-"], input: "first's line \(round)\n")
    _ = try docpkg(["push", first])
    _ = try docpkg(["put", second, "Notes.txt", "-"], input: "second's line \(round)\n")
    let pulled = try docpkg(["pull", second])
    #expect(pulled.hasPrefix("conflict "), "\(pulled)")
    let conflicts = try unresolved(second)
    #expect(conflicts.count == 1 && conflicts.first?.paths == ["Notes.txt"])
    return try #require(conflicts.first?.id)
  }

  @Test func aConflictIsSeenAndResolvedOnBothDevices() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("sync-conflicts")
    try dir.write("A.mydoc/Notes.txt", "a line\n")
    try dir.write("A.mydoc/Pages/one.txt", "one\n")
    let (a, b) = (dir.appending("A.mydoc"), dir.appending("B.mydoc"))
    let url = "s3://\(client.bucket)/notes"
    _ = try docpkg(["remote", "add", a, "origin", url, "--endpoint", ObjectStore.endpointURL])
    _ = try docpkg(["push", a])
    _ = try docpkg(["clone", url, b, "--endpoint", ObjectStore.endpointURL])

    // Round 1: B keeps the conflict; B pushes it; A sees it after its pull, with B's text; A resolves; B sees it go.
    let onB = try makeConflict(first: a, second: b, round: 1)
    #expect(try docpkg(["push", b]).hasPrefix("pushed"))  // not "up to date": the conflict goes up with the state
    // A device that clones now lists the conflict at once, with B's text, and has nothing to pull.
    let c = dir.appending("C.mydoc")
    _ = try docpkg(["clone", url, c, "--endpoint", ObjectStore.endpointURL])
    let onC = try unresolved(c)
    #expect(onC.count == 1 && onC.first?.paths == ["Notes.txt"])
    let cloned = try VersionStore(forPackageAt: FilePath(c)).tree(of: try #require(onC.first?.id))
    #expect(try cloned.node(at: "Notes.txt").contents() == Data("second's line 1\n".utf8))
    #expect(try cloned.node(at: "Pages/one.txt").contents() == Data("one\n".utf8))
    let pulledByC = try docpkg(["pull", c])
    #expect(pulledByC == "up to date\nunresolved conflict \(onC.first?.id ?? 0) Notes.txt\n", "\(pulledByC)")
    let pulled = try docpkg(["pull", a])
    #expect(pulled.contains("unresolved conflict "), "\(pulled)")
    let onA = try unresolved(a)
    #expect(onA.count == 1 && onA.first?.paths == ["Notes.txt"])
    let version = try VersionStore(forPackageAt: FilePath(a)).tree(of: try #require(onA.first?.id))
    #expect(try version.node(at: "Notes.txt").contents() == Data("second's line 1\n".utf8))
    #expect(try version.node(at: "Pages/one.txt").contents() == Data("one\n".utf8))
    #expect(try docpkg(["versions", "list", a, "--json"]).contains("\"resolved\":false"))
    #expect(try docpkg(["push", a]) == "up to date\n")  // same state, same list: nothing goes back and forth

    _ = try docpkg(["versions", "resolve", a])
    #expect(try unresolved(a).isEmpty)
    #expect(try docpkg(["push", a]).hasPrefix("pushed"))
    #expect(try docpkg(["pull", b]) == "up to date\n")
    #expect(try unresolved(b).isEmpty)
    #expect(try VersionStore(forPackageAt: FilePath(b)).version(onB).isResolved)
    #expect(try docpkg(["push", b]) == "up to date\n")

    // Round 2, the other way: A keeps the conflict and resolves it itself; B, which had seen it, sees it go.
    _ = try makeConflict(first: b, second: a, round: 2)
    _ = try docpkg(["push", a])
    #expect(try docpkg(["pull", b]).contains("unresolved conflict "))
    #expect(try unresolved(b).count == 1)
    _ = try docpkg(["versions", "resolve", a])
    _ = try docpkg(["push", a])
    _ = try docpkg(["pull", b])
    #expect(try unresolved(b).isEmpty)
    #expect(try unresolved(a).isEmpty)
  }
}
