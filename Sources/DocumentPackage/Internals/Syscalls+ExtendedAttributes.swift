import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``Syscalls/writeAttribute(_:_:_:mode:)`` treats an attribute that exists already (or not).
package enum AttributeWriteMode {
  /// Fail with EEXIST if the attribute exists (`XATTR_CREATE`).
  case create
  /// Fail with ENODATA (ENOATTR) unless the attribute exists (`XATTR_REPLACE`).
  case replace
}

// Extended attributes (`getxattr(2)`, `setxattr(2)`), used for the identity a package reference
// keeps on a package's root directory. `user.*` names need no privilege on Linux (ext4, xfs,
// btrfs, tmpfs since 6.6); macOS takes any name, and its calls have an `options` argument.
extension Syscalls {
  /// The value of the attribute `name` of the file at `path` (a symbolic link itself, not
  /// followed), or nil if it has none.
  /// - Throws: `Errno` — ENOTSUP where the file system keeps no such attributes, EACCES, ...
  package static func readAttribute(_ path: FilePath, _ name: String) throws(Errno) -> [UInt8]? {
    try readAttribute { buffer, size in
      path.withPlatformString { p in
        #if canImport(Darwin)
        getxattr(p, name, buffer, size, 0, XATTR_NOFOLLOW)
        #else
        lgetxattr(p, name, buffer, size)
        #endif
      }
    }
  }

  /// ``readAttribute(_:_:)`` for a path given as raw bytes (``RawName/init(path:)``).
  package static func readAttribute(_ path: RawName, _ name: String) throws(Errno) -> [UInt8]? {
    try readAttribute { buffer, size in
      path.withCString { p in
        #if canImport(Darwin)
        getxattr(p, name, buffer, size, 0, XATTR_NOFOLLOW)
        #else
        lgetxattr(p, name, buffer, size)
        #endif
      }
    }
  }

  /// The value of the attribute `name` of the open file `fd`, or nil if it has none.
  package static func readAttribute(_ fd: CInt, _ name: String) throws(Errno) -> [UInt8]? {
    try readAttribute { buffer, size in
      #if canImport(Darwin)
      fgetxattr(fd, name, buffer, size, 0, 0)
      #else
      fgetxattr(fd, name, buffer, size)
      #endif
    }
  }

  /// Sets the attribute `name` of the open file `fd` to `value`.
  /// - Throws: `Errno` — EEXIST (`.create`) or ENODATA/ENOATTR (`.replace`) when the mode is not
  ///   met, ENOTSUP where the file system keeps no such attributes, EPERM/EACCES without the right.
  package static func writeAttribute(_ fd: CInt, _ name: String, _ value: [UInt8], mode: AttributeWriteMode)
    throws(Errno)
  {
    let flags = CInt(mode == .create ? XATTR_CREATE : XATTR_REPLACE)
    _ = try retrying {
      value.withUnsafeBytes { bytes in
        #if canImport(Darwin)
        fsetxattr(fd, name, bytes.baseAddress, bytes.count, 0, flags)
        #else
        fsetxattr(fd, name, bytes.baseAddress, bytes.count, flags)
        #endif
      }
    }
  }

  /// Calls `get(buffer, size)` (a `*getxattr`) with a buffer that grows until the value fits.
  private static func readAttribute(_ get: (UnsafeMutableRawPointer?, Int) -> Int) throws(Errno) -> [UInt8]? {
    var capacity = 256
    while true {
      var value = [UInt8](repeating: 0, count: capacity)
      let count = retryingRaw { value.withUnsafeMutableBytes { get($0.baseAddress, capacity) } }
      if count >= 0 { return Array(value.prefix(count)) }
      let error = currentErrno
      if error.rawValue == Self.noAttributeCode { return nil }
      if error.rawValue == ERANGE && capacity < 1 << 16 {
        capacity *= 16
        continue
      }
      throw error
    }
  }

  #if canImport(Darwin)
  private static let noAttributeCode = ENOATTR
  #else
  private static let noAttributeCode = ENODATA
  #endif
}

extension Errno {
  /// Whether an attribute call failed because no attribute can be kept here at all: the file
  /// system has none (ENOTSUP, which is EOPNOTSUPP on Linux), a read-only file system, or no
  /// right to write this file's.
  package var refusesAttributes: Bool {
    self == .notSupported || self == .readOnlyFileSystem || self == .notPermitted || self == .permissionDenied
  }
}
