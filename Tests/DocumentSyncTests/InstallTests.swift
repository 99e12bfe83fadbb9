import Foundation
import TestSupport
import Testing

/// `make install PREFIX=...`: the binary, the man page generated from the argument definitions, and the
/// bash, zsh and fish completions.
@Suite("make install", .enabled(if: Shell.has("make") && Shell.has("man")))
struct InstallTests {
  @Test func installsTheBinaryTheManPageAndTheCompletions() throws {
    let prefix = try TemporaryDirectory()
    let root = Fixtures.repositoryRoot.path
    // The debug build the tests run from (a release build would build everything again); `swift test` holds
    // the build folder's lock, which the Makefile's swift commands would wait for forever.
    let make = try Shell.run(
      "make", ["install", "PREFIX=\(prefix.path)", "CONFIGURATION=debug", "SWIFT_FLAGS=--ignore-lock"],
      directory: root, check: false)
    #expect(make.status == 0, "\(make.standardOutput)\(make.standardError)")
    let version = try Shell.run(prefix.appending("bin/docpkg"), ["--version"])
    #expect(version.standardOutput == "0.1.0\n")
    for completion in [
      "share/bash-completion/completions/docpkg", "share/zsh/site-functions/_docpkg",
      "share/fish/vendor_completions.d/docpkg.fish",
    ] {
      let text = try String(contentsOfFile: prefix.appending(completion), encoding: .utf8)
      #expect(text.contains("docpkg") && text.contains("tar.zst"), "\(completion)")
    }
    let page = try Shell.run(
      "man", ["-l", prefix.appending("share/man/man1/docpkg.1")], environment: ["MANPAGER": "cat", "MANWIDTH": "100"],
      check: false)
    #expect(page.status == 0, "\(page.standardError)")
    let text = page.standardOutput.replacingOccurrences(of: "\u{8}.", with: "", options: .regularExpression)
    #expect(text.contains("DOCPKG(1)"))
    for command in ["inspect", "pack", "unpack", "versions", "--format", "--color"] {
      #expect(text.contains(command), "\(command)")
    }
  }
}
