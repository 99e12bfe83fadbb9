import DocumentPackage
import SystemPackage

/// One entry to write, flattened from the package tree before anything is written.
struct PackEntry: Sendable {
  enum Source: Sendable {
    /// Directories and links have no contents.
    case none
    /// A file read from this path on disk (unchanged since loaded).
    case disk(String)
    /// A file whose contents live in the model (changed in memory, or in an archive): the index
    /// of its node in ``PackPlan/nodes``.
    case node(Int)
  }

  /// The path in the archive, `/`-separated, without a trailing slash.
  var name: String
  var kind: NodeKind
  /// Permission bits (set-id and sticky included).
  var mode: UInt32
  var modificationTime: FileTime
  var size: Int64
  var linkDestination: String
  var source: Source
}

/// The entries of a package in archive order, and the nodes whose contents only the model has.
struct PackPlan {
  var entries: [PackEntry] = []
  var nodes: [PackageNode] = []
  var totalBytes: Int64 = 0

  /// Walks `root` in sorted order. The root is the archive's top-level entry, except for a
  /// document zip (a `mimetype` file at the root, as in ODF and EPUB): then the root's children
  /// are the top-level entries and `mimetype` comes first.
  init(root: PackageNode, format: ArchiveFormat, fixedTime: Int64?) throws {
    let now = FileTime(seconds: Int64(Self.currentTime()))
    let mimetype = root.kind == .directory ? try root.child(named: "mimetype") : nil
    let documentLayout = format == .zip && mimetype?.kind == .file
    let prefix = documentLayout ? "" : root.name
    if documentLayout, let mimetype {
      add(mimetype, name: "mimetype", now: now, fixedTime: fixedTime)
    }
    try root.walk { node, path, depth in
      if documentLayout && (depth == 0 || (depth == 1 && path == "mimetype")) { return true }
      let name = path.isEmpty ? prefix : prefix.isEmpty ? path : prefix + "/" + path
      add(node, name: name, now: now, fixedTime: fixedTime)
      return true
    }
  }

  private mutating func add(_ node: PackageNode, name: String, now: FileTime, fixedTime: Int64?) {
    var source = PackEntry.Source.none
    if node.kind == .file {
      if let location = node.diskLocation {
        source = .disk(location.string)
      } else {
        source = .node(nodes.count)
        nodes.append(node)
      }
      totalBytes += node.size
    }
    let time = fixedTime.map { FileTime(seconds: $0) } ?? node.modificationTime ?? now
    entries.append(
      PackEntry(
        name: name, kind: node.kind, mode: UInt32(node.permissions.rawValue) & 0o7777, modificationTime: time,
        size: node.kind == .file ? node.size : 0,
        linkDestination: node.kind == .symlink ? node.symbolicLinkDestination : "", source: source))
  }

  private static func currentTime() -> Int { Syscalls.currentTime }
}
