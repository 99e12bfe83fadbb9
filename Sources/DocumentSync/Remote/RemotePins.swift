import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Pins: the remote states a device's versions keep files in.
//
// A pull keeps the state it replaces as a local version, and the files of that state that the remote's head also
// holds are not copied: the version references them (`PackageVersion.remote`) and they are downloaded when it is
// read. They must then stay on the remote as long as the version does, whatever the remote's history retains. So
// each device writes `pins/DEVICE` (DEVICE: the sync folder's random `device` id), one `tree HASH` line per remote
// state its versions reference, and a prune marks from every pin as from its retained states.
//
// A pull writes its pin holding a `push` lock (which a prune excludes, RemoteLock.swift), then checks that the head
// is still the state it pins: a prune that ran before kept that head, and one that runs after reads the pin. When
// the pin cannot be written (read-only credentials, a prune holding the remote for more than a few seconds), the
// pull copies the files into the version store as it would without a remote. A pin is rewritten by every pull
// from the device's current versions, so states of versions removed since are let go.

/// The body of a pin object: `docpkg-sync-pins 1`, then `tree HASH` per pinned state.
struct RemotePins: Sendable, Hashable {
  var trees: Set<String>

  init(trees: Set<String>) { self.trees = trees }

  /// The pins in `data`; nil if it is not a pin object.
  init?(data: Data) {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docpkg-sync-pins 1" else { return nil }
    var trees: Set<String> = []
    for line in lines.dropFirst() {
      let fields = line.split(separator: " ")
      guard fields.count == 2, fields[0] == "tree", ContentHash.isValid(fields[1]) else { return nil }
      trees.insert(String(fields[1]))
    }
    self.trees = trees
  }

  func encoded() -> Data {
    Data(("docpkg-sync-pins 1\n" + trees.sorted().map { "tree \($0)\n" }.joined()).utf8)
  }
}

extension PackageSync {
  /// This device's pin object.
  func pinKey() throws -> String { location.key("pins/\(try folder.deviceID())") }

  /// Pins `head`'s state (read with `etag`) for a version that keeps files in it, with the states this device's
  /// versions already reference (see the discussion above).
  /// - Returns: Whether the state is pinned; false when the pin could not be written or the head moved meanwhile
  ///   (then the version copies its files).
  func pin(_ head: RemoteHead, etag: String) async -> Bool {
    let packagePath = folder.packagePath
    let name = remote.name
    do {
      let held = try await BlockingIO.run {
        try VersionStore.remoteHeldVersions(ofPackageAt: packagePath, listingFiles: false)
      }
      let trees = Set(held.filter { $0.remote == name }.map(\.remoteTree)).union([head.tree])
      let key = try pinKey()
      let objects = try await unlock()
      return try await withRemoteLock(.push, wait: .seconds(5)) {
        try await objects.put(key, RemotePins(trees: trees).encoded(), kind: .pins)
        return try await self.head()?.etag == etag
      }
    } catch {
      return false
    }
  }

  /// The trees every device's pin names (for a prune to keep what they reach). A pin that cannot be read or opened
  /// is an error: skipping it could delete files a version keeps.
  /// - Throws: ``SyncError`` with code `corrupt` naming a pin that is not one; the client's errors.
  func pinnedTrees() async throws -> Set<String> {
    var trees: Set<String> = []
    let objects = try await unlock()
    for object in try await client.list(prefix: location.key("pins/")) {
      let data: Data
      do { data = try await client.get(object.key, limit: 1 << 24).data } catch let error as SyncError
        where error.code == .noSuchKey
      {
        continue  // removed meanwhile
      }
      guard let pins = RemotePins(data: try objects.opened(data, kind: .pins, key: object.key)) else {
        throw SyncError(
          .corrupt, "not a pin object (a prune keeps what pins name; remove it by hand to go on)", key: object.key)
      }
      trees.formUnion(pins.trees)
    }
    return trees
  }
}

extension SyncFolder {
  /// The random id that names this device's objects on its remotes (`device` in the sync folder, made on first
  /// use).
  /// - Throws: `PackageError` if it cannot be read or written.
  func deviceID() throws -> String {
    let file = path.appending("device")
    if let data = try LocalFiles.read(file, limit: 64) {
      let id = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
      if id.count == 32, id.allSatisfy(\.isHexDigit) { return id }
    }
    try LocalFiles.makeDirectories(path)
    let id = (0..<16).map { _ in
      let byte = UInt8.random(in: 0...255)
      return (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }.joined()
    try LocalFiles.writeAtomically(Data((id + "\n").utf8), to: file)
    return id
  }
}
