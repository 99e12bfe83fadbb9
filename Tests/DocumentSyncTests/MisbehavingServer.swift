import Foundation
import TestSupport

/// A server on 127.0.0.1 that misbehaves one way (`Tests/Scripts/misbehaving_server.py`): accepts and never
/// answers, answers a bare 404, stalls in the middle of an answer, or answers every request 503 SlowDown. It logs
/// every request line it reads; stopped when the value goes.
final class MisbehavingServer {
  enum Mode: String {
    case silent, bare404, stall, busy
    /// Relays to the real server; while ``cut`` is set, closes every connection (the network gone); while
    /// ``stalled`` is set, relays nothing.
    case forward
  }

  let process: RunningProcess
  let log: String
  let port: Int

  /// `http://127.0.0.1:PORT`.
  var endpoint: String { "http://127.0.0.1:\(port)" }

  /// Starts one, logging into a file of `directory`.
  init(_ mode: Mode, in directory: TemporaryDirectory) async throws {
    log = directory.appending("requests-\(mode.rawValue).log")
    process = try RunningProcess(
      "/usr/bin/env",
      ["python3", Fixtures.script("misbehaving_server.py"), mode.rawValue, log]
        + (mode == .forward ? [String(ObjectStore.port)] : []))
    await process.wait(seconds: 30) { $0.standardOutput.contains("\n") }
    guard let port = Int(process.standardOutput.split(separator: "\n").first ?? "") else {
      process.stop()
      throw ServerDidNotStart(output: process.standardError)
    }
    self.port = port
  }

  struct ServerDidNotStart: Error {
    var output: String
  }

  /// The request lines it read so far (`GET /bucket/key HTTP/1.1`).
  var requests: [String] {
    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// A forwarding server's network: while true, every connection is closed at once.
  var cut: Bool {
    get { flag(".down") }
    set { setFlag(".down", newValue) }
  }

  /// A forwarding server's transfers: while true, nothing read is relayed (the connections stay open).
  var stalled: Bool {
    get { flag(".stall") }
    set { setFlag(".stall", newValue) }
  }

  /// Whether the flag file beside the server's log that the server looks for is there.
  private func flag(_ suffix: String) -> Bool { FileManager.default.fileExists(atPath: log + suffix) }

  private func setFlag(_ suffix: String, _ on: Bool) {
    if on {
      let created = FileManager.default.createFile(atPath: log + suffix, contents: Data())
      precondition(created, "cannot create \(log + suffix)")
    } else {
      try? FileManager.default.removeItem(atPath: log + suffix)
    }
  }

  deinit { process.stop() }
}
