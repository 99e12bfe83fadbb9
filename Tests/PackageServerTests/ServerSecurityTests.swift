import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// Issue 27's security suite: each request a hostile page or a careless user could send is refused, through a
/// plain HTTP client that sends the bytes as written (``RawHTTP``).
@Suite("docpkg serve refuses")
struct ServerSecurityTests {
  /// A copy of Notes.mydoc with a secret beside it and links that point at it.
  struct Setup: Sendable {
    let temp: TemporaryDirectory
    let package: String
    let secret = "TOP-SECRET-\(UUID().uuidString)"

    init() throws {
      temp = try TemporaryDirectory()
      package = try Fixtures.copy("Notes.mydoc", into: temp)
      try temp.write("secret.txt", secret)
      _ = try temp.makeDirectory("outside")
      try temp.write("outside/secret.txt", secret)
      _ = try temp.symlink("Notes.mydoc/escape", to: "../outside")
      _ = try temp.symlink("Notes.mydoc/secret-link.txt", to: temp.appending("secret.txt"))
      try temp.write("Notes.mydoc/page.html", "<script>alert(1)</script>")
    }
  }

  @Test("a request without the token, or with another one")
  func missingOrWrongToken() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package)
    for target in [
      "/", "/api/children?path=", "/app.js", Served.target("/api/preview", ["path": "Text.txt"], token: nil),
      Served.target("/api/preview", ["path": "Text.txt"], token: "0123456789abcdef0123456789abcdee"),
      Served.target("/api/preview", ["path": "Text.txt"], token: ""),
    ] {
      let reply = try await served.getRaw(target)
      #expect(reply.status == 403, "\(target): \(reply)")
      #expect(!reply.text.contains("Hello") && reply.text.contains("token"), "\(reply)")
    }
    #expect(try await served.get("/api/preview", ["path": "Text.txt"]).status == 200)
    await served.stop()
  }

  @Test("a Host header other than the loopback address and port (DNS rebinding)")
  func wrongHost() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package)
    let target = Served.target("/api/info")
    for host in [
      "evil.example:\(served.port)", "evil.example", "127.0.0.1:\(served.port + 1)", "127.0.0.2:\(served.port)",
    ] {
      let reply = try await served.getRaw(target, host: host)
      #expect(reply.status == 403, "\(host): \(reply)")
    }
    // No Host at all (HTTP/1.0 style), or two of them.
    let port = served.port
    let none = try await offThePool { try RawHTTP.send(["GET \(target) HTTP/1.1", "Connection: close"], port: port) }
    #expect(none.status == 400 || none.status == 403, "\(none)")
    let two = try await served.getRaw(target, extra: ["Host: evil.example"])
    #expect(two.status == 400 || two.status == 403, "\(two)")
    #expect(try await served.getRaw(target, host: "localhost:\(served.port)").status == 200)
    await served.stop()
  }

  @Test("traversal in the URL path, raw or percent-encoded, and in entry paths")
  func traversal() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package)
    let token = "token=\(Served.token)"
    for target in [
      "/../secret.txt?\(token)", "/app.js/../../secret.txt?\(token)", "/%2e%2e/secret.txt?\(token)",
      "/%2E%2E%2Fsecret.txt?\(token)", "/..%2fsecret.txt?\(token)", "/..\\secret.txt?\(token)",
      "/api/%2e%2e/%2e%2e/secret.txt?\(token)", "//etc/passwd?\(token)",
    ] {
      let reply = try await served.getRaw(target)
      #expect([400, 404].contains(reply.status), "\(target): \(reply)")
      #expect(!reply.text.contains(setup.secret))
    }
    for path in [
      "../secret.txt", "../../secret.txt", "Images/../../secret.txt", "/etc/passwd", "./Text.txt", "Images//tram.png",
      "Text.txt\u{0}",
    ] {
      for route in ["/api/preview", "/api/raw", "/api/children", "/api/sizemap"] {
        let reply = try await served.get(route, ["path": path])
        #expect(reply.status == 400, "\(route) \(path): \(reply)")
        #expect(!reply.text.contains(setup.secret))
      }
    }
    // Encoded twice: decoded once it is a name ('%2e%2e'), which the package does not have.
    let twice = try await served.getRaw("/api/preview?\(token)&path=%252e%252e%252fsecret.txt")
    #expect(twice.status == 404, "\(twice)")
    let malformed = try await served.getRaw("/api/preview?\(token)&path=%2")
    #expect(malformed.status == 400, "\(malformed)")
    await served.stop()
  }

  @Test("a symbolic link out of the package is shown as a link, never followed")
  func symlinkOut() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package)
    let listing = try await served.get("/api/children", ["path": ""])
    #expect(listing.status == 200 && listing.text.contains("\"target\":\"../outside\""), "\(listing)")
    for (route, path) in [
      ("/api/children", "escape"), ("/api/preview", "escape/secret.txt"), ("/api/raw", "escape/secret.txt"),
      ("/api/sizemap", "escape"), ("/api/raw", "secret-link.txt"),
    ] {
      let reply = try await served.get(route, ["path": path])
      #expect([400, 404, 415].contains(reply.status), "\(route) \(path): \(reply)")
      #expect(!reply.text.contains(setup.secret), "\(route) \(path)")
    }
    let link = try await served.get("/api/preview", ["path": "secret-link.txt"])
    #expect(link.status == 200 && link.json["form"] as? String == "none", "\(link)")
    #expect(!link.text.contains(setup.secret))
    // Downloading the package packs the link as a link, not what it points to.
    let zip = try await served.get("/api/download", ["state": "current"])
    #expect(zip.status == 200 && zip.body.count > 100)
    #expect(!zip.text.contains(setup.secret))
    await served.stop()
  }

  /// Outsider attack on issue 38: a folder already listed, swapped by another program for a link to a folder outside
  /// holding a file of the same name (`mv sub sub.bak; ln -s /etc sub`), was read through the link until the live
  /// monitor caught up: the preview of `sub/passwd` sent /etc/passwd. The served model verifies each load now.
  @Test("a folder swapped for a link out of the package after it was listed is never read through")
  func folderSwappedForALink() async throws {
    let setup = try await offThePool { () throws -> Setup in
      let setup = try Setup()
      try setup.temp.write("Notes.mydoc/sub/passwd", "inner\n")
      return setup
    }
    let served = try await Served(package: setup.package)
    let before = try await served.get("/api/preview", ["path": "sub/passwd"])
    #expect(before.status == 200 && before.text.contains("inner"), "\(before)")
    try await offThePool {
      try FileManager.default.moveItem(atPath: setup.package + "/sub", toPath: setup.package + "/sub.bak")
      try setup.temp.write("outside/passwd", setup.secret)
      _ = try setup.temp.symlink("Notes.mydoc/sub", to: "../outside")
    }
    for (route, path) in [("/api/preview", "sub/passwd"), ("/api/raw", "sub/passwd"), ("/api/children", "sub")] {
      let reply = try await served.get(route, ["path": path])
      #expect(!reply.text.contains(setup.secret), "\(route) \(path): \(reply)")
      #expect(!reply.text.contains("\"size\":\(setup.secret.utf8.count)"), "\(route) \(path): \(reply)")
    }
    await served.stop()
  }

  @Test("a write without --allow-restore, without the page's token, from another origin, or by GET")
  func writes() async throws {
    let setup = try await offThePool { try Setup() }
    let before = try Data(contentsOf: URL(fileURLWithPath: setup.package + "/Text.txt"))
    try await offThePool {
      let file = try PackageFile(at: FilePath(setup.package))
      try file.root.setFile(at: "Text.txt", contents: Data("changed".utf8))
      try file.save()
      file.close()
    }
    let readOnly = try await Served(package: setup.package)
    let csrf = try await readOnly.pageToken()
    let refused = try await readOnly.post("/api/restore", ["id": "1"], extra: ["X-Docpkg-CSRF: \(csrf)"])
    #expect(refused.status == 403 && refused.text.contains("--allow-restore"), "\(refused)")
    await readOnly.stop()

    let served = try await Served(package: setup.package, allowsRestore: true)
    let page = try await served.pageToken()
    #expect(page.count == 32)
    for (extra, status) in [
      ([String](), 403), (["X-Docpkg-CSRF: 00000000000000000000000000000000"], 403),
      (["X-Docpkg-CSRF: \(page)", "Origin: http://evil.example"], 403),
    ] {
      let reply = try await served.post("/api/restore", ["id": "1"], extra: extra)
      #expect(reply.status == status, "\(extra): \(reply)")
    }
    let byGet = try await served.get("/api/restore", ["id": "1"])
    #expect(byGet.status == 405, "\(byGet)")
    for method in ["PUT", "DELETE", "PATCH"] {
      let port = served.port
      let target = Served.target("/api/restore", ["id": "1"])
      let reply = try await offThePool {
        try RawHTTP.send(
          ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close", "X-Docpkg-CSRF: \(page)"],
          port: port)
      }
      #expect(reply.status == 405, "\(method): \(reply)")
    }
    // Nothing was restored by any of them.
    #expect(try String(contentsOfFile: setup.package + "/Text.txt", encoding: .utf8) == "changed")
    let restored = try await served.post(
      "/api/restore", ["id": "1"], extra: ["X-Docpkg-CSRF: \(page)", "Origin: http://127.0.0.1:\(served.port)"])
    #expect(restored.status == 200, "\(restored)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: setup.package + "/Text.txt")) == before)
    await served.stop()
  }

  @Test("a page's CSRF token expires once 64 newer pages were served")
  func pageTokensExpire() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package, allowsRestore: true)
    let oldest = try await served.pageToken()
    var newest = oldest
    for _ in 0..<64 { newest = try await served.pageToken() }
    // No version 99: a token that passes gets "no such version", one that does not gets 403.
    let expired = try await served.post("/api/restore", ["id": "99"], extra: ["X-Docpkg-CSRF: \(oldest)"])
    #expect(expired.status == 403 && expired.text.contains("reload the page"), "\(expired)")
    let current = try await served.post("/api/restore", ["id": "99"], extra: ["X-Docpkg-CSRF: \(newest)"])
    #expect(current.status == 404, "\(current)")
    await served.stop()
  }

  @Test("package content never runs as the page: nosniff and a policy on every answer, HTML as text, SVG sandboxed")
  func contentIsNotActive() async throws {
    let setup = try await offThePool { try Setup() }
    try setup.temp.write(
      "Notes.mydoc/drawing.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>")
    let served = try await Served(package: setup.package)
    for reply in [
      try await served.get("/"), try await served.get("/app.js"), try await served.get("/api/info"),
      try await served.getRaw("/nothing-here"), try await served.get("/api/preview", ["path": "page.html"]),
    ] {
      #expect(reply.header("X-Content-Type-Options") == "nosniff", "\(reply)")
      #expect(reply.header("Content-Security-Policy")?.contains("default-src 'none'") == true, "\(reply)")
    }
    let page = try await served.get("/")
    #expect(page.header("Content-Security-Policy")?.contains("script-src 'self';") == true)
    #expect(!page.text.contains("<script>") && page.text.contains("<script src=\"/app.js?token="))
    let html = try await served.get("/api/preview", ["path": "page.html"])
    #expect(html.header("Content-Type")?.hasPrefix("application/json") == true)
    #expect(html.json["form"] as? String == "text")
    #expect(try await served.get("/api/raw", ["path": "page.html"]).status == 415)
    let svg = try await served.get("/api/raw", ["path": "drawing.svg"])
    #expect(svg.status == 200 && svg.header("Content-Type") == "image/svg+xml")
    #expect(svg.header("Content-Security-Policy")?.contains("sandbox") == true, "\(svg.headers)")
    await served.stop()
  }

  @Test(
    "a hostile archive is refused before anything is served",
    arguments: [("dotdot.zip", "'..'"), ("symlink-escape.zip", "pkg/escape"), ("absolute.tar", "absolute")])
  func hostileArchive(_ name: String, _ reason: String) async throws {
    let temp = try TemporaryDirectory()
    let archives = try temp.makeDirectory("archives")
    let stem = String(name.split(separator: ".")[0])
    try await offThePool {
      _ = try Shell.run("python3", [Fixtures.script("make-hostile-archives.py"), archives, stem])
    }
    let error = await #expect(throws: PackageError.self) { try await Served(package: archives + "/" + name) }
    #expect(String(describing: error).contains(reason), "\(String(describing: error))")
  }

  @Test("a hostile archive given to compare with is refused before anything is served")
  func hostileComparedArchive() async throws {
    let setup = try await offThePool { try Setup() }
    let archives = try setup.temp.makeDirectory("archives")
    try await offThePool {
      _ = try Shell.run("python3", [Fixtures.script("make-hostile-archives.py"), archives, "symlink-escape"])
    }
    let error = await #expect(throws: PackageError.self) {
      try await Served(package: setup.package, compared: [archives + "/symlink-escape.zip"])
    }
    #expect(String(describing: error).contains("pkg/escape"), "\(String(describing: error))")
  }

  @Test("the server listens on the loopback address only")
  func loopbackOnly() async throws {
    let setup = try await offThePool { try Setup() }
    let served = try await Served(package: setup.package)
    #expect(served.server.url.hasPrefix("http://127.0.0.1:\(served.port)/?token="))
    let port = String(served.port, radix: 16, uppercase: true)
    let padded = String(repeating: "0", count: 4 - port.count) + port
    // /proc/net/tcp is read in pieces, and a socket can be missed while other tests open and close hundreds
    // (ConnectionLimitsTests): read it again until our socket is in it.
    var listening = ""
    let found = await eventually {
      listening = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
      return listening.contains("0100007F:\(padded)")
    }
    #expect(found, "127.0.0.1:\(served.port) not listening")
    #expect(!listening.contains("00000000:\(padded)"), "listening on every address")
    await served.stop()
  }
}
