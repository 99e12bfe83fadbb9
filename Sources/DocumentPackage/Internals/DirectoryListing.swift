#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SystemPackage

/// One entry of a directory as read from disk.
struct DirectoryEntry {
  var name: FilePath.Component
  var status: FileStatus
  /// The link's destination, for symbolic links.
  var destination: String?
}

extension Syscalls {
  /// Lists a directory with one `open`, `getdents` calls and one `fstatat` per entry.
  /// Entries of kinds the model does not hold (FIFOs, sockets, devices) are passed over.
  /// - Returns: the directory's own status (from the open descriptor) and its entries, unsorted.
  static func listDirectory(_ path: FilePath) throws(Errno) -> (FileStatus, [DirectoryEntry]) {
    let fd = try openFile(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard let stream = fdopendir(fd) else {
      let error = currentErrno
      closeFile(fd)
      throw error
    }
    defer { closedir(stream) }
    let ownStatus = try status(of: fd)
    var entries: [DirectoryEntry] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw currentErrno }
        break
      }
      let skip: Bool = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: 256) { name in
          name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0))
        }
      }
      if skip { continue }
      let item: Result<DirectoryEntry?, Errno> = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: 256) { name in
          Result { () throws(Errno) -> DirectoryEntry? in
            let status: FileStatus
            do throws(Errno) { status = try self.status(in: fd, name) } catch {
              if error == .noSuchFileOrDirectory { return nil }  // raced with a delete
              throw error
            }
            guard let kind = status.kind else { return nil }
            let destination = kind == .symlink ? try readLink(in: fd, name) : nil
            guard let component = FilePath.Component(platformString: name) else { return nil }
            return DirectoryEntry(name: component, status: status, destination: destination)
          }
        }
      }
      if let item = try item.get() { entries.append(item) }
    }
    return (ownStatus, entries)
  }
}
