import FuzzSupport
import SystemPackage

@testable import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libFuzzer's entry: the first byte picks the reader, the rest is what it reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = FuzzInput.bytes(data, size)
  guard let selector = bytes.first else { return 0 }
  let rest = Data(bytes.dropFirst())
  switch selector % 8 {
  case 0: RecordsFuzz.versionRecord(rest)
  case 1: RecordsFuzz.tree(rest)
  case 2: RecordsFuzz.pendingVersion(rest)
  case 3: RecordsFuzz.hashCache(rest)
  case 4: RecordsFuzz.storeIdentity(rest)
  case 5: RecordsFuzz.referenceText(rest)
  case 6: RecordsFuzz.referenceJSON(rest)
  default: RecordsFuzz.treeEntry(rest)
  }
  return 0
}

/// The version store's records, the hash cache, the store identity and package references: what a reader
/// of these files accepts, it writes back the same (a record read and written again says what it said).
enum RecordsFuzz {
  /// A version record (`versions/ID`): read, written, read again: the same record.
  static func versionRecord(_ data: Data) {
    guard let record = VersionRecord(id: 1, data: data) else { return }
    let written = record.encoded()
    guard let again = VersionRecord(id: 1, data: written) else {
      fuzzFailure("a version record read from \(Array(data)) is written as \(Array(written)), which does not read")
    }
    if again.encoded() != written || again.version.conflictPaths != record.version.conflictPaths
      || again.version.unkeptPaths != record.version.unkeptPaths || again.version.remote != record.version.remote
      || again.remoteTree != record.remoteTree
    {
      fuzzFailure("a version record changes when written and read again: \(Array(data))")
    }
  }

  /// A tree object: its entries, and the references the pruning scan finds in it.
  static func tree(_ data: Data) {
    let references = TreeEntry.references(data)
    guard let entries = TreeEntry.parse(data) else { return }
    let expected = entries.filter { $0.kind != .symlink }.map { ($0.kind == .directory, $0.reference) }
    if !references.elementsEqual(expected, by: { $0.isTree == $1.0 && $0.hash == $1.1 }) {
      fuzzFailure("the pruning scan finds \(references) in a tree whose entries refer to \(expected): \(Array(data))")
    }
    for entry in entries { roundTrip(entry) }
  }

  /// One tree line, made from the input (a name and a link destination of any bytes): written, then read.
  static func treeEntry(_ data: Data) {
    let bytes = Array(data)
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let name = String(decoding: bytes[..<split], as: UTF8.self)
    let destination = String(decoding: bytes[min(split + 1, bytes.count)...], as: UTF8.self)
    let time = FileTime(seconds: Int64(bytes.count), nanoseconds: 5)
    let hash = String(repeating: "ab", count: 32)
    roundTrip(TreeEntry(kind: .file, permissions: [], time: time, size: 3, reference: hash, name: name))
    roundTrip(TreeEntry(kind: .symlink, permissions: [], time: time, size: 0, reference: destination, name: name))
    if VersionEscaping.unescape(Substring(VersionEscaping.escape(name))) != name {
      fuzzFailure("the name \(name.debugDescription) does not survive its escaping")
    }
  }

  private static func roundTrip(_ entry: TreeEntry) {
    let line = entry.line
    guard let again = TreeEntry(line: Substring(line.dropLast())) else {
      fuzzFailure("the tree line \(line.debugDescription) does not read")
    }
    if again.line != line || again.name != entry.name || again.reference != entry.reference {
      fuzzFailure("the tree line \(line.debugDescription) reads as \(again.line.debugDescription)")
    }
  }

  /// A pending record (`pending/ID`), and the same bytes as a capture marker's intent (`pending/ID.start`).
  static func pendingVersion(_ data: Data) {
    saveIntent(data)
    guard let pending = PendingVersion(id: 1, data: data) else { return }
    let written = pending.encoded()
    guard let again = PendingVersion(id: 1, data: written) else {
      fuzzFailure("a pending record read from \(Array(data)) is written as \(Array(written)), which does not read")
    }
    if again.encoded() != written || again.changed != pending.changed {
      fuzzFailure("a pending record changes when written and read again: \(Array(data))")
    }
  }

  /// A capture marker's intent: read, written, read again: the same; the record it completes reads.
  private static func saveIntent(_ data: Data) {
    guard let intent = SaveIntent(data) else { return }
    let written = intent.encoded()
    guard let again = SaveIntent(written), again == intent, again.encoded() == written else {
      fuzzFailure("a save intent read from \(Array(data)) does not survive being written and read again")
    }
    guard let record = intent.record(id: 1)?.encoded() else { return }  // no capture time: nothing to complete
    if PendingVersion(id: 1, data: record)?.changed != intent.changed {
      fuzzFailure("the record completed from the save intent \(Array(data)) does not read")
    }
  }

  /// The hash cache's log, parsed as the settler reads it.
  static func hashCache(_ data: Data) {
    var found = 0
    data.withUnsafeBytes { raw in
      HashCache.parse(raw.bindMemory(to: UInt8.self)) { key, entry in
        found += 1
        _ = (key, entry.digest.hex)
      }
    }
    // The same bytes through the file reader (1 MiB chunks, torn last line).
    let path = FuzzInput.file(UnsafeRawBufferPointer(start: nil, count: 0), named: "hash-cache")
    data.withUnsafeBytes { _ = FuzzInput.file($0, named: "hash-cache") }
    _ = HashCache(path: FilePath(path))
  }

  /// The store's `identity` file.
  static func storeIdentity(_ data: Data) {
    let path = data.withUnsafeBytes { FuzzInput.file($0, named: "identity") }
    _ = StoreIdentity.read(from: FilePath(path).removingLastComponent())
  }

  /// A reference's text form (`docpkg bookmark`, a configuration file).
  static func referenceText(_ data: Data) {
    guard let reference = try? PackageReference(text: String(decoding: data, as: UTF8.self)) else { return }
    guard let again = try? PackageReference(text: reference.text), again == reference else {
      fuzzFailure("the reference read from \(Array(data)) is written as \(reference.text), which reads otherwise")
    }
  }

  /// A reference's `Codable` form, as an app stores it.
  static func referenceJSON(_ data: Data) {
    guard let reference = try? JSONDecoder().decode(PackageReference.self, from: data) else { return }
    guard let json = try? JSONEncoder().encode(reference),
      let again = try? JSONDecoder().decode(PackageReference.self, from: json), again == reference
    else {
      fuzzFailure("the reference decoded from \(Array(data)) does not survive encoding")
    }
  }
}
