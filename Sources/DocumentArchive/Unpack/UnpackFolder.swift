import DocumentPackage
import SystemPackage

/// The temporary folder an unpack extracts into, inside the destination: `.docpkg-unpack-RANDOM`,
/// locked (`flock`) by its unpack for as long as it runs.
///
/// An unpack that was killed leaves its folder behind, unlocked. The next unpack into the same
/// destination removes such folders before it starts: it takes each one's lock without waiting,
/// so it never touches the folder of an unpack still running (that one holds the lock).
struct UnpackFolder {
  static let label = "unpack"
  /// The folder's name in the destination.
  let name: RawName
  /// The folder, open and locked; closing it drops the lock.
  let fd: CInt

  /// Makes and locks a fresh folder in `destfd`.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `io`) naming the destination.
  static func make(in destfd: CInt, destination: FilePath) throws -> UnpackFolder {
    while true {
      let name: RawName
      do { name = try Syscalls.makeTemporaryDirectory(in: destfd, label: label) } catch {
        throw PackageError.io(error, "cannot create a temporary directory in", path: destination)
      }
      let fd: CInt
      do { fd = try Syscalls.openDirectory(in: destfd, name) } catch .noSuchFileOrDirectory {
        continue  // removed at once by another unpack's clean-up
      } catch {
        try? Syscalls.removeTree(in: destfd, name)
        throw PackageError.io(error, "cannot open", path: destination.string + "/" + name.string)
      }
      // Another unpack's clean-up may have taken it between mkdir and here (it looked abandoned):
      // then it is (being) removed, and we make another.
      do {
        try Syscalls.lock(fd, exclusive: true, wait: false)
        if try Syscalls.status(of: fd).linkCount > 0 { return UnpackFolder(name: name, fd: fd) }
      } catch .wouldBlock {
      } catch {
        Syscalls.closeFile(fd)
        throw PackageError.io(error, "cannot lock", path: destination.string + "/" + name.string)
      }
      Syscalls.closeFile(fd)
    }
  }

  /// Removes the folder and drops its lock.
  func remove(from destfd: CInt) {
    try? Syscalls.removeTree(in: destfd, name)
    Syscalls.closeFile(fd)
  }

  /// Removes the folders left in `destfd` by unpacks that are gone (killed): those whose lock is free.
  /// Failures are ignored: the debris stays for the next time, and the unpack goes on.
  /// - Returns: The names removed.
  @discardableResult
  static func removeAbandoned(in destfd: CInt) -> [String] {
    let prefix = Array(".docpkg-\(label)-".utf8CString.dropLast())
    guard let entries = try? Syscalls.entries(ofDirectory: destfd) else { return [] }
    var removed: [String] = []
    for entry in entries where entry.type == .directory || entry.type == .unknown {
      guard entry.name.bytes.starts(with: prefix) else { continue }
      guard let fd = try? Syscalls.openDirectory(in: destfd, entry.name) else { continue }
      defer { Syscalls.closeFile(fd) }  // after the removal: holding the lock until then
      guard (try? Syscalls.lock(fd, exclusive: true, wait: false)) != nil else { continue }  // running
      if (try? Syscalls.removeTree(in: destfd, entry.name)) != nil { removed.append(entry.name.string) }
    }
    return removed
  }
}
