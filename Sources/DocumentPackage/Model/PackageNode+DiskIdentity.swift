extension PackageNode {
  /// The device and inode of the file on disk that holds this node exactly as the model has it,
  /// or `nil` when there is none (made or changed in memory, or backed by an archive).
  ///
  /// Two nodes with the same identity have the same contents without reading them: hard-linked
  /// versions of a package share inodes for every unchanged file. Builds no path (unlike
  /// ``diskLocation``), so it costs nothing per file.
  var diskIdentity: DiskIdentity? {
    guard let origin, !edits.contains(.contents) else { return nil }
    if kind == .file, case .onDisk = fileBody {} else if kind == .file { return nil }
    return DiskIdentity(device: origin.status.device, inode: origin.status.inode)
  }

  /// Whether the node's contents and children are read from disk (not from memory or an archive),
  /// so that reading them touches nothing shared with other nodes but the file system.
  var isBackedByDisk: Bool { diskIdentity != nil }
}

/// A file's identity on disk: the device it is on and its inode number there.
struct DiskIdentity: Hashable {
  var device: UInt64
  var inode: UInt64
}
