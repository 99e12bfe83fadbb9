import Foundation
import TestSupport
import Testing

@Suite("reproducible archives")
struct ReproducibleTests {
  @Test(
    "--reproducible twice, with touched files and under two time zones, gives identical bytes",
    arguments: ["zip", "tar", "tar.gz", "tar.xz", "tar.zst"])
  func identicalBytes(format: String) throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Attributes.pkg", into: temp)
    let first = temp.appending("first.\(format)")
    let second = temp.appending("second.\(format)")
    try Shell.docpkgChecked(["pack", package, "-o", first, "--reproducible"], environment: ["TZ": "UTC"])
    try Shell.run("touch", [package + "/README.txt", package + "/Empty"])
    try Shell.docpkgChecked(["pack", package, "-o", second, "--reproducible"], environment: ["TZ": "Asia/Tokyo"])
    let a = try Data(contentsOf: URL(fileURLWithPath: first))
    let b = try Data(contentsOf: URL(fileURLWithPath: second))
    #expect(a == b)
    // Without the flag, the touched times show.
    let plain = temp.appending("plain.\(format)")
    try Shell.docpkgChecked(["pack", package, "-o", plain])
    #expect(try Data(contentsOf: URL(fileURLWithPath: plain)) != a)
  }

  @Test("SOURCE_DATE_EPOCH sets every entry's time")
  func sourceDateEpoch() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let archive = temp.appending("notes.tar.gz")
    try Shell.docpkgChecked(
      ["pack", package, "-o", archive, "--reproducible"], environment: ["SOURCE_DATE_EPOCH": "1234567890"])
    let listing = try Listing.of(archive)
    let json = try JSONSerialization.jsonObject(with: Data(listing.utf8)) as! [String: [String: Any]]
    #expect(json.values.allSatisfy { $0["mtime"] as? Int == 1_234_567_890 })
    let zip = temp.appending("notes.zip")
    try Shell.docpkgChecked(
      ["pack", package, "-o", zip, "--reproducible"], environment: ["SOURCE_DATE_EPOCH": "1234567890"])
    let out = try temp.makeDirectory("out")
    try Shell.run("unzip", ["-q", zip, "-d", out])
    let date =
      try FileManager.default.attributesOfItem(atPath: out + "/Notes.mydoc/Text.txt")[.modificationDate] as! Date
    #expect(date.timeIntervalSince1970 == 1_234_567_890)
  }
}

@Suite("document zips (ODF, EPUB)")
struct DocumentZipTests {
  @Test(
    "mimetype comes first, stored, with no extra field, so file(1) recognises the document",
    arguments: [
      ("Report.odt", "application/vnd.oasis.opendocument.text", "OpenDocument Text"),
      ("Book.epub", "application/epub+zip", "EPUB document"),
    ])
  func mimetypeFirst(name: String, mimetype: String, description: String) throws {
    let temp = try TemporaryDirectory()
    try temp.write("\(name)/mimetype", mimetype)
    try temp.write("\(name)/META-INF/container.xml", "<container/>")
    try temp.write("\(name)/content.xml", String(repeating: "<p>text</p>", count: 100))
    let archive = temp.appending("out-\(name)")
    try Shell.docpkgChecked(["pack", temp.appending(name), "-o", archive, "--format", "zip"])
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
    #expect(Array(bytes[0..<4]) == [0x50, 0x4B, 0x03, 0x04])
    #expect(bytes[8] == 0 && bytes[9] == 0, "method must be stored")
    #expect(bytes[28] == 0 && bytes[29] == 0, "no extra field")
    #expect(String(decoding: bytes[30..<38], as: UTF8.self) == "mimetype")
    #expect(String(decoding: bytes[38..<(38 + mimetype.utf8.count)], as: UTF8.self) == mimetype)
    #expect(try Shell.run("file", ["-b", archive]).standardOutput.contains(description))
    try Shell.run("unzip", ["-tq", archive])
    // Unpacked into a folder named after the archive, and read in place the same way.
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out])
    #expect(try String(contentsOfFile: out + "/out-\(name)/mimetype", encoding: .utf8) == mimetype)
    let inspect = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(inspect.hasPrefix("directory 0755               -  out-\(name)/"))
  }
}
