import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Opening an entry of a package by its path below the package's root without following a
// symbolic link in any component: a folder another program replaced by a link (`mv sub sub.bak;
// ln -s /etc sub`) between a listing and a read is refused, not read through.
//
// One mechanism, two ways: Linux's `openat2` with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS relative
// to the root's descriptor (FUSE file systems included: the kernel resolves the path), and where
// that call is missing (ENOSYS: an older kernel, another system, a sandbox that filters it), one
// `openat` per component with O_NOFOLLOW | O_DIRECTORY. A refusal is told apart from a link at the
// last component (which O_NOFOLLOW refuses with ELOOP as before) by the same component walk.
extension Syscalls {
  /// Opens `relative` below the directory `root`, following no symbolic link in any component of
  /// `relative` (`root` itself is resolved as given: it is the path the package was opened at).
  /// - Parameters:
  ///   - root: The package's root directory.
  ///   - relative: `/`-separated components below `root` (empty: `root` itself, opened with `options`).
  ///   - options: How to open the last component (`noFollow` is implied below the root).
  /// - Throws: `Errno`; `.improperLink` (EXDEV) when a folder on the path is a symbolic link now
  ///   (the last component too, when `options` ask for a directory; or the path would leave
  ///   `root`), `.tooManySymbolicLinkLevels` (ELOOP) when the last component of a file is one.
  package static func openBeneath(_ root: FilePath, _ relative: FilePath, _ options: OpenOptions) throws(Errno)
    -> CInt
  {
    guard !relative.isEmpty else { return try openFile(root, options) }
    let rootFD = try openFile(root, DOCPKG_O_PATH | O_DIRECTORY)
    defer { closeFile(rootFD) }
    return try openBeneath(in: rootFD, relative, options)
  }

  /// Opens `relative` below the directory open as `dirfd`, following no symbolic link in any component (see
  /// ``openBeneath(_:_:_:)``).
  package static func openBeneath(in dirfd: CInt, _ relative: FilePath, _ options: OpenOptions) throws(Errno)
    -> CInt
  {
    let flags = options.rawValue | O_NOFOLLOW
    let result = relative.withPlatformString { path in openat2Beneath(dirfd, path, flags) }
    if result >= 0 { return result }
    let error = currentErrno
    guard
      error == .noFunction || error == .tooManySymbolicLinkLevels || error == .notDirectory
        || error == .fileNameTooLong
    else { throw error }
    // A path past PATH_MAX: a run of components at a time. No openat2 here, or a link on the path (which component,
    // the walk says): one component at a time.
    if error == .fileNameTooLong { return try openRunByRun(in: dirfd, relative, flags) }
    return try openComponentByComponent(in: dirfd, relative, flags)
  }

  /// One `openat2` of `path` below `dirfd` (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), tried again on EINTR and on
  /// EAGAIN (a rename elsewhere on the file system raced with the resolution; the kernel asks to try again).
  private static func openat2Beneath(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt) -> CInt {
    retryingRaw {
      var fd: CInt
      repeat { fd = docpkg_openat_beneath(dirfd, path, flags, 0) } while fd == -1 && errno == EAGAIN
      return fd
    }
  }

  /// How long a run of components ``openRunByRun(in:_:_:)`` hands `openat2` at most: well under PATH_MAX.
  static let runLength = 3072

  /// Opens a path past PATH_MAX (a package thousands of folders deep) with one `openat2` per run of components
  /// shorter than ``runLength``, each relative to the folder the run before opened, as ``openBeneath(in:_:_:)``
  /// does the whole path: two calls for a path of 6,000 bytes, where a walk of its components makes 3,000 (and a
  /// check of a package 3,000 folders deep, which opens each folder so, 4.5 million). A run refused for any other
  /// reason is walked one component at a time from where it starts, which tells what refused it.
  static func openRunByRun(in dirfd: CInt, _ relative: FilePath, _ flags: CInt) throws(Errno) -> CInt {
    // On the path's bytes (its separators normalized: no `//`, no `/` at either end), not its components.
    let bytes = relative.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
    let slash = CChar(UInt8(ascii: "/"))
    var current = dirfd
    defer { if current != dirfd { closeFile(current) } }
    var start = 0
    while start < bytes.count {
      // The run: whole components from `start`, as many as stay under `runLength` (at least one).
      var end = start
      repeat {
        var next = end == start ? start : end + 1
        while next < bytes.count, bytes[next] != slash { next += 1 }
        if end > start, next - start >= runLength { break }
        end = next
      } while end < bytes.count
      let last = end == bytes.count
      let runFlags = last ? flags : DOCPKG_O_PATH | O_DIRECTORY | O_NOFOLLOW
      let run = Array(bytes[start..<end]) + [0]
      let fd = run.withUnsafeBufferPointer { openat2Beneath(current, $0.baseAddress!, runFlags) }
      guard fd >= 0 else {
        let rest = (Array(bytes[start...]) + [0]).withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
        return try openComponentByComponent(in: current, rest, flags)
      }
      if last { return fd }
      if current != dirfd { closeFile(current) }
      current = fd
      start = end + 1
    }
    throw .invalidArgument
  }

  /// The walk ``openBeneath(in:_:_:)`` falls back to: one `openat` per folder on the path (O_PATH where the
  /// platform has it), none of them following a link. (Internal, not private: tested on its own, as
  /// the kernels it runs on have `openat2`.)
  static func openComponentByComponent(in dirfd: CInt, _ relative: FilePath, _ flags: CInt) throws(Errno)
    -> CInt
  {
    let components = Array(relative.components)
    guard let last = components.last else { throw .invalidArgument }
    var current = dirfd
    defer { if current != dirfd { closeFile(current) } }
    for component in components.dropLast() {
      guard component.kind == .regular else {
        if component.kind == .currentDirectory { continue }
        throw .improperLink  // `..`: not below the root
      }
      let next = component.withPlatformString { name in
        retryingRaw { openat(current, name, DOCPKG_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
      }
      if next < 0 {
        let error = currentErrno
        if error == .tooManySymbolicLinkLevels || error == .notDirectory,
          let status = try? component.withPlatformString({ name throws(Errno) in try self.status(in: current, name) }),
          status.kind == .symlink
        {
          throw .improperLink
        }
        throw error
      }
      if current != dirfd { closeFile(current) }
      current = next
    }
    guard last.kind == .regular else { throw last.kind == .parentDirectory ? .improperLink : .invalidArgument }
    let fd = last.withPlatformString { name in retryingRaw { openat(current, name, flags | O_CLOEXEC) } }
    guard fd < 0 else { return fd }
    let error = currentErrno
    // A folder asked for that is a link now was replaced by one, as a folder on the way would be.
    if flags & O_DIRECTORY != 0, error == .tooManySymbolicLinkLevels || error == .notDirectory,
      let status = try? last.withPlatformString({ name throws(Errno) in try self.status(in: current, name) }),
      status.kind == .symlink
    {
      throw .improperLink
    }
    throw error
  }
}
