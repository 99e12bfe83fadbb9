import Foundation
import TestSupport
import Testing

/// A file over 1 GiB pushed and cloned by `docpkg` against the real server in bounded memory: multipart upload with
/// a few parts in flight, streamed download. (The 4 GiB file is a benchmark row, Benchmarks/rows/sync.py:
/// the test server's memory-backed disk holds 4 GiB in all.)
@Suite(
  .enabled(
    if: ObjectStore.isConfigured && FileManager.default.fileExists(atPath: "/usr/bin/time"), ObjectStore.skipReason))
struct SyncLargeFileTests {
  /// Runs `docpkg` under GNU time; returns its output and its peak resident set in KiB.
  func measured(_ arguments: [String]) throws -> (Shell.Output, Int) {
    let output = try Shell.run(
      "/usr/bin/time", ["-f", "peak %M"] + [Shell.docpkgPath] + arguments, check: false)
    let line = output.standardError.split(separator: "\n").last { $0.hasPrefix("peak ") }
    return (output, line.flatMap { Int($0.dropFirst(5)) } ?? .max)
  }

  @Test func aFileOverOneGiBIsPushedAndClonedInBoundedMemory() async throws {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory("sync-large")
    try dir.write("Big.mydoc/small.txt", "small\n")
    let big = dir.appending("Big.mydoc/big.raw")
    let size: UInt64 = (1 << 30) + 12_345
    // Sparse but for a few marked places, so that a misplaced part would show in the hash.
    _ = FileManager.default.createFile(atPath: big, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
    for offset: UInt64 in [0, 8 << 20, (8 << 20) - 3, 300 << 20, size - 7] {
      try handle.seek(toOffset: offset)
      try handle.write(contentsOf: Data("mark\(offset)".utf8).prefix(7))
    }
    try handle.truncate(atOffset: size)
    try handle.close()
    let url = "s3://\(client.bucket)/big"
    let package = dir.appending("Big.mydoc")
    var result = try Shell.docpkg(["remote", "add", package, "origin", url, "--endpoint", ObjectStore.endpointURL])
    #expect(result.status == 0, "\(result.standardError)")

    let (push, pushPeak) = try measured(["push", package, "--quiet"])
    #expect(push.status == 0, "\(push.standardError)")
    #expect(push.standardOutput.hasPrefix("pushed 2 blobs"))
    // A quarter of the file: a few parts in flight (twice each: the part and its request body), not the file.
    #expect(pushPeak < 256 * 1024, "push peak RSS \(pushPeak) KiB")

    let copy = dir.appending("Copy.mydoc")
    let (clone, clonePeak) = try measured(["clone", url, copy, "--endpoint", ObjectStore.endpointURL, "--quiet"])
    #expect(clone.status == 0, "\(clone.standardError)")
    #expect(clonePeak < 256 * 1024, "clone peak RSS \(clonePeak) KiB")
    result = try Shell.run("sha256sum", [big, copy + "/big.raw"])
    let sums = result.standardOutput.split(separator: "\n").map { $0.prefix(64) }
    #expect(sums.count == 2 && sums[0] == sums[1])
  }
}
