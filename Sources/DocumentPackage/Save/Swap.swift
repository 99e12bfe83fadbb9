import SystemPackage

/// The one rename that moves a package from its old state to its new one, and the one rename that
/// undoes it (``Saver``'s rollback): at `name` in the container (a folder of the package, its root,
/// or, for a whole save, the package's parent), the tree at the save's temporary name beside the
/// package is exchanged with the entry there, renamed in where there was none, or (a removal) the
/// entry is renamed out to it.
struct Swap {
  enum Move {
    /// `name` and the temporary name exchanged: the replaced entry is then at the temporary name.
    case exchanging
    /// The temporary name renamed to `name`, where there was nothing: nothing is replaced.
    case adding
    /// `name` renamed to the temporary name (``EntryRemoval``): the removed entry is then there.
    case removing
  }
  let containerFD: CInt
  let containerPath: FilePath
  let name: RawName
  let move: Move
  /// The entry's path in the package ("" for the whole package).
  let changedPath: String
  /// Whether the keeper was told the container's status just before the rename (it takes the replaced
  /// tree; never for a whole save, whose container is the package's parent).
  var containerTimed = false

  /// Whether the swap replaces the whole package (its container is the package's parent).
  var isWholePackage: Bool { changedPath.isEmpty }

  /// The entry the swap changes, for messages.
  var entryPath: FilePath { containerPath.appending(name.string) }

  /// What the save says when ``perform(parentFD:temporary:)`` fails, before the entry's path.
  var failure: String {
    switch move {
    case .exchanging: "cannot exchange new state with"
    case .adding: "cannot rename new entry into place:"
    case .removing: "cannot remove"
    }
  }

  /// The rename itself (`parentFD` holds the temporary name). An entry added goes in by
  /// `RENAME_NOREPLACE`, by a plain rename where that is refused (the name was checked free under the lock).
  /// - Throws: The rename's error, having changed nothing; ``Errno/refusesExchange`` says an exchange
  ///   the file system turned down.
  func perform(parentFD: CInt, temporary: RawName) throws(Errno) {
    switch move {
    case .exchanging:
      try Syscalls.rename(from: parentFD, temporary, to: containerFD, name, flags: Syscalls.renameExchange)
    case .adding:
      do {
        try Syscalls.rename(from: parentFD, temporary, to: containerFD, name, flags: Syscalls.renameNoReplace)
      } catch  where error.refusesExchange {
        try Syscalls.rename(from: parentFD, temporary, to: containerFD, name)
      }
    case .removing:
      try Syscalls.rename(from: containerFD, name, to: parentFD, temporary, flags: Syscalls.renameNoReplace)
    }
  }

  /// Renames back what ``perform(parentFD:temporary:)`` renamed; whether it could.
  func undo(parentFD: CInt, temporary: RawName) -> Bool {
    do {
      switch move {
      case .exchanging:
        try Syscalls.rename(from: containerFD, name, to: parentFD, temporary, flags: Syscalls.renameExchange)
      case .adding:
        try Syscalls.rename(from: containerFD, name, to: parentFD, temporary)
      case .removing:
        try Syscalls.rename(from: parentFD, temporary, to: containerFD, name, flags: Syscalls.renameNoReplace)
      }
      return true
    } catch {
      return false
    }
  }

  /// Once ``undo(parentFD:temporary:)`` renamed back: the status of the container, and of the entry at
  /// `name` (nil when none is there), for a keeper told the container's status before the rename.
  var undoneStatus: (container: FileStatus, entry: FileStatus?)? {
    guard containerTimed, let container = try? Syscalls.status(of: containerFD) else { return nil }
    return (container, try? Syscalls.status(in: containerFD, name))
  }
}
