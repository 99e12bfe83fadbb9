import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// What the page reads through the JSON API: the tree a page at a time, previews by ranges, the size map.
@Suite("docpkg serve: tree, preview, size map")
struct BrowsingTests {
  @Test("the root lists each entry with kind, size, mode and link target; a directory opens on its own")
  func rootAndChildren() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    _ = try temp.symlink("Notes.mydoc/link", to: "Text.txt")
    let served = try await Served(package: package)
    let root = try await served.get("/api/children", ["path": ""])
    #expect(root.status == 200, "\(root)")
    let entries = root.json["entries"] as? [[String: Any]] ?? []
    // Entries are described as `inspect --json` describes them: by path, no name apart.
    #expect(entries.map { $0["path"] as? String } == ["Images", "Index.json", "QuickLook", "Text.txt", "link"])
    #expect(entries.allSatisfy { $0["name"] == nil })
    let text = entries.first { $0["path"] as? String == "Text.txt" }
    let size = try FileManager.default.attributesOfItem(atPath: package + "/Text.txt")[.size] as? Int
    #expect(text?["kind"] as? String == "file" && text?["size"] as? Int == size && text?["mode"] as? String == "0644")
    #expect(entries.last?["target"] as? String == "Text.txt" && entries.last?["kind"] as? String == "symlink")
    let images = try await served.get("/api/children", ["path": "Images"])
    #expect((images.json["entries"] as? [[String: Any]])?.first?["path"] as? String == "Images/tram.png")
    let file = try await served.get("/api/children", ["path": "Text.txt"])
    #expect(file.status == 400, "\(file)")
    let missing = try await served.get("/api/children", ["path": "Nothing"])
    #expect(missing.status == 404 && missing.text.contains("Nothing"), "\(missing)")
    await served.stop()
  }

  @Test("a directory of 3,000 entries is sent a page at a time, sorted by name or size, filtered by name")
  func pagedSortedFiltered() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Many.mydoc")
    let pages = try temp.makeDirectory("Many.mydoc/Pages")
    // One process writes them (Foundation's file writes, one by one, took seconds).
    let script = "import sys\nfor i in range(3000): open(f'{sys.argv[1]}/p{i:04d}.txt', 'w').write('x' * (i % 97))"
    try await offThePool { _ = try Shell.run("python3", ["-c", script, pages]) }
    let served = try await Served(package: package)
    let first = try await served.get("/api/children", ["path": "Pages", "limit": "200"])
    #expect(first.json["total"] as? Int == 3000)
    let names = (first.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(names.count == 200 && names.first == "Pages/p0000.txt" && names.last == "Pages/p0199.txt")
    let later = try await served.get("/api/children", ["path": "Pages", "offset": "2900", "limit": "200"])
    let tail = (later.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(tail.count == 100 && tail.last == "Pages/p2999.txt" && later.json["offset"] as? Int == 2900)
    let bySize = try await served.get("/api/children", ["path": "Pages", "sort": "size", "limit": "3"])
    let sizes = (bySize.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["size"] as? Int }
    #expect(sizes == [96, 96, 96], "\(bySize)")
    let filtered = try await served.get("/api/children", ["path": "Pages", "filter": "P12"])
    #expect(filtered.json["total"] as? Int == 100, "\(filtered)")  // p1200.txt ... p1299.txt, any case
    await served.stop()
  }

  @Test("a large text file comes in ranges of whole lines, numbered by the page, never read whole")
  func textRanges() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Big.mydoc")
    let lines = (1...40_000).map { "line \($0) ünïcödé \(String(repeating: "·", count: $0 % 13))" }
    let text = lines.joined(separator: "\n") + "\n"
    try temp.write("Big.mydoc/log.txt", text)
    let served = try await Served(package: package)
    var offset = 0
    var pieces: [String] = []
    while true {
      let part = try await served.get("/api/preview", ["path": "log.txt", "offset": String(offset)])
      #expect(part.status == 200 && part.json["form"] as? String == "text", "\(part)")
      let piece = part.json["text"] as? String ?? ""
      #expect(piece.utf8.count <= 256 << 10 && (piece.hasSuffix("\n")))
      pieces.append(piece)
      guard let next = part.json["next"] as? Int else { break }
      #expect(next == offset + piece.utf8.count)
      offset = next
    }
    #expect(pieces.count > 1 && pieces.joined() == text)
    await served.stop()
  }

  @Test("JSON and XML are re-indented with every token kept; images, SVG and other bytes get their own form")
  func forms() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    try temp.write("Notes.mydoc/data.json", #"{"b":[1,2.50,{"c":"x,y:{z}"}],"a":{},"e":"\"q\""}"#)
    try temp.write(
      "Notes.mydoc/content.xml", #"<?xml version="1.0"?><doc a="1"><p>Hi &amp; bye</p><br/><!-- c --></doc>"#)
    try temp.write("Notes.mydoc/blob.bin", Data([0, 1, 2, 0xFF, 0x41, 0x42]))
    let served = try await Served(package: package)
    let json = try await served.get("/api/preview", ["path": "data.json"])
    #expect(json.json["form"] as? String == "json" && json.json["pretty"] as? Bool == true)
    #expect(
      json.json["text"] as? String == """
        {
          "b": [
            1,
            2.50,
            {
              "c": "x,y:{z}"
            }
          ],
          "a": {},
          "e": "\\"q\\""
        }
        """)
    let xml = try await served.get("/api/preview", ["path": "content.xml"])
    #expect(
      xml.json["text"] as? String == """
        <?xml version="1.0"?>
        <doc a="1">
          <p>
            Hi &amp; bye
          </p>
          <br/>
          <!-- c -->
        </doc>

        """, "\(xml)")
    let png = try await served.get("/api/preview", ["path": "Images/tram.png"])
    #expect(png.json["form"] as? String == "image" && png.json["mediaType"] as? String == "image/png")
    let raw = try await served.get("/api/raw", ["path": "Images/tram.png"])
    #expect(raw.status == 200 && raw.header("Content-Type") == "image/png")
    #expect(Data(raw.body) == (try Data(contentsOf: URL(fileURLWithPath: package + "/Images/tram.png"))))
    let binary = try await served.get("/api/preview", ["path": "blob.bin"])
    #expect(binary.json["form"] as? String == "binary" && binary.json["hex"] as? String == "000102ff4142")
    let directory = try await served.get("/api/preview", ["path": "Images"])
    #expect(directory.json["form"] as? String == "none")
    await served.stop()
  }

  @Test("the size map gives each entry's bytes all levels down, and the totals of the directory")
  func sizeMap() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Sizes.mydoc")
    try temp.write("Sizes.mydoc/a/b/big.bin", Data(count: 5000))
    try temp.write("Sizes.mydoc/a/small.txt", "123")
    try temp.write("Sizes.mydoc/c.txt", String(repeating: "c", count: 700))
    _ = try temp.symlink("Sizes.mydoc/l", to: "c.txt")
    let served = try await Served(package: package)
    let map = try await served.get("/api/sizemap", ["path": ""])
    let areas = (map.json["areas"] as? [[String: Any]] ?? []).map {
      ($0["path"] as? String ?? "", $0["bytes"] as? Int ?? -1)
    }
    #expect(areas.map(\.0) == ["a", "c.txt", "l"] && areas.map(\.1) == [5003, 700, 5], "\(map)")
    let totals = map.json["totals"] as? [String: Int]
    #expect(totals == ["files": 3, "directories": 2, "symlinks": 1, "bytes": 5708], "\(map)")
    let inner = try await served.get("/api/sizemap", ["path": "a/b"])
    #expect((inner.json["totals"] as? [String: Int])?["bytes"] == 5000)
    await served.stop()
  }
}
