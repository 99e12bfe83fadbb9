import DocumentArchive
import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// The page in a real browser: headless Chromium driven through its DevTools protocol (`Tests/Scripts/cdp-page.py`
/// over a pipe). Runs only under `make serve-test` (`DOCPKG_BROWSER=1`; Chromium installed by
/// `Scripts/setup.sh --docs`), which `make test` skips, as it does the documentation's browser test.
/// With `DOCPKG_SCREENSHOTS=DIR` it also saves the screenshots the README shows. One browser at a time (a second
/// one starting beside it on two busy cores held an image's load past the page's wait), and each wait on the page
/// gives up after 20 s (`waitFor` in `cdp-page.py`): a wait ends as soon as its condition holds.
@Suite(
  "docpkg serve in a browser", .serialized,
  .enabled(if: ProcessInfo.processInfo.environment["DOCPKG_BROWSER"] != nil && Shell.has("chromium")))
struct BrowserTests {
  /// One headless Chromium page, step by step.
  final class BrowserPage: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// A page of `width` × `height` CSS pixels (1280 × 800 by default; 640 × 400 shows what 200% zoom shows).
    init(width: Int = 1280, height: Int = 800) throws {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["python3", Fixtures.script("cdp-page.py"), String(width), String(height)]
      process.standardInput = input
      process.standardOutput = output
      process.standardError = FileHandle.standardError
      try process.run()
    }

    deinit {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Sends one command and waits for its answer's value.
    @discardableResult
    func send(_ command: [String: String]) throws -> Any? {
      input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8))
      while !buffered.contains(UInt8(ascii: "\n")) {
        let data = output.fileHandleForReading.availableData
        guard !data.isEmpty else { throw Failure(description: "the browser driver ended") }
        buffered += data
      }
      let end = buffered.firstIndex(of: UInt8(ascii: "\n"))!
      let line = buffered[..<end]
      buffered = Data(buffered[(end + 1)...])
      let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any] ?? [:]
      guard answer["ok"] as? Bool == true else { throw Failure(description: "\(command): \(answer["error"] ?? "")") }
      return answer["value"]
    }

    @discardableResult
    func eval(_ js: String) throws -> Any? { try send(["cmd": "eval", "js": js]) }

    /// Waits for the element `selector` names, then clicks it (an SVG element gets a dispatched click).
    func click(_ selector: String) throws {
      try eval("waitFor(() => document.querySelector(\(Self.quoted(selector))))")
      try eval(
        "document.querySelector(\(Self.quoted(selector))).dispatchEvent(new MouseEvent('click', { bubbles: true }))")
    }

    /// The text of the element `selector` names, once it has text for which `accept` (JavaScript, over `t`) holds.
    func text(_ selector: String, where accept: String = "t") throws -> String? {
      try eval(
        "waitFor(() => { const e = document.querySelector(\(Self.quoted(selector))); const t = e && e.textContent; "
          + "return t && (\(accept)) && t })") as? String
    }

    /// Waits for the tree's row of `path` (compared as a string, so any name can be found), then clicks it.
    func clickRow(_ path: String) throws {
      let find = "[...document.querySelectorAll('.row')].find((r) => r.dataset.path === \(Self.quoted(path)))"
      try eval("waitFor(() => \(find))")
      try eval("\(find).dispatchEvent(new MouseEvent('click', { bubbles: true }))")
    }

    static func quoted(_ text: String) -> String {
      String(decoding: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }
  }

  /// Runs `body` with a page off the cooperative pool (every step blocks on the browser).
  func withPage<T: Sendable>(
    width: Int = 1280, height: Int = 800, _ body: @escaping @Sendable (BrowserPage) throws -> T
  ) async throws -> T {
    try await offThePool { try body(BrowserPage(width: width, height: height)) }
  }

  static let screenshots = ProcessInfo.processInfo.environment["DOCPKG_SCREENSHOTS"]

  /// A script that says how far the page or either pane would scroll sideways, in CSS pixels.
  static let overflow =
    "Math.max(document.documentElement.scrollWidth - window.innerWidth, "
    + "...['#tree-pane', '#view-pane'].map((s) => { const e = document.querySelector(s); "
    + "return e.scrollWidth - e.clientWidth }))"

  @Test(
    "open the page, expand a folder, preview a text and an image, compare versions, see a put, size map, download, restore"
  )
  func walkthrough() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try VersionsServeTests.packageWithVersions(in: temp) }
    let served = try await Served(package: package, allowsRestore: true)
    let url = served.server.url
    let downloads = try temp.makeDirectory("downloads")
    let docpkg = Shell.docpkgPath
    let screenshots = Self.screenshots
    let seen = try await withPage { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true' && document.body.dataset.live === 'true')")
      seen["title"] = try page.text("#title")
      // Expand Images, preview the image.
      try page.click(".row[data-path=\"Images\"]")
      try page.click(".row[data-path=\"Images/tram.png\"]")
      seen["image"] = String(
        describing: try page.eval(
          "waitFor(() => { const i = document.querySelector('#preview img.preview'); return i && i.complete && i.naturalWidth })"
        ) ?? "")
      // Preview the text: numbered lines.
      let firstLine = "#preview pre.code .line[data-n=\"1\"]"
      try page.click(".row[data-path=\"Text.txt\"]")
      seen["line1"] = try page.text(firstLine)
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-tree.png"]) }
      // Compare version 2 with the current state: the changed line.
      try page.click("nav#tabs button[data-tab=\"versions\"]")
      try page.click("#versions tr[data-id=\"2\"] button")
      seen["inserted"] = try page.text(".change[data-path=\"Text.txt\"] .patch .ins")
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-compare.png"]) }
      // Another process changes the package: the page shows it.
      try page.click("nav#tabs button[data-tab=\"preview\"]")
      let start = ContinuousClock.now
      _ = try Shell.run(docpkg, ["put", package, "Text.txt", "-"], input: Data("put by another process\n".utf8))
      seen["live"] = try page.text(firstLine, where: "t === 'put by another process'")
      // Not a timed test (timings live in benchmarks): printed for the record.
      print("serve-test: the page showed another process's put \(ContinuousClock.now - start) after it started")
      // The size map draws the root's entries and drills into a directory.
      try page.click("nav#tabs button[data-tab=\"sizemap\"]")
      try page.click("svg.treemap rect[data-path=\"Images\"]")
      try page.eval("waitFor(() => document.querySelector('svg.treemap rect[data-path=\"Images/tram.png\"]'))")
      // Download the package as a zip.
      try page.send(["cmd": "downloads", "dir": downloads])
      try page.click("#download")
      seen["download"] = try page.send(["cmd": "downloaded"]) as? String
      // Back to the root's size map, for the README's picture.
      try page.click("#sizemap a")
      try page.eval("waitFor(() => document.querySelector('svg.treemap rect[data-path=\"Images\"]'))")
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-sizemap.png"]) }
      // Restore version 1, after the page's confirmation (the server runs with --allow-restore).
      try page.click("nav#tabs button[data-tab=\"versions\"]")
      try page.click("#versions tr[data-id=\"1\"] button.restore")
      try page.eval("waitFor(() => document.querySelector('.confirm button.confirm-restore'))")
      seen["unconfirmed"] = try String(contentsOfFile: package + "/Text.txt", encoding: .utf8)
      try page.click(".confirm button.confirm-restore")
      seen["restored"] = try page.text("#restore-note", where: "document.body.dataset.restored === '1'")
      return seen
    }
    await served.stop()
    #expect(seen["title"] == "Notes.mydoc")
    #expect(Int(seen["image"] ?? "") ?? 0 > 0, "\(seen)")
    #expect(seen["line1"] == "third")
    #expect(seen["inserted"] == "+third")
    #expect(seen["live"] == "put by another process", "\(seen)")
    #expect(seen["unconfirmed"] == "put by another process\n")
    #expect(seen["restored"] == "Restored version 1.", "\(seen)")
    let original = try String(contentsOf: Fixtures.url("Notes.mydoc/Text.txt"), encoding: .utf8)
    #expect(try String(contentsOfFile: package + "/Text.txt", encoding: .utf8) == original)
    let zip = downloads + "/" + (seen["download"] ?? "")
    #expect(seen["download"] == "Notes.mydoc.zip")
    let listing = try await offThePool { try Shell.run("unzip", ["-p", zip, "Notes.mydoc/Text.txt"]).standardOutput }
    #expect(listing == "put by another process\n")
  }

  @Test(
    "a click on each name of every kind opens it: package, zip and version (issue 38)",
    arguments: ["package", "zip", "version"])
  func everyNameOpens(_ kind: String) async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try NamesServeTests.package(in: temp) }
    var location = package
    if kind == "zip" {
      location = temp.appending("Names.zip")
      try await ArchivePacker.pack(
        try PackageNode(contentsOf: FilePath(package)), to: FilePath(location), options: PackOptions(format: .zip))
    } else if kind == "version" {
      location = package + "@1"
    }
    let served = try await Served(package: location)
    let url = served.server.url
    let folder = NamesServeTests.folder
    let names = NamesServeTests.names
    let shown = try await withPage { page -> [String: String] in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.clickRow(folder)
      var shown: [String: String] = [:]
      for name in names {
        let path = folder + "/" + name
        try page.clickRow(path)
        // The first line of the preview of `path`, or the error the page shows instead.
        shown[name] =
          try page.eval(
            "waitFor(() => { const box = document.getElementById('preview'); "
              + "const line = box.dataset.path === \(BrowserPage.quoted(path)) && "
              + "box.querySelector('pre.code .line[data-n=\"1\"]'); const error = box.querySelector('.error'); "
              + "return (line && line.textContent) || (error && 'error: ' + error.textContent) })") as? String
      }
      return shown
    }
    await served.stop()
    for name in names {
      let expected = NamesServeTests.contents(of: name).dropLast()  // the line, without its line feed
      #expect(shown[name].map { Array($0.utf8) } == Array(expected.utf8), "\(kind) \(name): \(shown[name] ?? "nil")")
    }
  }

  @Test("a package with two names one in NFC and NFD shows the error in the page, not a blank tree (issue 38)")
  func twinNamesShowTheError() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Twins.mydoc")
    try await offThePool {
      for (name, text) in [("ok.txt", "a"), ("twin-\u{E9}", "nfc"), ("twin-e\u{301}", "nfd")] {
        try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/" + name))
      }
    }
    let served = try await Served(package: package)
    let url = served.server.url
    let shown = try await withPage { page -> String? in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      return try page.text("#tree .error")
    }
    await served.stop()
    #expect(
      shown?.contains("two entries are one name in different Unicode normalizations") == true, "\(shown ?? "nil")")
  }

  @Test("Load more after a line longer than a range goes on numbering that line, not a new one (issue 38)")
  func longLineLoadMore() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Long.mydoc")
    try await offThePool {
      let text = String(repeating: "x", count: 300_000) + "\nsecond line\nthird line\n"
      try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/long.txt"))
    }
    let served = try await Served(package: package)
    let url = served.server.url
    let lines = try await withPage { page -> String? in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.clickRow("long.txt")
      try page.click("#preview button.more")
      return try page.eval(
        "waitFor(() => { const lines = [...document.querySelectorAll('#preview pre.code .line')]; "
          + "return lines.some((l) => l.textContent === 'third line') && "
          + "lines.map((l) => l.dataset.n + ':' + l.textContent.length).join(' ') })") as? String
    }
    await served.stop()
    #expect(lines == "1:300000 2:11 3:10", "\(lines ?? "nil")")
  }

  @Test("after the tree is redrawn (sort by size) one row is still a tab stop, so Tab reaches the tree (issue 38)")
  func redrawnTreeKeepsTabStop() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package)
    let url = served.server.url
    let stops = try await withPage { page -> Int? in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.eval(
        "(() => { const sort = document.getElementById('sort'); sort.value = 'size'; "
          + "sort.dispatchEvent(new Event('change', { bubbles: true })); return true })()")
      return try page.eval(
        "waitFor(() => document.querySelector('#tree .row')?.dataset.path !== 'Images' && "
          + "document.querySelectorAll('#tree .row[tabindex=\"0\"]').length)") as? Int
    }
    await served.stop()
    #expect(stops == 1, "\(String(describing: stops))")
  }

  @Test(
    "a name that is not UTF-8 (a Latin-1 tar) shows its bytes as \\xNN, as inspect does, and still opens (issue 38)")
  func namesNotUTF8Shown() async throws {
    let served = try await Served(package: Fixtures.url("names-latin1.tar").path)
    let url = served.server.url
    let (title, name, head) = try await withPage { page -> (String?, String?, String?) in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      let title = try page.text("#title")
      let name = try page.text("#tree .row .name")
      try page.click("#tree .row")
      return (title, name, try page.text("#preview .preview-head strong"))
    }
    await served.stop()
    // The archive's one folder is its root: its name is the title.
    #expect(title == "caf\\xE9", "\(title ?? "nil")")
    #expect(name == "cr\\xE8me.txt", "\(name ?? "nil")")
    #expect(head == "cr\\xE8me.txt", "\(head ?? "nil")")
  }

  @Test("at 200% zoom a long line or a 255-byte name wraps within the preview: nothing scrolls sideways (issue 38)")
  func zoomedLongLineAndName() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Wide.mydoc")
    let longName = String(repeating: "a", count: 251) + ".txt"
    try await offThePool {
      try Data((String(repeating: "x", count: 2000) + "\n").utf8).write(
        to: URL(fileURLWithPath: package + "/lines.txt"))
      try Data("short\n".utf8).write(to: URL(fileURLWithPath: package + "/" + longName))
    }
    let served = try await Served(package: package)
    let url = served.server.url
    let seen = try await withPage(width: 640, height: 400) { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      for path in ["lines.txt", longName] {
        try page.clickRow(path)
        try page.eval("waitFor(() => document.getElementById('preview').dataset.path === \(BrowserPage.quoted(path)))")
        _ = try page.text("#preview pre.code .line[data-n=\"1\"]")
        seen[path] = String(describing: try page.eval(Self.overflow) ?? "")
      }
      return seen
    }
    await served.stop()
    #expect(seen["lines.txt"] == "0" && seen[longName] == "0", "\(seen)")
  }

  @Test("a page whose event stream was ended reconnects and shows what changed meanwhile (issue 38)")
  func reconnectRefreshes() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    // One stream at most: another one ends the page's.
    let served = try await Served(package: package) { $0.eventStreamLimit = 1 }
    let (url, port) = (served.server.url, served.port)
    let seen = try await withPage { page -> String? in
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.live === 'true')")
      // Another stream ends the page's; a file added while it is down is not sent to the page as a change.
      let other = try RawConnection(port: port, timeout: 20)
      other.send("GET \(Served.target("/api/events")) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
      other.read { String(decoding: $0, as: UTF8.self).contains("event: hello") }
      try Data("new\n".utf8).write(to: URL(fileURLWithPath: package + "/Added while away.txt"))
      return try page.eval(
        "waitFor(() => document.body.dataset.reconnects && "
          + "[...document.querySelectorAll('#tree .row')].some((r) => r.dataset.path === 'Added while away.txt') && "
          + "document.body.dataset.reconnects)") as? String
    }
    await served.stop()
    #expect(seen != nil, "the page did not show the file added while its stream was down")
  }

  @Test("the Versions tab says what each version changed; a file's history opens from its preview (issue 38)")
  func versionChangesAndHistory() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try VersionHistoryTests.package(in: temp) }
    // The image changes after the last version: its history ends with the current state, before and after.
    try await offThePool {
      _ = try Shell.docpkg(["put", package, "Images/tram.png", "-"], input: try Self.redPNG(in: temp))
    }
    let served = try await Served(package: package)
    let url = served.server.url
    let screenshots = Self.screenshots
    let seen = try await withPage { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.clickRow("Images")
      try page.clickRow("Images/tram.png")
      try page.eval("waitFor(() => document.getElementById('preview').dataset.path === 'Images/tram.png')")
      try page.click("#preview button.history")
      let images = "#versions .history[data-ready=\"true\"] .step[data-state=\"current\"] .side-by-side img"
      seen["widths"] = String(
        describing: try page.eval(
          "waitFor(() => { const i = [...document.querySelectorAll('\(images)')]; "
            + "return i.length === 2 && i.every((x) => x.complete && x.naturalWidth) && "
            + "i.map((x) => x.naturalWidth).join(' ') })") ?? "")
      try page.click("#versions .history button.close")
      try page.click("nav#tabs button[data-tab=\"versions\"]")
      seen["counts"] = try page.text("#versions tr[data-id=\"2\"] td.changes .counts")
      seen["paths"] = try page.text("#versions tr[data-id=\"2\"] td.changes .paths")
      seen["first"] = try page.text("#versions tr[data-id=\"1\"] td.changes .counts")
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-versions.png"]) }
      try page.click("nav#tabs button[data-tab=\"preview\"]")
      try page.clickRow("Text.txt")
      try page.eval("waitFor(() => document.getElementById('preview').dataset.path === 'Text.txt')")
      try page.click("#preview button.history")
      try page.eval(
        "waitFor(() => document.querySelector('#versions .history[data-path=\"Text.txt\"][data-ready=\"true\"]'))")
      seen["steps"] =
        try page.eval(
          "[...document.querySelectorAll('#versions .history .step')]"
            + ".map((s) => s.dataset.state + ':' + s.dataset.change).join(' ')") as? String
      seen["inserted"] = try page.text("#versions .history .step[data-state=\"3\"] .patch .ins")
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-history.png"]) }
      return seen
    }
    await served.stop()
    #expect(seen["counts"] == "~1 modified", "\(seen)")
    #expect(seen["paths"] == "Text.txt", "\(seen)")
    #expect(seen["first"]?.hasPrefix("+") == true, "\(seen)")
    #expect(seen["steps"] == "1:added 2:modified 3:modified", "\(seen)")
    #expect(seen["inserted"] == "+third", "\(seen)")
    let fixtureWidth = try await offThePool {
      let png = try Data(contentsOf: Fixtures.url("Notes.mydoc/Images/tram.png"))
      return png[16..<20].reduce(0) { $0 << 8 | Int($1) }  // IHDR's width
    }
    #expect(seen["widths"] == "\(fixtureWidth) 4", "\(seen)")
  }

  @Test("the keyboard walks the tree: arrows move, right opens a folder, Enter opens a file, left goes back up")
  func keyboard() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try VersionsServeTests.packageWithVersions(in: temp) }
    let served = try await Served(package: package)
    let url = served.server.url
    let seen = try await withPage { page -> [String: String] in
      var seen: [String: String] = [:]
      func press(_ key: String) throws {
        try page.eval(
          "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: '\(key)', bubbles: true }))")
      }
      func focused() throws -> String { try page.eval("document.activeElement.dataset.path || ''") as? String ?? "" }
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      // The tree is one tab stop: its first row.
      seen["stop"] = try page.eval("document.querySelector('#tree .row[tabindex=\"0\"]').dataset.path") as? String
      try page.eval("document.querySelector('#tree .row[tabindex=\"0\"]').focus()")
      try press("ArrowRight")
      try page.eval("waitFor(() => document.querySelector('.row[data-path=\"Images/tram.png\"]'))")
      try press("ArrowDown")
      seen["down"] = try focused()
      try press("Enter")
      seen["image"] = String(
        describing: try page.eval(
          "waitFor(() => { const i = document.querySelector('#preview img.preview'); return i && i.complete && i.naturalWidth })"
        ) ?? "")
      try press("ArrowLeft")
      seen["left"] = try focused()
      try press("End")
      seen["end"] = try focused()
      try press("Enter")
      seen["line1"] = try page.text("#preview pre.code .line[data-n=\"1\"]")
      try press("ArrowUp")
      seen["up"] = try focused()
      return seen
    }
    await served.stop()
    #expect(seen["stop"] == "Images", "\(seen)")
    #expect(seen["down"] == "Images/tram.png", "\(seen)")
    #expect(Int(seen["image"] ?? "") ?? 0 > 0, "\(seen)")
    #expect(seen["left"] == "Images", "\(seen)")
    #expect(seen["end"] == "Text.txt" && seen["line1"] == "third", "\(seen)")
    #expect(seen["up"] == "QuickLook", "\(seen)")
  }

  @Test("at 200% zoom (a 640 × 400 page) nothing needs scrolling sideways, and every tab and control is reachable")
  func zoomed() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try VersionHistoryTests.package(in: temp) }
    let served = try await Served(package: package)
    let url = served.server.url
    let screenshots = Self.screenshots
    let seen = try await withPage(width: 640, height: 400) { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.clickRow("Text.txt")
      _ = try page.text("#preview pre.code .line[data-n=\"1\"]")
      seen["tree"] = String(describing: try page.eval(Self.overflow) ?? "")
      // Every control has a name a screen reader says, and lies within the page's width.
      seen["unlabelled"] =
        try page.eval(
          "[...document.querySelectorAll('button, select, input, a.button')].filter((e) => e.offsetParent)"
            + ".filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label')))"
            + ".map((e) => e.outerHTML).join(' ')") as? String
      seen["outside"] =
        try page.eval(
          "[...document.querySelectorAll('nav#tabs button, #filter, #sort, #download')]"
            + ".filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.outerHTML).join(' ')")
        as? String
      try page.click("nav#tabs button[data-tab=\"versions\"]")
      _ = try page.text("#versions tr[data-id=\"2\"] td.changes .counts")
      seen["versions"] = String(describing: try page.eval(Self.overflow) ?? "")
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-zoomed.png"]) }
      return seen
    }
    await served.stop()
    #expect(seen["tree"] == "0" && seen["versions"] == "0", "\(seen)")
    #expect(seen["unlabelled"] == "", "\(seen)")
    #expect(seen["outside"] == "", "\(seen)")
  }

  @Test("a text diff side by side: each deleted line beside the line it became, the changed words marked")
  func sideBySide() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { () -> String in
      let package = try Fixtures.copy("Notes.mydoc", into: temp)
      try temp.write("Notes.mydoc/Text.txt", "Day 1.\nThe tram is yellow, wooden inside.\nCoffee.\n")
      let file = try PackageFile(at: FilePath(package), options: .holdLock)
      try file.root.setFile(at: "Text.txt", contents: Data("Day 1.\nThe tram is red, wooden inside.\nCoffee.\n".utf8))
      try file.save()
      file.close()
      return package
    }
    let served = try await Served(package: package)
    let url = served.server.url
    let screenshots = Self.screenshots
    let seen = try await withPage { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.click("nav#tabs button[data-tab=\"versions\"]")
      try page.click("#versions tr[data-id=\"1\"] button")
      _ = try page.text(".change[data-path=\"Text.txt\"] .patch .ins")
      try page.click("#side-by-side")
      let row = ".change[data-path=\"Text.txt\"] table.split"
      seen["old"] = try page.text("\(row) td.old.change")
      seen["new"] = try page.text("\(row) td.new.change")
      seen["marked"] =
        try page.eval("[...document.querySelectorAll('\(row) mark')].map((m) => m.textContent).join(' | ')") as? String
      seen["context"] =
        try page.eval("[...document.querySelectorAll('\(row) td.old.same')].map((c) => c.textContent).join(' | ')")
        as? String
      if let screenshots { try page.send(["cmd": "screenshot", "path": screenshots + "/serve-side-by-side.png"]) }
      return seen
    }
    await served.stop()
    #expect(seen["old"] == "The tram is yellow, wooden inside.", "\(seen)")
    #expect(seen["new"] == "The tram is red, wooden inside.", "\(seen)")
    #expect(seen["marked"] == "yellow | red", "\(seen)")
    #expect(seen["context"] == "Day 1. | Coffee.", "\(seen)")
  }

  /// A 4×4 red PNG, made by Python's zlib (another writer than the fixture's).
  static func redPNG(in temp: TemporaryDirectory) throws -> Data {
    let path = temp.appending("red.png")
    let script = """
      import struct, sys, zlib
      def chunk(kind, data):
          return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
      rows = b"".join(b"\\x00" + b"\\xff\\x00\\x00" * 4 for _ in range(4))
      header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
      png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
      png += chunk(b"IEND", b"")
      open(sys.argv[1], "wb").write(png)
      """
    _ = try Shell.run("python3", ["-c", script, path])
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  @Test("compare the package with a zip given with --compare: the changed line, and both images side by side")
  func comparedArchiveSideBySide() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try VersionsServeTests.packageWithVersions(in: temp) }
    let zip = temp.appending("Sent.zip")
    try await VersionsServeTests.packVersion2(of: package, to: zip)
    try await offThePool {
      _ = try Shell.docpkg(["put", package, "Images/tram.png", "-"], input: try Self.redPNG(in: temp))
    }
    let served = try await Served(package: package, compared: [zip])
    let url = served.server.url
    let seen = try await withPage { page -> [String: String] in
      var seen: [String: String] = [:]
      try page.send(["cmd": "open", "url": url])
      try page.eval("waitFor(() => document.body.dataset.ready === 'true')")
      try page.click("nav#tabs button[data-tab=\"diff\"]")
      // The zip is offered first, and picked as the state to compare from.
      seen["from"] =
        try page.eval(
          "waitFor(() => document.querySelector('#diff-from option[value=\"compared-0\"]') && "
            + "document.getElementById('diff-from').value)") as? String
      try page.click("#diff-run")
      seen["inserted"] = try page.text(".change[data-path=\"Text.txt\"] .patch .ins")
      let images = ".change[data-path=\"Images/tram.png\"] .side-by-side img"
      seen["widths"] = String(
        describing: try page.eval(
          "waitFor(() => { const i = [...document.querySelectorAll('\(images)')]; "
            + "return i.length === 2 && i.every((x) => x.complete && x.naturalWidth) && "
            + "i.map((x) => x.naturalWidth).join(' ') })") ?? "")
      seen["captions"] =
        try page.eval(
          "[...document.querySelectorAll('.change[data-path=\"Images/tram.png\"] figcaption')]"
            + ".map((c) => c.textContent).join(' | ')") as? String
      return seen
    }
    await served.stop()
    #expect(seen["from"] == "compared-0", "\(seen)")
    #expect(seen["inserted"] == "+third", "\(seen)")
    let fixtureWidth = try await offThePool {
      let png = try Data(contentsOf: Fixtures.url("Notes.mydoc/Images/tram.png"))
      return png[16..<20].reduce(0) { $0 << 8 | Int($1) }  // IHDR's width
    }
    #expect(seen["widths"] == "\(fixtureWidth) 4", "\(seen)")
    #expect(seen["captions"] == "\(zip) | current", "\(seen)")
  }
}
