extension PackageNode {
  /// The directory this root node was loaded from or last saved as (``RootIdentity``): its origin's
  /// device and inode, with the birth time read then where the file system records one. Nil for a
  /// node that is not a package's root read from disk.
  var loadedRootIdentity: RootIdentity? {
    guard parent == nil, let origin, origin.name == nil, origin.status.kind == .directory else { return nil }
    let status = origin.status
    let recorded = origin.location.loadedRoot
    let birth = recorded.flatMap { $0.device == status.device && $0.inode == status.inode ? $0.birth : nil }
    return RootIdentity(device: status.device, inode: status.inode, birth: birth)
  }
}
