import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One event read from an inotify descriptor: the watch it is for, what happened, the rename
/// cookie (shared by the two halves of a move) and the name inside the watched directory.
package struct WatchEvent: Sendable {
  package var watch: CInt
  package var mask: UInt32
  package var cookie: UInt32
  package var name: String

  package func has(_ bits: UInt32) -> Bool { mask & bits != 0 }
}

#if os(Linux)
/// The inotify mask bits the monitor uses (`<sys/inotify.h>`), as `UInt32`.
package enum WatchMask {
  package static let modify = UInt32(IN_MODIFY)
  package static let attributes = UInt32(IN_ATTRIB)
  package static let closeWrite = UInt32(IN_CLOSE_WRITE)
  package static let movedFrom = UInt32(IN_MOVED_FROM)
  package static let movedTo = UInt32(IN_MOVED_TO)
  package static let create = UInt32(IN_CREATE)
  package static let delete = UInt32(IN_DELETE)
  package static let deleteSelf = UInt32(IN_DELETE_SELF)
  package static let moveSelf = UInt32(IN_MOVE_SELF)
  package static let overflow = UInt32(IN_Q_OVERFLOW)
  package static let ignored = UInt32(IN_IGNORED)
  /// Set on an event whose name is a directory.
  package static let isDirectory = UInt32(IN_ISDIR)
  package static let onlyDirectory = UInt32(IN_ONLYDIR)
  package static let dontFollow = UInt32(IN_DONT_FOLLOW)
  package static let excludeUnlinked = UInt32(IN_EXCL_UNLINK)
  /// Adds to the mask of an existing watch instead of replacing it (watches shared by monitors).
  package static let addToMask = UInt32(IN_MASK_ADD)
  /// Everything that changes a directory's entries or a file's contents or attributes.
  package static let contents =
    modify | attributes | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf
  /// What a parent directory is watched for: its entries coming and going.
  package static let entries = movedFrom | movedTo | create | delete
}

extension Syscalls {
  /// A new non-blocking, close-on-exec inotify descriptor.
  package static func watchInit() throws(Errno) -> CInt {
    try retrying { inotify_init1(CInt(IN_NONBLOCK) | CInt(IN_CLOEXEC)) }
  }

  /// Adds (or updates) a watch on the directory at `path`; the same inode always gives the same watch.
  /// - Throws: `Errno` — ENOSPC when `fs.inotify.max_user_watches` is reached.
  package static func addWatch(_ fd: CInt, _ path: FilePath, mask: UInt32) throws(Errno) -> CInt {
    let length = path.withPlatformString { strlen($0) }
    guard length > longestPath else {
      return try retrying {
        path.withPlatformString { inotify_add_watch(fd, $0, mask | WatchMask.onlyDirectory | WatchMask.dontFollow) }
      }
    }
    // Too long for inotify_add_watch, which takes no directory descriptor: the directory is opened
    // (not following a link, as `dontFollow` would not) and watched through its /proc/self/fd name.
    let directory = try resolving(path) { dirfd, name throws(Errno) in
      try retrying { openat(dirfd, name, DOCPKG_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }
    defer { closeFile(directory) }
    return try retrying { inotify_add_watch(fd, "/proc/self/fd/\(directory)", mask | WatchMask.onlyDirectory) }
  }

  /// Removes a watch; a watch the kernel already dropped is not an error.
  package static func removeWatch(_ fd: CInt, _ watch: CInt) {
    _ = inotify_rm_watch(fd, watch)
  }

  /// Waits until `fd` can be read or `milliseconds` pass. Returns whether it can be read.
  package static func waitReadable(_ fd: CInt, milliseconds: Int) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let result = retryingRaw { poll(&entry, 1, CInt(max(0, milliseconds))) }
    return result > 0
  }

  /// Reads the events queued on the non-blocking inotify descriptor `fd` (none when the queue is empty).
  package static func readWatchEvents(_ fd: CInt) throws(Errno) -> [WatchEvent] {
    let capacity = 64 * 1024
    var events: [WatchEvent] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      let count = retryingRaw { read(fd, buffer.baseAddress, capacity) }
      if count < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK { return events }
        throw currentErrno
      }
      if count == 0 { return events }
      var offset = 0
      let header = MemoryLayout<inotify_event>.size
      while offset + header <= count {
        let raw = buffer.baseAddress! + offset
        let event = raw.loadUnaligned(as: inotify_event.self)
        let nameLength = Int(event.len)
        var name = ""
        if nameLength > 0 {
          let bytes = UnsafeRawBufferPointer(start: raw + header, count: nameLength)
          let end = bytes.firstIndex(of: 0) ?? nameLength
          name = String(decoding: bytes[..<end], as: UTF8.self)
        }
        events.append(WatchEvent(watch: event.wd, mask: event.mask, cookie: event.cookie, name: name))
        offset += header + nameLength
      }
    }
  }
}
#endif
