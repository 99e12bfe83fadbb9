import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes a file or directory tree with `unlinkat`, relative to directory descriptors.
package enum TreeRemoval {
  /// Removes `name` in `dirfd`, whatever it is (`isDirectory` when known, to skip trying `unlink`);
  /// nothing there is not an error.
  /// Directories without write or search permission for the owner are given it first.
  /// The tree is walked with an explicit stack of the directories open on the way down, not by
  /// recursion, whatever its depth.
  /// - Throws: `Errno` of the first failure.
  package static func remove(_ name: RawName, in dirfd: CInt, isDirectory: Bool = false) throws(Errno) {
    var unused: [RelinkedFile]? = nil
    try remove(name, in: dirfd, isDirectory: isDirectory, relinked: &unused)
  }

  /// Removes `name` in `dirfd` as ``remove(_:in:isDirectory:)`` does, noting in `relinked` the files
  /// with other names (that live on, their change times moved: see ``RelinkedFile``).
  package static func remove(
    _ name: RawName, in dirfd: CInt, isDirectory: Bool = false, relinked: inout [RelinkedFile]
  ) throws(Errno) {
    var noting: [RelinkedFile]? = relinked
    defer { relinked = noting ?? [] }
    try remove(name, in: dirfd, isDirectory: isDirectory, relinked: &noting)
  }

  /// Unlinks the file `name` in `dirfd`, noting it in `relinked` unless that is nil.
  private static func unlinkFile(_ name: RawName, in dirfd: CInt, _ relinked: inout [RelinkedFile]?) throws(Errno) {
    guard relinked != nil else { return try Syscalls.unlink(in: dirfd, name, directory: false) }
    try RelinkedFile.unlink(name, in: dirfd, noting: &relinked!)
  }

  private static func remove(
    _ name: RawName, in dirfd: CInt, isDirectory: Bool, relinked: inout [RelinkedFile]?
  ) throws(Errno) {
    if !isDirectory {
      do {
        try unlinkFile(name, in: dirfd, &relinked)
        return
      } catch {
        switch error {
        case .noSuchFileOrDirectory: return
        case .isDirectory, .notPermitted: break  // Linux says EISDIR, POSIX allows EPERM
        default: throw error
        }
      }
    }
    var stack: [Emptying] = []
    defer { for directory in stack where directory.fd >= 0 { Syscalls.closeFile(directory.fd) } }
    stack.append(try open(name, in: dirfd, &relinked))
    while !stack.isEmpty {
      let top = stack.count - 1
      if stack[top].fd < 0 { try reopen(&stack, through: top) }
      let fd = stack[top].fd
      guard let next = stack[top].remaining.popLast() else {
        let directory = stack.removeLast()
        Syscalls.closeFile(directory.fd)
        if let last = stack.indices.last, stack[last].fd < 0 { try reopen(&stack, through: last) }
        let parent = stack.last?.fd ?? dirfd
        do { try Syscalls.unlink(in: parent, directory.name, directory: true) } catch
          where error == .noSuchFileOrDirectory
        {}
        continue
      }
      if !next.isDirectory {
        do {
          try unlinkFile(next.name, in: fd, &relinked)
          continue
        } catch {
          switch error {
          case .noSuchFileOrDirectory: continue
          case .isDirectory, .notPermitted: break
          default: throw error
          }
        }
      }
      do { stack.append(try openHolding(next.name, in: fd, &stack, &relinked)) } catch
        where error == .noSuchFileOrDirectory
      {}
      if let closing = DescriptorWindow.oneALevel.levelToClose(count: stack.count), stack[closing].fd >= 0 {
        Syscalls.closeFile(stack[closing].fd)
        stack[closing].fd = -1
      }
    }
  }

  /// Opens the directory `name` in the stack's last directory, `fd`, to empty it; when the process has no descriptor
  /// left (its limit is lower than the window's, or the caller holds many), closes the levels between the first and
  /// the last, which the walk opens again on its way back up, and tries once more: a removal goes on, more slowly,
  /// where it would leave a half-removed tree.
  private static func openHolding(
    _ name: RawName, in fd: CInt, _ stack: inout [Emptying], _ relinked: inout [RelinkedFile]?
  ) throws(Errno) -> Emptying {
    do { return try open(name, in: fd, &relinked) } catch  where error == .tooManyOpenFiles {
      guard stack.count > 2 else { throw error }
      for level in 1..<(stack.count - 1) where stack[level].fd >= 0 {
        Syscalls.closeFile(stack[level].fd)
        stack[level].fd = -1
      }
      return try open(name, in: fd, &relinked)
    }
  }

  /// Opens again the directories of `stack` up to `top` that the walk closed on its way down (``DescriptorWindow``).
  private static func reopen(_ stack: inout [Emptying], through top: Int) throws(Errno) {
    try DescriptorWindow.oneALevel.reopen(
      through: top, isClosed: { stack[$0].fd < 0 },
      open: { (level: Int) throws(Errno) in
        stack[level].fd = try Syscalls.openDirectory(in: stack[level - 1].fd, stack[level].name)
      },
      close: {
        Syscalls.closeFile(stack[$0].fd)
        stack[$0].fd = -1
      })
  }

  /// A directory being emptied: its subdirectories (or entries of unknown type) still to remove.
  private struct Emptying {
    let name: RawName
    /// Its descriptor; -1 while closed (``DescriptorWindow``).
    var fd: CInt
    var remaining: [(name: RawName, isDirectory: Bool)]
  }

  /// Opens the directory `name` in `dirfd` to empty it: makes it writable and searchable for the
  /// owner, unlinks its files and links, and lists the entries left (directories, unknown types).
  private static func open(_ name: RawName, in dirfd: CInt, _ relinked: inout [RelinkedFile]?) throws(Errno)
    -> Emptying
  {
    let fd = try Syscalls.openDirectory(in: dirfd, name)
    do {
      let own = try Syscalls.status(of: fd)
      if own.permissions.rawValue & 0o300 != 0o300 {
        try Syscalls.setPermissions(fd, FilePermissions(rawValue: own.permissions.rawValue | 0o700))
      }
      var remaining: [(name: RawName, isDirectory: Bool)] = []
      for entry in try Syscalls.entries(ofDirectory: fd) {
        if entry.type == .directory || entry.type == .unknown {
          remaining.append((entry.name, entry.type == .directory))
        } else {
          do { try unlinkFile(entry.name, in: fd, &relinked) } catch  where error == .noSuchFileOrDirectory {}
        }
      }
      return Emptying(name: name, fd: fd, remaining: remaining)
    } catch {
      Syscalls.closeFile(fd)
      throw error
    }
  }

  /// Whether anything (even a dangling link) is at `name` in `dirfd`.
  package static func exists(_ name: RawName, in dirfd: CInt) throws(Errno) -> Bool {
    do {
      _ = try Syscalls.status(in: dirfd, name)
      return true
    } catch  where error == .noSuchFileOrDirectory {
      return false
    }
  }
}
