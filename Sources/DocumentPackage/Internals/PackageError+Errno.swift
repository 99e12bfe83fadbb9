import SystemPackage

extension PackageError {
  /// The error for a failed system call: "`message` '`path`' `context`: `reason`", code `io`.
  /// The one way the libraries turn an `Errno` into a ``PackageError``.
  package static func io(_ errno: Errno, _ message: String, path: String, context: String = "") -> PackageError {
    PackageError(.io, message, path: path, context: context, errno: errno)
  }

  /// ``io(_:_:path:context:)`` for a `FilePath`.
  package static func io(_ errno: Errno, _ message: String, path: FilePath, context: String = "") -> PackageError {
    io(errno, message, path: path.string, context: context)
  }

  /// The error for failing to open what the user named: code `noSuchEntry` when nothing is
  /// there (ENOENT), `io` otherwise.
  package static func opening(_ errno: Errno, _ message: String, path: String, context: String = "") -> PackageError {
    PackageError(
      errno == .noSuchFileOrDirectory ? .noSuchEntry : .io, message, path: path, context: context, errno: errno)
  }
}

extension Syscalls {
  /// Runs the system calls in `body`, turning a thrown `Errno` into ``PackageError/io(_:_:path:context:)``.
  @discardableResult
  package static func io<T>(
    _ message: String, path: String, context: String = "", _ body: () throws(Errno) -> T
  ) throws(PackageError) -> T {
    do { return try body() } catch { throw PackageError.io(error, message, path: path, context: context) }
  }

  /// Whether anything is at `path`: false only for "no such file"; any other failure is thrown as a
  /// ``PackageError`` naming `path`, never taken for "absent".
  package static func entryExists(_ path: FilePath) throws(PackageError) -> Bool {
    try io("cannot look at", path: path.string) { () throws(Errno) in try exists(path) }
  }
}
