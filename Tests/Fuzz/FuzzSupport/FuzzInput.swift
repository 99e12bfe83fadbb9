#if canImport(Glibc)
import Glibc
#endif

/// The bytes libFuzzer hands a target, and the file the library's readers open them from.
///
/// The readers under test take a path (they `pread` the file, or hand it to libarchive), so each input is
/// written to one file per process, in `/dev/shm` when there is one: no disk write per execution.
public enum FuzzInput {
  /// The directory of this process's input file, made on first use.
  private nonisolated(unsafe) static var directory: String?
  /// The files written in it, removed with it at exit.
  private nonisolated(unsafe) static var names: Set<String> = []

  /// Writes `bytes` to this process's input file named `name` (its extension picks the archive format
  /// when the first bytes do not) and returns its path. The file is replaced on every call.
  public static func file(_ bytes: UnsafeRawBufferPointer, named name: String) -> String {
    let path = makeDirectory() + "/" + name
    names.insert(name)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path): errno \(errno)")
    var written = 0
    while written < bytes.count {
      let count = write(fd, bytes.baseAddress! + written, bytes.count - written)
      precondition(count > 0, "cannot write \(path): errno \(errno)")
      written += count
    }
    close(fd)
    return path
  }

  /// The input as a buffer (libFuzzer may pass a null pointer with size 0).
  public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    guard let data, size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: data, count: size)
  }

  private static func makeDirectory() -> String {
    if let directory { return directory }
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
    var template = Array("\(base)/docpkg-fuzz-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a directory in \(base): errno \(errno)") }
    let path = String(cString: made)
    directory = path
    atexit {
      guard let directory = FuzzInput.directory else { return }
      for name in FuzzInput.names { unlink(directory + "/" + name) }
      rmdir(directory)
    }
    return path
  }
}

/// Thrown by a reading callback to stop reading once a target has read enough of one input: the readers
/// are fuzzed for their parsing, not for the time a large declared size takes to stream.
public struct EnoughRead: Error {
  public init() {}
}

/// Stops a target with a message libFuzzer reports as a crash: what the target found inconsistent.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
  fatalError(message, file: file, line: line)
}
