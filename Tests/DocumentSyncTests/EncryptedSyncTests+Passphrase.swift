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
