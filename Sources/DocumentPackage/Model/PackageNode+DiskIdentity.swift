extension PackageNode {
  /// The device and inode of the file on disk that holds this node exactly as the model has it,
  /// or `nil` when there is none (made or changed in memory, or backed by an archive).
  ///
  /// Two nodes with the same identity have the same contents without reading them: hard-linked
  /// versions of a package share inodes for every unchanged file.
  var diskIdentity: DiskIdentity? {
    guard diskLocation != nil, let origin else { return nil }
    return DiskIdentity(device: origin.status.device, inode: origin.status.inode)
  }
}

/// A file's identity on disk: the device it is on and its inode number there.
struct DiskIdentity: Hashable {
  var device: UInt64
  var inode: UInt64
}
