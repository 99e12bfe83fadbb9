import SystemPackage

/// Whether another program wrote into a save's new state while it was in the package: between the swap
/// and the swap back of a save that failed after it (``Saver``). A file made, renamed in or written there
/// meanwhile is in that tree only; removing it with the tree would lose it, so the save keeps the tree
/// beside the package instead and names it in its error.
///
/// What is looked at: below the tree's top, every entry's modification and change time, and the top's
/// modification time (the swap back moved its change time). What the save built has times from before
/// the swap (its own writes, the times it set, the links it made); an entry with a time after it was
/// made, written, renamed, `chmod`ed or linked since. A file the tree shares with the package (a hard
/// link) written in place counts too, though the package has the write as well: kept once more, never
/// lost. Walked with the descriptors of the folders on the way down (an explicit stack), not recursion.
enum WrittenWhileInPlace {
  /// Whether the tree at `name` in `parentFD` holds anything with a time after `swap` (the time the
  /// swap gave the folder it renamed in).
  static func found(since swap: FileTime, _ name: RawName, in parentFD: CInt) -> Bool {
    guard let top = try? Syscalls.status(in: parentFD, name) else { return false }
    if top.modificationTime > swap { return true }
    guard top.kind == .directory, let topFD = try? Syscalls.openDirectory(in: parentFD, name) else { return false }
    // Each folder being looked at: its descriptor and the names not looked at yet.
    var stack: [(fd: CInt, names: [RawName])] = []
    defer { for frame in stack { Syscalls.closeFile(frame.fd) } }
    func enter(_ fd: CInt) -> Bool {
      guard let entries = try? Syscalls.entries(ofDirectory: fd) else {
        Syscalls.closeFile(fd)
        return false
      }
      stack.append((fd, entries.map(\.name)))
      return true
    }
    guard enter(topFD) else { return true }  // unreadable: kept, not judged
    while let last = stack.indices.last {
      guard let entry = stack[last].names.popLast() else {
        Syscalls.closeFile(stack.removeLast().fd)
        continue
      }
      let fd = stack[last].fd
      guard let status = try? Syscalls.status(in: fd, entry) else { continue }  // gone since the listing
      if status.modificationTime > swap || status.changeTime > swap { return true }
      guard status.kind == .directory else { continue }
      guard let inner = try? Syscalls.openDirectory(in: fd, entry), enter(inner) else { return true }
    }
    return false
  }
}
