import Foundation
import TestSupport
import Testing

/// `docpkg serve` as a user runs it: `docpkg` hands the command to `docpkg-sync`, which prints the URL and serves.
@Suite("docpkg serve, the command")
struct ServeCommandTests {
  @Test("prints a loopback URL with a token, then serves the page and the API until stopped")
  func servesUntilStopped() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let process = try RunningProcess(Shell.docpkgPath, ["serve", package])
    do { try await checkServing(process, package) } catch {
      try await offThePool { process.stop() }
      throw error
    }
    // SIGTERM ends it (whatever signals the test runner's thread blocked).
    try await offThePool { process.stop() }
    #expect(process.status == 128 + 15)
  }

  private func checkServing(_ process: RunningProcess, _ package: String) async throws {
    #expect(await process.wait { $0.standardOutput.contains("\n") }, "\(process.standardError)")
    let line = process.standardOutput
    let url = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    #expect(line.hasPrefix("serving \(package) at http://127.0.0.1:"), "\(line)")
    let components = try #require(URLComponents(string: url))
    let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
    #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
    let port = try #require(components.port)
    let info = try await offThePool { try RawHTTP.get("/api/info?token=\(token)", port: port) }
    #expect(info.status == 200 && info.json["name"] as? String == "Notes.mydoc", "\(info)")
    let page = try await offThePool { try RawHTTP.get("/?token=\(token)", port: port) }
    #expect(page.status == 200 && page.text.contains("<title>docpkg serve</title>"))
  }

  @Test("a path that cannot be served, or a port out of range, is one line and a non-zero status")
  func refusals() async throws {
    let temp = try TemporaryDirectory()
    let (missing, port) = try await offThePool {
      (
        try Shell.docpkg(["serve", temp.appending("Nothing.mydoc")]),
        try Shell.docpkg(["serve", temp.path, "--port", "70000"])
      )
    }
    #expect(
      missing.status == 1 && missing.standardError.hasPrefix("docpkg: error: no such package"),
      "\(missing.standardError)")
    #expect(missing.standardError.split(separator: "\n").count == 1)
    #expect(port.status == 64 && port.standardError.contains("--port"), "\(port.standardError)")
  }

  @Test("a port that is taken, or negative, is one line naming it and a non-zero status")
  func portTakenOrNegative() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let other = try await Served(package: package)
    let port = other.port
    let (taken, negative) = try await offThePool {
      (
        try Shell.docpkg(["serve", package, "--port", String(port)]),
        try Shell.docpkg(["serve", package, "--port", "-1"])
      )
    }
    await other.stop()
    #expect(taken.status == 1, "\(taken.standardOutput)")
    #expect(
      taken.standardError == "docpkg: error: cannot listen on '127.0.0.1:\(port)': Address already in use\n",
      "\(taken.standardError)")
    #expect(
      negative.status == 64 && negative.standardError.contains("--port must be between 0 and 65535"),
      "\(negative.standardError)")
  }

  @Test(
    "an archive that cannot be read is refused in one line, as unpack refuses it, not served as a file",
    .enabled(if: getuid() == 0 && Shell.has("setpriv"), "reads as an unprivileged user with setpriv"))
  func refusesUnreadableArchive() async throws {
    let temp = try TemporaryDirectory()
    let (served, unpacked) = try await offThePool { () -> (Shell.Output, Shell.Output) in
      let package = try Fixtures.copy("Notes.mydoc", into: temp)
      let archive = temp.appending("P.zip")
      let packed = try Shell.docpkg(["pack", package, "-o", archive])
      #expect(packed.status == 0, "\(packed.standardError)")
      try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: archive)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.path)
      let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", Shell.docpkgPath]
      return (
        // Under `timeout`: a server that served it anyway would run until killed.
        try Shell.run("/usr/bin/timeout", ["20", "/usr/bin/setpriv"] + nobody + ["serve", archive], check: false),
        try Shell.run("/usr/bin/setpriv", nobody + ["unpack", archive, "-o", temp.appending("out")], check: false)
      )
    }
    #expect(served.status == 1, "\(served.standardOutput)")
    #expect(
      served.standardError.contains("cannot open archive") && served.standardError.contains("Permission denied"),
      "\(served.standardError)")
    #expect(served.standardError.split(separator: "\n").count == 1)
    #expect(unpacked.standardError == served.standardError)
  }

  @Test("an archive that unpack refuses as a zip bomb is refused in one line, before anything is served")
  func refusesBombs() async throws {
    let temp = try TemporaryDirectory()
    // 64 MiB of zeros (a sparse file) deflate to about 64 KiB: a thousand times.
    let (bomb, unpacked) = try await offThePool { () -> (String, Shell.Output) in
      let package = try temp.makeDirectory("Bomb.mydoc")
      _ = FileManager.default.createFile(atPath: "\(package)/zeros.bin", contents: nil)
      let zeros = try #require(FileHandle(forWritingAtPath: "\(package)/zeros.bin"))
      try zeros.truncate(atOffset: 64 << 20)
      try zeros.close()
      let bomb = temp.appending("bomb.zip")
      let packed = try Shell.docpkg(["pack", package, "-o", bomb])
      #expect(packed.status == 0, "\(packed.standardError)")
      return (bomb, try Shell.docpkg(["unpack", bomb, "-o", temp.appending("out")]))
    }
    #expect(unpacked.status == 1 && unpacked.standardError.contains("decompression bomb"), "\(unpacked.standardError)")
    let process = try RunningProcess(Shell.docpkgPath, ["serve", bomb])
    let exited = await process.waitForExit(seconds: 60)
    if !exited { try await offThePool { process.stop() } }
    #expect(exited, "still serving: \(process.standardOutput)")
    #expect(process.status == 1, "\(process.standardError)")
    #expect(process.standardOutput.isEmpty)
    #expect(
      process.standardError.hasPrefix("docpkg: error: archive expands more than 200 times its size:")
        && process.standardError.contains(bomb) && process.standardError.split(separator: "\n").count == 1,
      "\(process.standardError)")
  }
}
