import Crypto
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The package as it is on disk, as remote objects: every tree object by hash, and every blob's hash with the
/// package path it can be read from. Made by reading every file once (SHA-256).
struct Snapshot {
  /// The root tree's hash.
  var root: String
  /// Tree objects by hash.
  var trees: [String: SyncTree] = [:]
  /// Blobs by hash: a package path holding the bytes, and the size.
  var blobs: [String: (path: String, size: Int64)] = [:]

  /// Reads the package at `packagePath` (blocking: call on ``BlockingIO``).
  /// - Throws: ``PackageError`` as the package's reads do.
  init(packageAt packagePath: FilePath) throws {
    let root = try PackageNode(contentsOf: packagePath)
    var trees: [String: SyncTree] = [:]
    var blobs: [String: (path: String, size: Int64)] = [:]
    func visit(_ directory: PackageNode, path: String) throws -> String {
      var tree = SyncTree()
      for (name, child) in try directory.children() {
        let childPath = path.isEmpty ? name : "\(path)/\(name)"
        let mode = UInt16(truncatingIfNeeded: child.permissions.rawValue)
        switch child.kind {
        case .directory:
          tree.entries[name] = SyncEntry(
            kind: .directory, mode: mode, size: 0, reference: try visit(child, path: childPath))
        case .symlink:
          tree.entries[name] = SyncEntry(kind: .symlink, mode: mode, size: 0, reference: child.symbolicLinkDestination)
        default:
          var hasher = SHA256()
          var size: Int64 = 0
          try child.readContents(chunkSize: 1 << 20) { chunk in
            hasher.update(bufferPointer: chunk)
            size += Int64(chunk.count)
          }
          let hash = Data(hasher.finalize()).hexString
          blobs[hash] = (childPath, size)
          tree.entries[name] = SyncEntry(kind: .file, mode: mode, size: size, reference: hash)
        }
      }
      let hash = tree.hash
      trees[hash] = tree
      return hash
    }
    self.root = try visit(root, path: "")
    self.trees = trees
    self.blobs = blobs
  }
}

/// A tree flattened to `path → entry` (directories included, so empty ones are kept), for three-way merging.
typealias FlatTree = [String: SyncEntry]

extension FlatTree {
  /// Flattens the tree `root` found in `trees`.
  init(root: String, trees: [String: SyncTree]) throws {
    self.init()
    func visit(_ hash: String, prefix: String) throws {
      guard let tree = trees[hash] else {
        throw SyncError(.corrupt, "missing tree object", key: "trees/\(hash)")
      }
      for (name, entry) in tree.entries {
        let path = prefix.isEmpty ? name : "\(prefix)/\(name)"
        // A directory compares by kind and mode only: its contents are its own paths.
        self[path] =
          entry.kind == .directory ? SyncEntry(kind: .directory, mode: entry.mode, size: 0, reference: "") : entry
        if entry.kind == .directory { try visit(entry.reference, prefix: path) }
      }
    }
    try visit(root, prefix: "")
  }
}
