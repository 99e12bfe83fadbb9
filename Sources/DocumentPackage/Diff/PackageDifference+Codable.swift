import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A difference as JSON: the schema of `docpkg diff --json`, version 1.
///
/// Keys are only added in later versions, never renamed or removed; `?` marks keys that appear only when they
/// apply. Encode with `JSONEncoder` and `[.sortedKeys, .withoutEscapingSlashes]`, as `docpkg diff --json` does:
/// sorted keys make the output the same from run to run (`JSONEncoder` does not keep the order keys are written
/// in), and paths stay readable.
///
///     {"version": 1, "identical": BOOL,
///      "counts": {"added": N, "deleted": N, "modified": N, "renamed": N, "typeChanged": N},
///      "changes": [CHANGE]}
///     CHANGE = {"status": "A"|"D"|"M"|"R"|"T",   // git's --name-status letters (Change.Kind's raw values)
///       "path": "Data/new.txt",                 // new path; old path for "D"
///       "oldPath"?: "Data/old.txt",             // "R" only
///       "similarity"?: 86,                      // "R" only, percent
///       "details"?: ["contents"|"mode"|"target"|"mtime"],  // "M" and "R": what differs
///       "old"?: ENTRY, "new"?: ENTRY,           // absent for "A" / "D" respectively
///       "patch"?: "@@ -1 +1 @@\n-a\n+b\n",      // when patches were computed: the unified text
///       "nested"?: {"changes": [CHANGE]}}       // a container file opened by expandingContainers
///     ENTRY = {"kind": "file"|"directory"|"symlink", "size": N, "mode": "0644",
///       "mtime"?: "SECONDS.NANOSECONDS", "target"?: "...", "sha256"?: "hex"}
///
/// `counts` and `identical` are written for readers and ignored when decoding; ``PackageDifference/Entry/isText``
/// is not in the schema and decodes as `nil`.
extension PackageDifference: Codable {
  /// The version of the schema this library writes.
  public static let jsonSchemaVersion = 1

  private enum CodingKeys: String, CodingKey {
    case version, identical, counts, changes
  }

  /// Writes the whole document: version, identical, counts, then changes.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Self.jsonSchemaVersion, forKey: .version)
    try container.encode(isEmpty, forKey: .identical)
    var countsContainer = container.nestedContainer(keyedBy: AnyKey.self, forKey: .counts)
    let counts = self.counts
    for kind in Change.Kind.allCases { try countsContainer.encode(counts[kind] ?? 0, forKey: AnyKey(kind.description)) }
    try container.encode(changes, forKey: .changes)
  }

  /// Reads the changes of a document (or of a `nested` object, which has only `changes`).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(changes: try container.decode([Change].self, forKey: .changes))
  }

  /// A `nested` object: only the changes.
  fileprivate struct Nested: Codable {
    var changes: [Change]
  }
}

extension PackageDifference.Change: Codable {
  private enum CodingKeys: String, CodingKey {
    case status, path, oldPath, similarity, details, old, new, patch, nested
  }

  /// Writes the change's keys (see the schema on ``PackageDifference``'s `Codable` conformance).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kind.rawValue, forKey: .status)
    try container.encode(path, forKey: .path)
    if case .renamed(let from, _, let similarity, _, _, _, _) = self {
      try container.encode(from, forKey: .oldPath)
      try container.encode(similarity, forKey: .similarity)
    }
    if kind == .modified || kind == .renamed {
      try container.encode(Details.named.filter { details.contains($0.0) }.map(\.json), forKey: .details)
    }
    try container.encodeIfPresent(old, forKey: .old)
    try container.encodeIfPresent(new, forKey: .new)
    try container.encodeIfPresent(patch?.unifiedText, forKey: .patch)
    try container.encodeIfPresent(nested.map { PackageDifference.Nested(changes: $0.changes) }, forKey: .nested)
  }

  /// Reads a change; fails when a key its status needs is missing or a value is not in the schema.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let status = try container.decode(String.self, forKey: .status)
    guard let kind = Kind(rawValue: status) else {
      throw DecodingError.dataCorruptedError(
        forKey: .status, in: container, debugDescription: "unknown status '\(status)' (A, D, M, R or T)")
    }
    let path = try container.decode(String.self, forKey: .path)
    var details: Details = []
    for name in try container.decodeIfPresent([String].self, forKey: .details) ?? [] {
      guard let part = Details.named.first(where: { $0.json == name }) else {
        throw DecodingError.dataCorruptedError(
          forKey: .details, in: container, debugDescription: "unknown detail '\(name)' (contents, mode, target, mtime)")
      }
      details.insert(part.0)
    }
    let patch = try container.decodeIfPresent(String.self, forKey: .patch).map {
      guard let patch = TextPatch(unifiedText: $0) else {
        throw DecodingError.dataCorruptedError(forKey: .patch, in: container, debugDescription: "not a unified diff")
      }
      return patch
    }
    func entry(_ key: CodingKeys) throws -> PackageDifference.Entry {
      try container.decode(PackageDifference.Entry.self, forKey: key)
    }
    switch kind {
    case .added: self = .added(path: path, try entry(.new), patch: patch)
    case .deleted: self = .deleted(path: path, try entry(.old), patch: patch)
    case .modified:
      let nested = try container.decodeIfPresent(PackageDifference.Nested.self, forKey: .nested)
      self = .modified(
        path: path, old: try entry(.old), new: try entry(.new), details: details, patch: patch,
        nested: nested.map { PackageDifference(changes: $0.changes) })
    case .renamed:
      self = .renamed(
        from: try container.decode(String.self, forKey: .oldPath), to: path,
        similarity: try container.decode(Int.self, forKey: .similarity), old: try entry(.old), new: try entry(.new),
        details: details, patch: patch)
    case .typeChanged: self = .typeChanged(path: path, old: try entry(.old), new: try entry(.new))
    }
  }
}

extension PackageDifference.Entry: Codable {
  private enum CodingKeys: String, CodingKey {
    case kind, size, mode, mtime, target, sha256
  }

  /// Writes the entry: kind, size, mode as four octal digits, then mtime, target and sha256 when known.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kind, forKey: .kind)
    try container.encode(size, forKey: .size)
    let digits = String(permissions.rawValue, radix: 8)
    try container.encode(String(repeating: "0", count: max(0, 4 - digits.count)) + digits, forKey: .mode)
    try container.encodeIfPresent(modificationTime?.description, forKey: .mtime)
    try container.encodeIfPresent(symbolicLinkDestination, forKey: .target)
    try container.encodeIfPresent(sha256, forKey: .sha256)
  }

  /// Reads an entry; `isText` is not in the schema and is `nil`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let mode = try container.decode(String.self, forKey: .mode)
    guard let bits = CModeT(mode, radix: 8) else {
      throw DecodingError.dataCorruptedError(
        forKey: .mode, in: container, debugDescription: "mode '\(mode)' is not octal")
    }
    var time: FileTime?
    if let text = try container.decodeIfPresent(String.self, forKey: .mtime) {
      guard let decimal = FileTime(decimal: Substring(text)) else {
        throw DecodingError.dataCorruptedError(
          forKey: .mtime, in: container, debugDescription: "mtime '\(text)' is not SECONDS.NANOSECONDS")
      }
      time = decimal
    }
    self.init(
      kind: try container.decode(NodeKind.self, forKey: .kind), size: try container.decode(Int64.self, forKey: .size),
      permissions: FilePermissions(rawValue: bits), modificationTime: time,
      symbolicLinkDestination: try container.decodeIfPresent(String.self, forKey: .target),
      sha256: try container.decodeIfPresent(String.self, forKey: .sha256))
  }
}

/// A coding key made from a string (the `counts` object's keys).
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
