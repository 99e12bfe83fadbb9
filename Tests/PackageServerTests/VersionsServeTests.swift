import DocumentArchive
import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// Versions, comparisons, downloads and live changes through the server.
@Suite("docpkg serve: versions, compare, download, live")
struct VersionsServeTests {
  /// Notes.mydoc saved twice: version 1 has the fixture's text, version 2 "second", the package "third".
  static func packageWithVersions(in temp: TemporaryDirectory) throws -> String {
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    for text in ["second\n", "third\n"] {
      let file = try PackageFile(at: FilePath(package), options: .holdLock)
      try file.root.setFile(at: "Text.txt", contents: Data(text.utf8))
      try file.save()
      file.close()
    }
    return package
  }

  @Test("the timeline lists the versions; the comparison of two states has the changed line")
  func timelineAndDiff() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    let served = try await Served(package: package)
    let timeline = try await served.get("/api/versions")
    let versions = timeline.json["versions"] as? [[String: Any]] ?? []
    #expect(versions.map { $0["id"] as? Int } == [1, 2] && versions.allSatisfy { $0["state"] as? String == "saved" })
    #expect(timeline.json["restorable"] as? Bool == false)
    let diff = try await served.get("/api/diff", ["from": "2", "to": "current"])
    let changes = diff.json["changes"] as? [[String: Any]] ?? []
    #expect(
      changes.count == 1 && changes.first?["path"] as? String == "Text.txt"
        && changes.first?["status"] as? String == "M")
    #expect(changes.first?["patch"] as? String == "@@ -1 +1 @@\n-second\n+third\n", "\(diff)")
    let old = try await served.get("/api/preview", ["path": "Text.txt", "state": "2"])
    #expect(old.json["text"] as? String == "second\n")
    let same = try await served.get("/api/diff", ["from": "current", "to": "current"])
    #expect(same.json["identical"] as? Bool == true)
    let missing = try await served.get("/api/diff", ["from": "9", "to": "current"])
    #expect(missing.status == 404, "\(missing)")
    #expect(try await served.get("/api/diff", ["from": "yesterday", "to": "current"]).status == 400)
    await served.stop()
  }

  @Test("a version downloads as a zip streamed by the packer, which unzip reads back")
  func download() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    try temp.write("Notes.mydoc/big.bin", Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
    let served = try await Served(package: package)
    for (state, text) in [("2", "second\n"), ("current", "third\n")] {
      let reply = try await served.get("/api/download", ["state": state])
      #expect(reply.status == 200 && reply.header("Content-Type") == "application/zip")
      #expect(reply.header("Transfer-Encoding") == "chunked" && reply.header("Content-Length") == nil)
      #expect(reply.header("Content-Disposition")?.contains("Notes.mydoc") == true)
      let zip = temp.appending("download-\(state).zip")
      try Data(reply.body).write(to: URL(fileURLWithPath: zip))
      let out = try temp.makeDirectory("unzipped-\(state)")
      try await offThePool { _ = try Shell.run("unzip", ["-q", zip, "-d", out]) }
      #expect(try String(contentsOfFile: out + "/Notes.mydoc/Text.txt", encoding: .utf8) == text)
      let image = try Data(contentsOf: URL(fileURLWithPath: out + "/Notes.mydoc/Images/tram.png"))
      #expect(image == (try Data(contentsOf: Fixtures.url("Notes.mydoc/Images/tram.png"))))
    }
    let big = try Data(contentsOf: URL(fileURLWithPath: temp.appending("unzipped-current/Notes.mydoc/big.bin")))
    #expect(big == (try Data(contentsOf: URL(fileURLWithPath: package + "/big.bin"))))
    await served.stop()
  }

  @Test("a download whose packer fails half-way ends without HTTP's last chunk: never a short zip that looks whole")
  func downloadCutByAChange() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    // Random bytes (the zip stays as large) that the packer reads first, then a file it reads last.
    var generator = SplitMix64(seed: 5)
    let words = (0..<((24 << 20) / 8)).map { _ in generator.next() }
    try temp.write("Notes.mydoc/0-big.bin", words.withUnsafeBytes { Data($0) })
    try temp.write("Notes.mydoc/zz-last.txt", "read last\n")
    let served = try await Served(package: package)
    let port = served.port
    let connection = try await offThePool { try RawConnection(port: port) }
    connection.send(
      "GET \(Served.target("/api/download", ["state": "current"])) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    // Read a little, so that the packer waits in the big file with the socket and the pipe full ...
    let started = try await offThePool { connection.read { $0.count >= 256 << 10 } }
    #expect(started)
    // ... remove the file it reads last, then read on to the end.
    let removed = try await offThePool { try Shell.docpkg(["rm", package, "zz-last.txt"]) }
    #expect(removed.status == 0, "\(removed.standardError)")
    try await offThePool { _ = connection.read() }
    let end = Array("\r\n0\r\n\r\n".utf8)
    #expect(connection.received.count > 1 << 20 && !connection.received.suffix(end.count).elementsEqual(end))
    // The server goes on: the next download is whole.
    let next = try await served.get("/api/download", ["state": "current"])
    #expect(next.status == 200 && next.body.count > 1 << 20)
    await served.stop()
  }

  @Test("an archive is served in place: tree, preview and download, no versions")
  func archive() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let zip = temp.appending("Notes.zip")
    try await ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(package)), to: FilePath(zip), options: PackOptions(format: .zip))
    let served = try await Served(package: zip)
    let info = try await served.get("/api/info")
    #expect(info.json["kind"] as? String == "archive" && info.json["live"] as? Bool == false)
    let text = try await served.get("/api/preview", ["path": "Text.txt"])
    #expect(text.json["text"] as? String == (try String(contentsOfFile: package + "/Text.txt", encoding: .utf8)))
    let versions = try await served.get("/api/versions")
    #expect((versions.json["versions"] as? [Any])?.isEmpty == true)
    #expect(try await served.get("/api/download", ["state": "current"]).status == 200)
    await served.stop()
  }

  /// Version 2 of `package` (text "second") packed as a zip at `zip` by `docpkg pack PACKAGE@2`.
  static func packVersion2(of package: String, to zip: String) async throws {
    let packed = try await offThePool { try Shell.docpkg(["pack", package + "@2", "-o", zip]) }
    #expect(packed.status == 0, "\(packed.standardError)")
  }

  @Test("a zip given to compare with is a state: the comparison with it, its previews and its download")
  func comparedArchive() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    let zip = temp.appending("Sent.zip")
    try await Self.packVersion2(of: package, to: zip)
    let served = try await Served(package: package, compared: [zip])
    let info = try await served.get("/api/info")
    let compared = info.json["compared"] as? [[String: Any]] ?? []
    #expect(compared.count == 1 && compared.first?["state"] as? String == "compared-0")
    #expect(compared.first?["location"] as? String == zip && compared.first?["kind"] as? String == "archive")
    let diff = try await served.get("/api/diff", ["from": "compared-0", "to": "current"])
    let changes = diff.json["changes"] as? [[String: Any]] ?? []
    #expect(changes.map { $0["path"] as? String } == ["Text.txt"], "\(diff)")
    #expect(changes.first?["patch"] as? String == "@@ -1 +1 @@\n-second\n+third\n", "\(diff)")
    // The zip against the version it was packed from: the same files.
    #expect(try await served.get("/api/diff", ["from": "compared-0", "to": "2"]).json["identical"] as? Bool == true)
    let old = try await served.get("/api/preview", ["path": "Text.txt", "state": "compared-0"])
    #expect(old.json["text"] as? String == "second\n")
    let image = try await served.get("/api/raw", ["path": "Images/tram.png", "state": "compared-0"])
    #expect(Data(image.body) == (try Data(contentsOf: URL(fileURLWithPath: package + "/Images/tram.png"))))
    let download = try await served.get("/api/download", ["state": "compared-0"])
    #expect(download.status == 200 && download.header("Content-Type") == "application/zip")
    // Only what was given: no other index, and nothing the page makes up.
    #expect(try await served.get("/api/diff", ["from": "compared-1", "to": "current"]).status == 404)
    #expect(try await served.get("/api/diff", ["from": "compared-x", "to": "current"]).status == 400)
    await served.stop()
  }

  @Test("an archive served in place compares with a package and a version given with it")
  func archiveComparedWithPackage() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    let zip = temp.appending("Sent.zip")
    try await Self.packVersion2(of: package, to: zip)
    let served = try await Served(package: zip, compared: [package, package + "@1"])
    let kinds = (try await served.get("/api/info").json["compared"] as? [[String: Any]] ?? []).map {
      $0["kind"] as? String
    }
    #expect(kinds == ["package", "version"])
    let toPackage = try await served.get("/api/diff", ["from": "current", "to": "compared-0"])
    #expect(
      (toPackage.json["changes"] as? [[String: Any]])?.first?["patch"] as? String == "@@ -1 +1 @@\n-second\n+third\n")
    let toVersion = try await served.get("/api/diff", ["from": "compared-1", "to": "current"])
    #expect((toVersion.json["changes"] as? [[String: Any]])?.map { $0["path"] as? String } == ["Text.txt"])
    // The compared package changes on disk: the next comparison reads it anew.
    _ = try await offThePool { try Shell.docpkg(["put", package, "Text.txt", "-"], input: Data("fourth\n".utf8)) }
    let later = try await served.get("/api/preview", ["path": "Text.txt", "state": "compared-0"])
    #expect(later.json["text"] as? String == "fourth\n", "\(later)")
    await served.stop()
  }

  @Test("a change on disk reaches an open event stream, and the next read shows it")
  func liveChange() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package)
    let connection = try await Self.liveEventStream(of: served)
    #expect(connection.hasReceived("text/event-stream") && connection.hasReceived("event: hello"))
    let before = try await served.get("/api/preview", ["path": "Text.txt"])
    try await offThePool {
      let file = try PackageFile(at: FilePath(package), options: .holdLock)
      try file.root.setFile(at: "Added.txt", contents: Data("new".utf8))
      try file.root.setFile(at: "Text.txt", contents: Data("changed\n".utf8))
      try file.save()
      file.close()
    }
    let seen = try await offThePool { connection.read { String(decoding: $0, as: UTF8.self).contains("Added.txt") } }
    #expect(seen && connection.hasReceived("event: change"), "\(String(decoding: connection.received, as: UTF8.self))")
    // The next read shows the new state (the tree was dropped and opened again).
    let after = try await served.get("/api/preview", ["path": "Text.txt"])
    #expect(before.json["text"] as? String != "changed\n" && after.json["text"] as? String == "changed\n")
    await served.stop()
  }

  @Test("a package moved while served is followed: the next reads find it at its new path")
  func movedPackage() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package)
    let connection = try await Self.liveEventStream(of: served)
    let moved = temp.appending("Moved.mydoc")
    try await offThePool { try FileManager.default.moveItem(atPath: package, toPath: moved) }
    let seen = try await offThePool {
      connection.read { String(decoding: $0, as: UTF8.self).contains("packageMoved") }
    }
    #expect(seen, "\(String(decoding: connection.received, as: UTF8.self))")
    let preview = try await served.get("/api/preview", ["path": "Text.txt"])
    #expect(preview.status == 200, "\(preview)")
    let children = try await served.get("/api/children", ["path": ""])
    #expect(children.status == 200, "\(children)")
    let info = try await served.get("/api/info")
    #expect(info.json["location"] as? String == moved, "\(info)")
    await served.stop()
  }

  @Test("a version of a package is served read-only: PACKAGE@ID")
  func servedVersion() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    let served = try await Served(package: package + "@2")
    let info = try await served.get("/api/info")
    #expect(info.json["kind"] as? String == "version" && info.json["restorable"] as? Bool == false)
    #expect(try await served.get("/api/preview", ["path": "Text.txt"]).json["text"] as? String == "second\n")
    await served.stop()
  }

  @Test("a version is served a folder at a time: a page reads the trees on its path, not the whole version")
  func servedVersionReadsOnlyItsPath() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Self.packageWithVersions(in: temp) }
    // QuickLook's tree object, the one that lists Thumbnail.png, gone from the store: no page below reads it.
    let objects = try VersionStore(forPackageAt: FilePath(package)).path.appending("objects").string
    let quickLook = try FileManager.default.subpathsOfDirectory(atPath: objects).map { objects + "/" + $0 }.filter {
      (try? String(contentsOfFile: $0, encoding: .utf8))?.hasSuffix(" Thumbnail.png\n") == true
    }
    #expect(quickLook.count == 1)
    for object in quickLook { try FileManager.default.removeItem(atPath: object) }
    let served = try await Served(package: package + "@2")
    #expect(try await served.get("/api/info").json["kind"] as? String == "version")
    let top = try await served.get("/api/children", ["path": ""])
    #expect(top.status == 200 && top.text.contains("QuickLook"), "\(top)")
    #expect(try await served.get("/api/children", ["path": "Images"]).status == 200)
    #expect(try await served.get("/api/preview", ["path": "Text.txt"]).json["text"] as? String == "second\n")
    // The folder whose tree is gone says so when it is opened.
    let damaged = try await served.get("/api/children", ["path": "QuickLook"])
    #expect(damaged.status != 200 && damaged.text.contains("damaged"), "\(damaged)")
    await served.stop()
  }

  /// An event stream of `served`, once its monitor is live (it starts after the server listens: `hello` says whether
  /// it watches, `live` when it starts); records an issue if it never is.
  static func liveEventStream(of served: Served) async throws -> RawConnection {
    let port = served.port
    let connection = try await offThePool { try RawConnection(port: port) }
    connection.send(
      "GET \(Served.target("/api/events")) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
    let live = try await offThePool {
      connection.read { String(decoding: $0, as: UTF8.self).contains("{\"live\":true}") }
    }
    #expect(live, "\(String(decoding: connection.received, as: UTF8.self))")
    return connection
  }
}
