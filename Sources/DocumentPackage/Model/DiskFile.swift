import SystemPackage

/// A regular file of a package on disk, as a value another thread or module can open later (the
/// writers of `docpkg pack` read the files its walk listed): the package's root, held open, and the
/// path below it, opened without following a symbolic link below the root
/// (``Syscalls/openBeneath(in:_:_:)``), as the model opens its own files.
package struct DiskFile: Sendable {
  /// The package's root directory.
  package let root: HeldDirectory
  /// The file's path below `root`.
  package let relative: FilePath
  /// The whole path, for messages.
  package let path: FilePath

  /// Opens the file for reading: one `openat2` (or one `openat` per component where there is none).
  /// - Throws: ``PackageError`` naming ``path``: `changedOnDisk` when a folder on the path was
  ///   replaced by a link or the file vanished or changed kind, `io` for another failure.
  package func open() throws -> CInt {
    do { return try Syscalls.openBeneath(in: root.fd, relative, [.readOnly]) } catch {
      throw PackageNode.onDiskError(error, kind: .file, path: path, action: "open")
    }
  }
}

/// The package roots a walk's ``DiskFile``s are below, each opened once (files moved in from
/// another package have their own).
package final class DiskFileRoots {
  private var handles: [FilePath: HeldDirectory] = [:]
  /// The location asked for last and its root's handle (the files of a walk share one).
  private var last: (location: PackageLocation, handle: HeldDirectory)?

  package init() {}

  /// The file on disk that holds `node` exactly as the model has it (see
  /// ``PackageNode/diskLocation``), or nil.
  /// - Throws: ``PackageError`` if the package's root cannot be opened.
  package func file(for node: PackageNode) throws -> DiskFile? {
    // As `diskLocation` says, without making the path twice.
    guard node.kind == .file, let origin = node.origin, !node.edits.contains(.contents), case .onDisk = node.fileBody
    else { return nil }
    let handle: HeldDirectory
    if let last, last.location === origin.location {
      handle = last.handle
    } else {
      let root = origin.location.root
      if let held = handles[root] {
        handle = held
      } else {
        do { handle = try HeldDirectory(root) } catch { throw PackageError.io(error, "cannot open", path: root) }
        handles[root] = handle
      }
      last = (origin.location, handle)
    }
    let (relative, path) = origin.paths
    return DiskFile(root: handle, relative: relative, path: path)
  }
}
