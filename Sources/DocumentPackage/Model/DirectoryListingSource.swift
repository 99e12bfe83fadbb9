import SystemPackage

/// Where a directory made in memory lists its children from when they are first asked for, as a
/// directory read from disk lists them from disk: an archive read in place keeps a compact table of
/// its entries and makes the nodes of one directory at a time, so that opening an archive of a
/// million entries makes no node below the directories a caller visits.
///
/// A source makes its children afresh at each call, as a listing from disk does: a directory that
/// forgets its listing (``PackageNode/forgetListing()``) lists it again from the source.
package protocol DirectoryListingSource: AnyObject {
  /// The children, each made without a parent, sorted by name byte-wise in UTF-8, no two with one name.
  /// - Throws: ``PackageError`` naming the directory if it cannot be listed.
  func listChildren() throws -> [PackageNode]

  /// The child called `name`, made alone without the others, when the source can find one entry
  /// for less than a listing costs (a path walk keeps it as a probed child: see
  /// `PackageNode+Probing.swift`); nil when the directory must be listed to answer (the default).
  /// - Throws: ``PackageError`` naming the directory if it cannot be read.
  func child(named name: String) throws -> PackageNode?
}

extension DirectoryListingSource {
  package func child(named name: String) throws -> PackageNode? { nil }
}

extension PackageNode {
  /// A directory whose children `source` lists when first asked for; its attributes set as loaded
  /// (no change recorded). `permissions` and `modificationTime` are the directory's own.
  package convenience init(
    directoryListedBy source: any DirectoryListingSource, name: String, permissions: FilePermissions,
    modificationTime: FileTime?
  ) {
    self.init(kind: .directory, name: name, permissions: permissions, origin: nil)
    listingSource = source
    storedModificationTime = modificationTime
  }

  /// A file whose contents `source` gives, with attributes set as loaded (no change recorded): what a
  /// ``DirectoryListingSource`` lists.
  package convenience init(
    listedFileWithSource source: any FileContentSource, name: String, permissions: FilePermissions,
    modificationTime: FileTime?
  ) {
    self.init(kind: .file, name: name, permissions: permissions, origin: nil)
    fileBody = .source(source)
    storedModificationTime = modificationTime
  }

  /// A symbolic link to `destination`, with its time set as loaded (no change recorded): what a
  /// ``DirectoryListingSource`` lists. Its permissions are `0o777`, as every link's.
  package convenience init(listedSymbolicLinkTo destination: String, name: String, modificationTime: FileTime?) {
    self.init(kind: .symlink, name: name, permissions: FilePermissions(rawValue: 0o777), origin: nil)
    linkDestination = destination
    storedModificationTime = modificationTime
  }

  /// The source this directory lists its children from, if it is listed from one.
  package var directoryListingSource: (any DirectoryListingSource)? { listingSource }

  /// Lists this directory from its ``DirectoryListingSource``: its children by name, and sorted.
  func listChildrenFromSource(_ source: any DirectoryListingSource) throws -> ([String: PackageNode], [PackageNode]) {
    let sorted = try source.listChildren()
    var children: [String: PackageNode] = [:]
    children.reserveCapacity(sorted.count)
    for child in sorted {
      child.parent = self
      guard children.updateValue(child, forKey: child.name) == nil else {
        throw PackageError(.corrupt, "two entries have one name", path: joined(child.name), context: packageContext)
      }
    }
    return (children, sorted)
  }

  /// Lists every directory below this one that a ``DirectoryListingSource`` has not listed yet, and
  /// drops the sources: what a tree listed lazily becomes before it joins another tree, which saves
  /// and copies directories by the children they hold. (An explicit stack: the depth is the input's.)
  /// - Throws: The first error listing a directory.
  func listEverythingFromSources() throws {
    guard kind == .directory, listingSource != nil else { return }
    var pending: [PackageNode] = [self]
    while let node = pending.popLast() {
      guard node.kind == .directory, node.listingSource != nil else { continue }
      pending.append(contentsOf: try node.children().values)
      node.listingSource = nil
    }
  }
}
