import DocumentPackage
import Foundation
import PackageServer
import TestSupport
import Testing

/// Issue 38, point 3: work whose client has gone stops. A preview being re-indented or a comparison being made
/// stops within a bounded time once its client closes the connection, and frees its place (the preview pool's, the
/// browser's queue), so that the next client is not kept waiting behind work nobody will read.
@Suite("docpkg serve stops work whose client has gone", .serialized)
struct AbandonedWorkTests {
  /// A JSON file of 2 MiB (the most a preview re-indents) of small objects: its re-indented form reaches the
  /// output limit.
  static var heavyJSON: String {
    let item = "{\"key\": [1, 2, 3], \"name\": \"value\"},"
    return "[" + String(repeating: item, count: (2 << 20) / item.utf8.count - 1) + "0]"
  }

  /// A text of `lines` lines, every 50th line marked with `mark`: two such texts differ in every 50th line.
  static func text(lines: Int, mark: String) -> String {
    var text = ""
    text.reserveCapacity(lines * 48)
    for line in 0..<lines {
      text += "line \(line) of a long text\(line % 50 == 0 ? mark : ""), long enough to compare\n"
    }
    return text
  }

  @Test("abandoned heavy previews and comparisons stop: a small preview after them is answered within 2 s")
  func abandonedPreviewsAndComparisons() async throws {
    let (temp, otherTemp) = (try TemporaryDirectory(), try TemporaryDirectory())
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let other = try await offThePool { try Fixtures.copy("Notes.mydoc", into: otherTemp) }
    try temp.write("Notes.mydoc/heavy.json", Self.heavyJSON)
    try temp.write("Notes.mydoc/big.txt", Self.text(lines: 150_000, mark: " (new)"))
    try otherTemp.write("Notes.mydoc/big.txt", Self.text(lines: 150_000, mark: " (old)"))
    try temp.write("Notes.mydoc/small.json", "{\"a\": [1, 2]}")
    let served = try await Served(package: package, compared: [other])
    let (server, port) = (served.server, served.port)
    func request(_ route: String, _ parameters: [String: String]) -> String {
      "GET \(Served.target(route, parameters)) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
    }
    // Comparisons of the two big texts (each thousands of changed lines: the line search runs to its limit),
    // then heavy previews, each from a client that leaves before the answer.
    let diff = request("/api/diff", ["from": "compared-0", "to": "current"])
    let preview = request("/api/preview", ["path": "heavy.json"])
    var abandoned = try await offThePool { () -> [RawConnection] in
      let connections = try (0..<11).map { _ in try RawConnection(port: port, timeout: 10) }
      for (index, connection) in connections.enumerated() { connection.send(index < 3 ? diff : preview) }
      return connections
    }
    // Both places of the preview pool are taken: the previews are being made (or wait for the comparisons).
    #expect(await eventually { server.runningPreviews == 2 })
    abandoned.removeAll()  // every client leaves
    let start = ContinuousClock.now
    let reply = try await served.get("/api/preview", ["path": "small.json"])
    let elapsed = ContinuousClock.now - start
    #expect(reply.status == 200 && reply.json["pretty"] as? Bool == true, "\(reply)")
    #expect(elapsed <= .seconds(2), "a small preview after abandoned work answered in \(elapsed)")
    print("serve-test: a small preview after 3 abandoned comparisons and 8 abandoned previews answered in \(elapsed)")
    // The places are free again, and a comparison whose client stays is whole.
    #expect(await eventually { server.runningPreviews == 0 })
    let compared = try await served.get("/api/diff", ["from": "compared-0", "to": "current"])
    #expect(compared.status == 200 && compared.text.contains("big.txt"), "\(compared.status)")
    await served.stop()
  }
}
