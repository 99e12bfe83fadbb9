import Crypto
import DocumentSync
import Foundation
import TestSupport
import Testing

/// End-to-end encryption of a remote (`remote add --encrypt`) against the real server, through `docpkg`: what the
/// bucket holds after a push, a round trip to another folder, a wrong passphrase, tampered objects.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct EncryptedSyncTests {
  static let passphrase = ["DOCPKG_SYNC_PASSPHRASE": "a long passphrase for the tests"]
  static let wrongPassphrase = ["DOCPKG_SYNC_PASSPHRASE": "not the passphrase"]

  /// A copy of the Notes fixture with an encrypted remote `origin` on a fresh bucket, pushed.
  func pushedNotes(_ label: String) async throws -> (
    temp: TemporaryDirectory, package: String, url: String, S3Client
  ) {
    let client = try await ObjectStore.freshBucket()
    let temp = try TemporaryDirectory(label)
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let url = "s3://\(client.bucket)/notes"
    let add = try Shell.docpkg(
      ["remote", "add", package, "origin", url, "--endpoint", ObjectStore.endpointURL, "--encrypt"],
      environment: Self.passphrase)
    #expect(add.status == 0, "\(add.standardError)")
    let list = try Shell.docpkg(["remote", "list", package])
    #expect(list.standardOutput == "origin\t\(url)\t\(ObjectStore.endpointURL)\tencrypted\n")
    let push = try Shell.docpkg(["push", package], environment: Self.passphrase)
    #expect(push.status == 0, "\(push.standardError)")
    #expect(push.standardOutput.hasPrefix("pushed 4 blobs, 3 trees"), "\(push.standardOutput)")
    return (temp, package, url, client)
  }

  /// Every regular file under `root` by its path relative to it.
  static func files(under root: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let path = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
        files[path] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
      }
    }
    return files
  }

  static func hex(_ data: Data) -> String {
    Crypto.SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
  }

  /// Every object in the bucket: key, bytes and ETag.
  static func objects(_ client: S3Client) async throws -> [(key: String, data: Data, etag: String)] {
    var objects: [(key: String, data: Data, etag: String)] = []
    for object in try await client.list(prefix: "") {
      let (data, etag) = try await client.get(object.key)
      objects.append((object.key, data, etag))
    }
    return objects.sorted { $0.key < $1.key }
  }

  @Test func theBucketHoldsNoNameContentOrHashAndAnotherFolderGetsTheSameTree() async throws {
    let (temp, package, url, client) = try await pushedNotes("crypt-grep")
    let files = try Self.files(under: package)
    #expect(files.count == 4)
    // What must not show: every entry's name, a distinctive part of every file's bytes, every file's SHA-256,
    // and the root tree's (the sync state's first line).
    var secrets = Set(["Index.json", "Text.txt", "Images", "tram.png", "QuickLook", "Thumbnail.png", "Lisbon"])
    var contents: [Data] = []
    for (_, data) in files {
      secrets.insert(Self.hex(data))
      let middle = data.count / 2
      contents.append(Data(data[(middle - 8)..<(middle + 8)]))
    }
    let state = try String(contentsOfFile: temp.appending(".Notes.mydoc.docpkg-sync/state/origin"), encoding: .utf8)
    secrets.insert(String(state.prefix(64)))  // the root tree's hash
    contents += secrets.map { Data($0.utf8) }
    let objects = try await Self.objects(client)
    #expect(objects.count >= 4 + 3 + 2)  // blobs, trees, head, key (and a state)
    for object in objects {
      for secret in secrets { #expect(!object.key.contains(secret), "\(object.key) names \(secret)") }
      for content in contents {
        #expect(object.data.range(of: content) == nil, "\(object.key) holds \(content)")
      }
    }

    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, desk, "--endpoint", ObjectStore.endpointURL], environment: Self.passphrase)
    #expect(clone.status == 0, "\(clone.standardError)")
    #expect(try Self.files(under: desk) == files)
    // The clone's remote is encrypted too: its edit goes up sealed, and the first folder pulls it.
    try Data("moved on\n".utf8).write(to: URL(fileURLWithPath: desk + "/Text.txt"))
    let push = try Shell.docpkg(["push", desk], environment: Self.passphrase)
    #expect(push.standardOutput.hasPrefix("pushed 1 blobs, 1 trees"), "\(push.standardError)")
    let pull = try Shell.docpkg(["pull", package], environment: Self.passphrase)
    #expect(pull.standardOutput == "fast-forward\n", "\(pull.standardError)")
    #expect(try Self.files(under: package) == Self.files(under: desk))
    // The state the pull replaced is a version whose files stay on the remote, opened when it is shown; the
    // device's pin that keeps them there is sealed like every other object.
    let listed = try Shell.docpkg(["versions", "list", package, "--json"])
    #expect(listed.standardOutput.contains("\"remote\":\"origin\""), "\(listed.standardOutput)")
    let shown = try Shell.docpkg(["versions", "show", package, "1", "Text.txt"], environment: Self.passphrase)
    #expect(shown.status == 0, "\(shown.standardError)")
    #expect(Data(shown.standardOutput.utf8) == files["Text.txt"])
    let pins = try await Self.objects(client).filter { $0.key.contains("/pins/") }
    #expect(pins.count == 1)
    for pin in pins { #expect(!String(decoding: pin.data, as: UTF8.self).contains("tree ")) }
  }

  @Test func aWrongOrMissingPassphraseFailsInOneLineAndChangesNothing() async throws {
    let (temp, package, url, client) = try await pushedNotes("crypt-wrong")
    let before = try await Self.objects(client).map { "\($0.key) \($0.etag)" }
    let syncFolder = temp.appending(".Notes.mydoc.docpkg-sync")
    let stateBefore = try Data(contentsOf: URL(fileURLWithPath: syncFolder + "/state/origin"))
    try Data("changed here\n".utf8).write(to: URL(fileURLWithPath: package + "/Text.txt"))
    let filesBefore = try Self.files(under: package)

    let desk = temp.appending("Desk.mydoc")
    let runs: [([String], [String: String], String)] = [
      (["push", package], Self.wrongPassphrase, "wrong passphrase"),
      (["pull", package], Self.wrongPassphrase, "wrong passphrase"),
      (["remote", "prune", package], Self.wrongPassphrase, "wrong passphrase"),
      (["clone", url, desk, "--endpoint", ObjectStore.endpointURL], Self.wrongPassphrase, "wrong passphrase"),
      (["push", package], ["DOCPKG_SYNC_PASSPHRASE": ""], "DOCPKG_SYNC_PASSPHRASE"),
      (["clone", url, desk, "--endpoint", ObjectStore.endpointURL], [:], "DOCPKG_SYNC_PASSPHRASE"),
    ]
    for (arguments, environment, words) in runs {
      var environment = environment
      if environment["DOCPKG_SYNC_PASSPHRASE"] == nil { environment["DOCPKG_SYNC_PASSPHRASE"] = "" }
      let result = try Shell.docpkg(arguments, environment: environment)
      #expect(result.status != 0, "\(arguments)")
      #expect(result.standardError.hasPrefix("docpkg: error: "), "\(arguments): \(result.standardError)")
      #expect(result.standardError.contains(words), "\(arguments): \(result.standardError)")
      #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.standardError)")
    }
    #expect(try await Self.objects(client).map { "\($0.key) \($0.etag)" } == before)
    #expect(try Data(contentsOf: URL(fileURLWithPath: syncFolder + "/state/origin")) == stateBefore)
    #expect(try Self.files(under: package) == filesBefore)
    #expect(!FileManager.default.fileExists(atPath: desk))
    #expect(!FileManager.default.fileExists(atPath: temp.appending(".Desk.mydoc.docpkg-sync")))
    // Adding the remote to another package with a wrong passphrase is refused too, and adds nothing.
    let other = try TemporaryDirectory("crypt-wrong-add")
    let otherPackage = try Fixtures.copy("Notes.mydoc", into: other)
    let add = try Shell.docpkg(
      ["remote", "add", otherPackage, "origin", url, "--endpoint", ObjectStore.endpointURL, "--encrypt"],
      environment: Self.wrongPassphrase)
    #expect(add.status != 0 && add.standardError.contains("wrong passphrase"), "\(add.standardError)")
    #expect(try Shell.docpkg(["remote", "list", otherPackage]).standardOutput.isEmpty)
    // And without --encrypt: the remote is encrypted, say so.
    let plain = try Shell.docpkg(["remote", "add", otherPackage, "origin", url, "--endpoint", ObjectStore.endpointURL])
    #expect(plain.status != 0 && plain.standardError.contains("--encrypt"), "\(plain.standardError)")
  }

  @Test func pruneKeepsWhatTheRetainedStatesReach() async throws {
    let (temp, package, url, client) = try await pushedNotes("crypt-prune")
    for round in 1...3 {
      try Data("round \(round)\n".utf8).write(to: URL(fileURLWithPath: package + "/Text.txt"))
      let push = try Shell.docpkg(["push", package], environment: Self.passphrase)
      #expect(push.status == 0, "\(push.standardError)")
    }
    let states = try await client.list(prefix: "notes/states/")
    #expect(states.count == 4)
    let prune = try Shell.docpkg(["remote", "prune", package, "--keep", "1"], environment: Self.passphrase)
    #expect(prune.status == 0, "\(prune.standardError)")
    // Three old versions of Text.txt and three old root trees go; the head's state stays whole.
    #expect(prune.standardOutput.hasPrefix("kept 1 states"), "\(prune.standardOutput)")
    #expect(prune.standardOutput.hasSuffix("removed 9 objects\n"), "\(prune.standardOutput)")
    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, desk, "--endpoint", ObjectStore.endpointURL], environment: Self.passphrase)
    #expect(clone.status == 0, "\(clone.standardError)")
    #expect(try Self.files(under: desk) == Self.files(under: package))
  }

  @Test(arguments: ["blobs/", "trees/", "head"])
  func aFlippedByteIsRefusedNamingTheObject(_ prefix: String) async throws {
    let (temp, _, url, client) = try await pushedNotes("crypt-tamper")
    let objects = try await Self.objects(client)
    guard let victim = objects.first(where: { $0.key.hasPrefix("notes/" + prefix) }) else {
      Issue.record("no object under \(prefix)")
      return
    }
    var flipped = victim.data
    flipped[flipped.count / 2] ^= 0x20
    _ = try await client.put(victim.key, data: flipped)
    let desk = temp.appending("Desk.mydoc")
    let clone = try Shell.docpkg(
      ["clone", url, desk, "--endpoint", ObjectStore.endpointURL], environment: Self.passphrase)
    #expect(clone.status != 0)
    #expect(clone.standardError.contains("tampered"), "\(clone.standardError)")
    #expect(clone.standardError.contains("'\(victim.key)'"), "\(clone.standardError)")
    #expect(clone.standardError.filter { $0 == "\n" }.count == 1, "\(clone.standardError)")
    #expect(!FileManager.default.fileExists(atPath: desk))
  }
}
