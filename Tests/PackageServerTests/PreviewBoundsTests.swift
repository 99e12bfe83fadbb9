import DocumentPackage
import Foundation
import PackageServer
import TestSupport
import Testing

/// Issue 38, point 2: the JSON and XML re-indenters make output linear in their input, however deep it nests:
/// files that nest 50,000 to 1,048,576 levels deep preview within the response limit, and the server goes on
/// answering.
@Suite("docpkg serve bounds what a preview re-indents")
struct PreviewBoundsTests {
  /// The largest preview response: 8 MiB.
  static let responseLimit = 8 << 20

  /// Previews `path`, and checks that the response is a bounded, re-indented, truncated text and that the server
  /// answers another request after it.
  static func expectBounded(_ served: Served, _ path: String, form: String) async throws {
    let start = ContinuousClock.now
    let reply = try await served.get("/api/preview", ["path": path])
    let elapsed = ContinuousClock.now - start
    #expect(reply.status == 200, "\(path): \(reply)")
    #expect(reply.body.count <= responseLimit, "\(path): a response of \(reply.body.count) bytes")
    #expect(reply.json["form"] as? String == form && reply.json["pretty"] as? Bool == true, "\(path)")
    #expect(reply.json["truncated"] as? Bool == true, "\(path)")
    // Each line holds one bracket or tag, indented by at most 32 levels.
    let lines = (reply.json["text"] as? String ?? "").split(separator: "\n")
    #expect(lines.count > 1000 && lines.allSatisfy { $0.utf8.count <= 64 + 7 }, "\(path)")
    #expect(elapsed < .seconds(5), "\(path): previewed in \(elapsed)")
    print("serve-test: \(path) previewed in \(elapsed), \(reply.body.count) bytes")
    #expect(try await served.get("/api/info").status == 200)
  }

  @Test("a 200 KB JSON nested 100,000 deep and an XML nested 50,000 deep preview in a bounded response")
  func deepFiles() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let depth = 100_000
    try temp.write("Notes.mydoc/deep.json", String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
    try temp.write(
      "Notes.mydoc/deep.xml", String(repeating: "<a>", count: depth / 2) + String(repeating: "</a>", count: depth / 2))
    // A deep file that is not cut: its lines stop indenting at 32 levels.
    try temp.write("Notes.mydoc/forty.json", String(repeating: "[", count: 40) + String(repeating: "]", count: 40))
    let served = try await Served(package: package)
    try await Self.expectBounded(served, "deep.json", form: "json")
    try await Self.expectBounded(served, "deep.xml", form: "xml")
    let forty = try await served.get("/api/preview", ["path": "forty.json"])
    let lines = (forty.json["text"] as? String ?? "").split(separator: "\n")
    #expect(lines.count == 79 && forty.json["truncated"] as? Bool == false, "\(forty)")
    #expect(lines.map { $0.prefix { $0 == " " }.count }.max() == 64)
    await served.stop()
  }

  @Test("a 2 KB zip holding '[' × 1,048,576 then ']' × 1,048,576 as a .json previews in a bounded response")
  func bracketBomb() async throws {
    let temp = try TemporaryDirectory()
    let zip = temp.appending("bomb.zip")
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
          archive.writestr("bomb.json", "[" * 1048576 + "]" * 1048576)
      """
    _ = try await offThePool { try Shell.run("python3", ["-c", script, zip]) }
    let size = try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int ?? 0
    #expect(size < 8 << 10, "the zip has \(size) bytes")
    let served = try await Served(package: zip)
    try await Self.expectBounded(served, "bomb.json", form: "json")
    await served.stop()
  }

  @Test("control characters, which neither JSON nor XML allows, or bytes that are not UTF-8 leave a file as it is")
  func controlCharacters() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    try temp.write("Notes.mydoc/bell.json", "{\"a\": \"\u{7}\"}")
    // UTF-8 for the first 4 KB (a text form), then bytes that are not: each would grow into U+FFFD.
    try temp.write(
      "Notes.mydoc/latin1.json", Data("[".utf8 + Array(repeating: 0x20, count: 5000) + [0xFF, 0xFE, 0x5D]))
    let served = try await Served(package: package)
    let reply = try await served.get("/api/preview", ["path": "bell.json"])
    #expect(reply.json["pretty"] as? Bool == false && reply.json["text"] as? String == "{\"a\": \"\u{7}\"}")
    let latin1 = try await served.get("/api/preview", ["path": "latin1.json"])
    #expect(latin1.json["form"] as? String == "json" && latin1.json["pretty"] as? Bool == false, "\(latin1)")
    await served.stop()
  }
}
