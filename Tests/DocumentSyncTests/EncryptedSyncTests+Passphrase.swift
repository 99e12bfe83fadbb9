import DocumentSync
import Foundation
import TestSupport
import Testing

/// The passphrase of an encrypted remote: changed with `remote passphrase`, typed at a terminal when the environment
/// does not give it, and a clone that asks for encryption refusing a remote that has none.
extension EncryptedSyncTests {
  @Test func aChangedPassphraseOpensTheRemoteAndTheOldOneNoLonger() async throws {
    let (temp, package, url, client) = try await pushedNotes("crypt-change")
    let keyBefore = try await client.get("notes/key").data
    // The current passphrase must be right: nothing is written otherwise.
    let refused = try Shell.docpkg(
      ["remote", "passphrase", package],
      environment: Self.wrongPassphrase.merging(["DOCPKG_SYNC_NEW_PASSPHRASE": "the new one"]) { $1 })
    #expect(refused.status != 0 && refused.standardError.contains("wrong passphrase"), "\(refused.standardError)")
    #expect(try await client.get("notes/key").data == keyBefore)

    let new = ["DOCPKG_SYNC_PASSPHRASE": "the new one"]
    let changed = try Shell.docpkg(
      ["remote", "passphrase", package],
      environment: Self.passphrase.merging(["DOCPKG_SYNC_NEW_PASSPHRASE": "the new one"]) { $1 })
    #expect(changed.status == 0, "\(changed.standardError)")
    #expect(changed.standardOutput.hasPrefix("passphrase changed"))
    let old = try Shell.docpkg(["pull", package], environment: Self.passphrase)
    #expect(old.status != 0 && old.standardError.contains("wrong passphrase"), "\(old.standardError)")
    // Nothing but the key changed: the objects sealed before open with the new passphrase.
    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(["clone", url, desk, "--endpoint", ObjectStore.endpointURL], environment: new)
    #expect(clone.status == 0, "\(clone.standardError)")
    #expect(try Self.files(under: desk) == Self.files(under: package))
  }

  @Test func aCloneThatAsksForEncryptionRefusesAPlainRemote() async throws {
    let client = try await ObjectStore.freshBucket()
    let temp = try TemporaryDirectory("crypt-required")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let url = "s3://\(client.bucket)/plain"
    #expect(
      try Shell.docpkg(["remote", "add", package, "origin", url, "--endpoint", ObjectStore.endpointURL]).status == 0)
    #expect(try Shell.docpkg(["push", package]).status == 0)
    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, desk, "--endpoint", ObjectStore.endpointURL, "--encrypt"], environment: Self.passphrase)
    #expect(clone.status != 0)
    #expect(clone.standardError.contains("not encrypted"), "\(clone.standardError)")
    #expect(clone.standardError.filter { $0 == "\n" }.count == 1)
    #expect(!FileManager.default.fileExists(atPath: desk))
  }

  @Test func aPassphraseTypedAtTheTerminalIsNotEchoed() async throws {
    let (temp, package, _, _) = try await pushedNotes("crypt-typed")
    try Data("typed\n".utf8).write(to: URL(fileURLWithPath: package + "/Text.txt"))
    // A terminal (Python's pty) on which the passphrase is typed once the prompt shows.
    let driver = """
      import os, pty, sys
      pid, fd = pty.fork()
      if pid == 0:
          os.execv(sys.argv[1], sys.argv[1:])
      seen = b""
      while b"Passphrase" not in seen:
          seen += os.read(fd, 1024)
      os.write(fd, os.environ["TYPED"].encode() + b"\\n")
      while True:
          try:
              chunk = os.read(fd, 1024)
          except OSError:
              break
          if not chunk:
              break
          seen += chunk
      _, status = os.waitpid(pid, 0)
      sys.stdout.write(seen.decode("utf-8", "replace"))
      sys.exit(os.waitstatus_to_exitcode(status))
      """
    let typed = try Shell.run(
      "python3", ["-c", driver, Shell.docpkgPath, "push", package],
      environment: ["TYPED": "a long passphrase for the tests", "DOCPKG_SYNC_PASSPHRASE": ""], check: false)
    #expect(typed.status == 0, "\(typed.standardOutput)\(typed.standardError)")
    #expect(typed.standardOutput.contains("Passphrase for remote 'origin': "), "\(typed.standardOutput)")
    #expect(typed.standardOutput.contains("pushed 1 blobs"), "\(typed.standardOutput)")
    #expect(!typed.standardOutput.contains("a long passphrase"), "echoed: \(typed.standardOutput)")
    _ = temp
  }
}

extension EncryptedSyncTests {
  /// `docpkg serve` runs unattended: a version whose files are on an encrypted remote is fetched with the
  /// passphrase of the environment, and without one the page's request fails in one line naming the variable;
  /// it never asks at its terminal (here a pseudo-terminal), where no one answers.
  @Test func serveNeverAsksForThePassphraseAtItsTerminal() async throws {
    let (temp, package, url, _) = try await pushedNotes("crypt-serve")
    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, desk, "--endpoint", ObjectStore.endpointURL, "--quiet"], environment: Self.passphrase)
    #expect(clone.status == 0, "\(clone.standardError)")
    try Data("changed on the first device\n".utf8).write(to: URL(fileURLWithPath: package + "/Text.txt"))
    #expect(try Shell.docpkg(["push", package, "--quiet"], environment: Self.passphrase).status == 0)
    let pull = try Shell.docpkg(["pull", desk, "--quiet"], environment: Self.passphrase)
    #expect(pull.status == 0, "\(pull.standardError)")
    #expect(try Shell.docpkg(["versions", "list", desk]).standardOutput.contains("(files on origin)"))

    // In a pseudo-terminal, with no passphrase in its environment (the tests' own has none).
    let server = try RunningProcess("/usr/bin/python3", ["-c", Self.inTerminal, Shell.docpkgPath, "serve", desk])
    defer { server.stop() }
    #expect(await server.wait { $0.standardOutput.contains("serving") && $0.standardOutput.contains("\n") })
    let line = try #require(server.standardOutput.split(whereSeparator: \.isNewline).first { $0.contains("serving") })
    let address = try #require(line.split(separator: " ").last)
    let components = try #require(URLComponents(string: String(address)))
    let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
    let port = try #require(components.port)
    let preview = try Shell.run(
      "curl", ["-sS", "--max-time", "30", "http://127.0.0.1:\(port)/api/preview?path=Text.txt&state=1&token=\(token)"],
      check: false)
    #expect(preview.status == 0, "curl: \(preview.standardError)")  // answered, not left waiting on a prompt
    #expect(preview.standardOutput.contains("DOCPKG_SYNC_PASSPHRASE"), "\(preview.standardOutput)")
    #expect(!server.standardOutput.contains("Passphrase for remote"), "\(server.standardOutput)")
    #expect(try Shell.docpkg(["versions", "list", desk]).standardOutput.contains("(files on origin)"))
  }

  /// A Python program that runs its arguments in a pseudo-terminal, copies its output, and passes SIGTERM on (so
  /// that ``RunningProcess/stop()`` ends the program too, which `pty.spawn` does not).
  static let inTerminal = """
    import os, pty, signal, sys
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[1], sys.argv[1:])
    signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])  # the test runner blocks it for its children
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)
    sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """
}
