import Foundation
import TestSupport
import Testing

/// `docpkg unpack` waits for the disk only when something is at risk: with --force (the entry it
/// replaces is deleted right after the rename) or when asked with --sync.
@Suite struct UnpackDurabilityTests {
  /// The `syncfs` and `fsync` calls of `docpkg unpack` with `extra` arguments on a small zip
  /// (checking that the entry arrived whole).
  private func flushes(_ extra: [String], into temp: TemporaryDirectory) throws -> (syncfs: Int, fsync: Int) {
    let out = temp.appending("out")
    let (result, calls) = try Shell.traceDocpkg(
      ["unpack", temp.appending("z.zip"), "-o", out] + extra + ["--quiet"], calls: "syncfs,fsync")
    #expect(result.status == 0, "\(extra): \(result.standardError)")
    #expect(try String(contentsOfFile: out + "/Z/f9.txt", encoding: .utf8) == "9\n")
    return (calls.filter { $0.contains("syncfs(") }.count, calls.filter { $0.contains("fsync(") }.count)
  }

  @Test func onlyReplacingOrAskingWaitsForTheDisk() throws {
    guard Shell.has("strace"), Shell.has("zip") else {
      Issue.record("strace or zip is not installed (Scripts/setup.sh installs them)")
      return
    }
    let temp = try TemporaryDirectory()
    for index in 0..<10 { try temp.write("Z/f\(index).txt", "\(index)\n") }
    try Shell.run("zip", ["-qr", temp.appending("z.zip"), "Z"], directory: temp.path)
    try FileManager.default.createDirectory(atPath: temp.appending("out"), withIntermediateDirectories: false)

    let plain = try flushes([], into: temp)
    #expect(plain.syncfs == 0 && plain.fsync == 0, "a new entry puts nothing at risk: \(plain)")
    let replacing = try flushes(["--force"], into: temp)
    #expect(replacing.syncfs == 1 && replacing.fsync >= 1, "--force deletes the old entry: \(replacing)")
    try FileManager.default.removeItem(atPath: temp.appending("out/Z"))
    let synced = try flushes(["--sync"], into: temp)
    #expect(synced.syncfs == 1 && synced.fsync >= 1, "--sync: \(synced)")
  }
}
