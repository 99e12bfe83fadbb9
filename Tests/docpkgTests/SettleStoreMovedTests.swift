import Foundation
import TestSupport
import Testing

/// A settle runs in the background of every app that saves with versions: whatever other programs do to the
/// version store meanwhile, it may fail, never take the process down.
@Suite("docpkg versions settle: the store moved away meanwhile")
struct SettleStoreMovedTests {
  /// Paused (strace) just after it read the oldest pending record, the store is moved away, and the settle
  /// goes on. It listed no pending record then, and took the first of none (Array index out of range: the
  /// process crashed; in an app, the app).
  @Test(.enabled(if: Shell.has("strace")))
  func aStoreMovedWhileASettleReadsItFailsTheSettleNotTheProcess() async throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    let environment = ["DOCPKG_NO_BACKGROUND_SETTLE": "1"]
    for index in 1...3 {
      let arguments = ["put", package, "a/f\(index).txt"] + (index == 1 ? ["--create"] : [])
      let put = try Shell.docpkg(arguments, input: Data("v\(index)\n".utf8), environment: environment)
      #expect(put.status == 0, "\(put.standardError)")
    }
    let store = temp.appending(".P.mydoc.docpkg-versions")
    let trace = temp.appending("settle.trace")
    // The second opening of pending/1: the settle's own read of the oldest record, before it lists the others.
    let settle = Process()
    settle.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    settle.arguments = [
      "DOCPKG_NO_BACKGROUND_SETTLE=1", "strace", "-f", "-o", trace, "-P", store + "/pending/1", "-e", "trace=openat",
      "-e", "inject=openat:signal=SIGSTOP:when=2", Shell.docpkgPath, "versions", "settle", package,
    ]
    let errors = Pipe()
    settle.standardError = errors
    settle.standardOutput = FileHandle.nullDevice
    try settle.run()
    func stoppedProcess() -> String? {
      guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else { return nil }
      return text.split(separator: "\n").first { $0.hasSuffix("--- stopped by SIGSTOP ---") }
        .map { String($0.prefix { $0 != " " }) }
    }
    let stopped = await eventually(seconds: 60) { stoppedProcess() != nil }
    try #require(stopped, "the settle never read pending/1 twice")
    try FileManager.default.moveItem(atPath: store, toPath: temp.appending("moved-store"))
    try Shell.run("kill", ["-CONT", stoppedProcess()!])
    let ended = await eventually(seconds: 60) { !settle.isRunning }
    try #require(ended)
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(settle.terminationReason == .exit, "the settle crashed: \(message)")
    #expect(!message.contains("Fatal error"), "\(message)")
  }
}
