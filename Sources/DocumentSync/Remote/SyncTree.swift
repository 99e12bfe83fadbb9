import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a remote tree object: a file (its blob's SHA-256), a directory (its tree's SHA-256) or a
/// symbolic link (its destination).
public struct SyncEntry: Sendable, Hashable {
  /// The entry's kind.
  public enum Kind: String, Sendable, Hashable {
    /// A regular file: `reference` is its blob's SHA-256.
    case file = "f"
    /// A directory: `reference` is its tree object's SHA-256.
    case directory = "d"
    /// A symbolic link: `reference` is its destination.
    case symlink = "l"
  }

  /// The entry's kind.
  public var kind: Kind
  /// The permission bits (octal in the object).
  public var mode: UInt16
  /// The file's size in bytes (0 for directories and links).
  public var size: Int64
  /// The blob or tree hash, or the link's destination.
  public var reference: String
}

/// A tree object of the remote layout: one directory's entries, sorted by the bytes of their names, one line each:
/// `KIND MODE SIZE REFERENCE NAME\n` (KIND `f`/`d`/`l`, MODE octal, names and link destinations
/// percent-escaped: bytes up to space, `%` and DEL as `%XX`, the empty string as `%`). Its key is the SHA-256 of
/// these bytes, so equal directories are one object. Times are not part of it: a tree names content only.
public struct SyncTree: Sendable, Hashable {
  /// The entries by name.
  public var entries: [String: SyncEntry]

  /// A tree of `entries`.
  public init(entries: [String: SyncEntry] = [:]) { self.entries = entries }

  /// The object's bytes.
  public func encoded() -> Data {
    var text = ""
    for name in entries.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
      let entry = entries[name]!
      let reference = entry.kind == .symlink ? VersionEscaping.escape(entry.reference) : entry.reference
      text +=
        "\(entry.kind.rawValue) \(String(entry.mode, radix: 8)) \(entry.size) \(reference) \(VersionEscaping.escape(name))\n"
    }
    return Data(text.utf8)
  }

  /// The object's key name: the SHA-256 of ``encoded()`` in hex.
  public var hash: String { Data(SHA256.hash(data: encoded())).hexString }

  /// Parses a tree object; checks that `data` hashes to `expectedHash` when given.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if it does not parse or hash.
  public init(decoding data: Data, key: String, expectedHash: String? = nil) throws {
    if let expectedHash, Data(SHA256.hash(data: data)).hexString != expectedHash {
      throw SyncError(.corrupt, "tree object does not hash to its key", key: key)
    }
    var entries: [String: SyncEntry] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = VersionEscaping.fields(line)
      guard parts.count == 5, let kind = SyncEntry.Kind(rawValue: String(parts[0])),
        let mode = UInt16(parts[1], radix: 8), let size = Int64(parts[2])
      else { throw SyncError(.corrupt, "malformed line '\(line)' in tree object", key: key) }
      let reference = kind == .symlink ? VersionEscaping.unescape(parts[3]) : String(parts[3])
      entries[VersionEscaping.unescape(parts[4])] = SyncEntry(kind: kind, mode: mode, size: size, reference: reference)
    }
    self.entries = entries
  }
}
