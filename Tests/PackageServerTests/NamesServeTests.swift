import DocumentArchive
import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// Issue 38, point 1: every name a file system allows opens, in a package, a zip and a version. The requests are
/// encoded as the page encodes them (``Served/target(_:_:token:)``, `URLSearchParams`: a space is `+`, a `+` is
/// `%2B`) and decoded once by the server.
@Suite("docpkg serve opens every name")
struct NamesServeTests {
  /// Every printable ASCII character but `/` (which cannot be in a name).
  static let printableASCII = String((0x20...0x7E).map { Character(UnicodeScalar($0)) }.filter { $0 != "/" })

  /// The names of the package ``package(in:)`` makes: spaces (beside the same name with `+`), every printable
  /// ASCII character, what looks encoded or like a query, NFC and NFD, emoji, right-to-left text, a name of 255
  /// bytes (the longest ext4 allows), leading dashes.
  static let names: [String] = [
    "x y.txt", "x+y.txt", "My notes.txt", "photo 2.txt", printableASCII, "%41%2B.txt", "a%20b.txt", "&path=Text.txt",
    "?token=x#frag.txt", "100% done.txt", " leading and trailing space ", "caf\u{E9} NFC.txt",
    "nai\u{308}ve NFD.txt", "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} family \u{1F389}.txt",
    "\u{645}\u{631}\u{62D}\u{628}\u{627} \u{5E2}\u{5D5}\u{5DC}\u{5DD}.txt", "evil\u{202E}txt.exe",
    String(repeating: "n", count: 251) + ".txt", "-rf.txt", "--help",
  ]

  /// The directory the names are in, itself with a space (its files are reached through it).
  static let folder = "My folder"

  /// The text of the file called `name`.
  static func contents(of name: String) -> String { "the file called [\(name)]\n" }

  /// A package `Names.mydoc` with a file for each of ``names`` in ``folder``, saved once more so that version 1
  /// holds them all.
  static func package(in temp: TemporaryDirectory) throws -> String {
    let package = try temp.makeDirectory("Names.mydoc")
    for name in names { try temp.write("Names.mydoc/\(folder)/\(name)", contents(of: name)) }
    let file = try PackageFile(at: FilePath(package), options: .holdLock)
    try file.root.setFile(at: "Later.txt", contents: Data("later\n".utf8))
    try file.save()
    file.close()
    return package
  }

  @Test("the 255-byte name is the longest the file system takes, and the NFC and NFD names keep their bytes")
  func namesAreWhatTheySay() throws {
    #expect(Self.names.contains { $0.utf8.count == 255 })
    #expect(Self.names.contains { $0.unicodeScalars.contains("\u{E9}") })
    #expect(Self.names.contains { $0.unicodeScalars.contains("\u{308}") })
    #expect(Self.printableASCII.count == 94)
  }

  @Test(
    "each name lists and previews, in the package, its version and a zip of it",
    arguments: ["package", "zip", "version"])
  func everyNameOpens(_ kind: String) async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.package(in: temp) }
    let location: String
    switch kind {
    case "zip":
      location = temp.appending("Names.zip")
      try await ArchivePacker.pack(
        try PackageNode(contentsOf: FilePath(package)), to: FilePath(location), options: PackOptions(format: .zip))
    case "version": location = package + "@1"
    default: location = package
    }
    let served = try await Served(package: location)
    let listing = try await served.get("/api/children", ["path": Self.folder, "limit": "100"])
    let listed = (listing.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(
      Set(listed.map { Array($0.utf8) }) == Set(Self.names.map { Array("\(Self.folder)/\($0)".utf8) }), "\(listing)")
    for name in Self.names {
      let path = "\(Self.folder)/\(name)"
      let reply = try await served.get("/api/preview", ["path": path])
      #expect(reply.status == 200, "\(kind) \(name): \(reply)")
      #expect((reply.json["text"] as? String).map { Array($0.utf8) } == Array(Self.contents(of: name).utf8), "\(name)")
    }
    if kind == "package" {
      // The same names in version 1, as the page asks for a version's file while comparing.
      for name in Self.names {
        let reply = try await served.get("/api/preview", ["path": "\(Self.folder)/\(name)", "state": "1"])
        #expect(reply.json["text"] as? String == Self.contents(of: name), "version 1, \(name): \(reply)")
      }
    }
    await served.stop()
  }

  @Test("a query is form-decoded once: '+' is a space, '%2B' a plus, '%20' a space; a bad escape or non-UTF-8 is 400")
  func queryDecoding() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.package(in: temp) }
    let served = try await Served(package: package)
    let token = "token=\(Served.token)"
    for (query, name) in [
      ("path=My+folder/x+y.txt", "x y.txt"), ("path=My%20folder/x%2By.txt", "x+y.txt"),
      ("path=My+folder%2Fx%20y.txt", "x y.txt"), ("path=My+folder/caf%C3%A9+NFC.txt", "caf\u{E9} NFC.txt"),
    ] {
      let reply = try await served.getRaw("/api/preview?\(token)&\(query)")
      #expect(reply.json["text"] as? String == Self.contents(of: name), "\(query): \(reply)")
    }
    for query in ["path=%", "path=%4", "path=%zz", "path=%C3%28", "path=%FF", "path=%ED%A0%80", "%=x", "path=a%"] {
      let reply = try await served.getRaw("/api/preview?\(token)&\(query)")
      #expect(reply.status == 400, "\(query): \(reply)")
    }
    // The token itself goes through the same decoder: a '+' in it is a space, so a wrong token.
    #expect(try await served.getRaw("/api/info?token=\(Served.token)+").status == 403)
    await served.stop()
  }

  /// A PNG of 1×1 pixel.
  static let png: [UInt8] = Array(
    Data(
      base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
    ) ?? Data())

  @Test(
    "names that are not UTF-8 on ext4 list, preview and load as images; the zip, which cannot hold them, is refused before 200"
  )
  func namesNotUTF8() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    // Names with the bytes 0xFF and 0xE9 (Latin-1 'é'), made by Python: a Swift String cannot hold them.
    let script = """
      import sys
      open(sys.argv[1].encode() + b"/img\\xff.png", "wb").write(bytes.fromhex(sys.argv[2]))
      open(sys.argv[1].encode() + b"/caf\\xe9.txt", "wb").write(b"latin-1\\n")
      """
    let hex = Self.png.map { String(format: "%02x", $0) }.joined()
    _ = try await offThePool { try Shell.run("python3", ["-c", script, package, hex]) }
    let served = try await Served(package: package)
    let listing = try await served.get("/api/children", ["path": ""])
    let names = (listing.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    // The bytes that are not UTF-8 are shown as U+FFFD, and the names so written open.
    #expect(names.contains("img\u{FFFD}.png") && names.contains("caf\u{FFFD}.txt"), "\(names)")
    let text = try await served.get("/api/preview", ["path": "caf\u{FFFD}.txt"])
    #expect(text.status == 200 && text.json["text"] as? String == "latin-1\n", "\(text)")
    let image = try await served.get("/api/raw", ["path": "img\u{FFFD}.png"])
    #expect(image.status == 200 && image.body == Self.png, "\(image.status)")
    // A zip cannot hold such a name: the download says so before anything is sent, naming the entry.
    let zip = try await served.get("/api/download", ["state": "current"])
    #expect(zip.status == 400, "\(zip)")
    let error = zip.json["error"] as? String ?? ""
    #expect(error.contains("Notes.mydoc/") && error.contains("not UTF-8, which a zip cannot hold"), "\(error)")
    let server = served.server
    #expect(await eventually { server.runningDownloads == 0 })
    await served.stop()
  }
}
