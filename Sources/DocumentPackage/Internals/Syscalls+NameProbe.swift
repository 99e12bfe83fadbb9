import CSystemShims
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One mounted file system: its device number and, where the kernel says (Linux 5.8+), its mount's
/// id, so that a file system mounted later under a freed device number is not taken for the one before.
package struct FileSystemIdentity: Hashable, Sendable {
  package var device: UInt64
  /// 0 where the kernel gives no mount id.
  package var mount: UInt64
}

/// What creating a few files in a directory and looking up other spellings of their names showed
/// about its file system (see ``Syscalls/probeNames(in:)``).
package struct NameProbe: Hashable, Sendable {
  /// What the file system does with a name ending in a given character.
  package enum Ending: Hashable, Sendable {
    /// The name is kept as given.
    case kept
    /// The file is created, under the name without that ending (FAT drivers strip trailing dots and spaces).
    case dropped
    /// The name is refused.
    case refused
  }

  /// A lookup with the name's ASCII letters in the other case finds the file.
  package var foldsASCIICase = false
  /// A lookup with a letter beyond ASCII in the other case (`É` for `é`) finds the file.
  package var foldsOtherCase = false
  /// A lookup in the other Unicode normalization (`e` + U+0301 for U+00E9 `é`) finds the file.
  package var normalizes = false
  /// A name with a character beyond ASCII (`é`) cannot be created (fusefat).
  package var refusesNonASCII = false
  /// A name with `:` cannot be created (FAT, exFAT, NTFS: they refuse `"*:<>?\|` and control characters).
  package var refusesReservedCharacters = false
  /// A name ending in `.`.
  package var trailingDot = Ending.kept
  /// A name ending in a space.
  package var trailingSpace = Ending.kept

  package init() {}
}

extension Syscalls {
  /// The file system holding `fd`: its device and mount (`fstat`, and `statx` for the mount's id).
  package static func fileSystemIdentity(of fd: CInt) throws(Errno) -> FileSystemIdentity {
    let device = try status(of: fd).device
    var mount: CUnsignedLongLong = 0
    if docpkg_mount_id(fd, &mount) != 0 { mount = 0 }
    return FileSystemIdentity(device: device, mount: UInt64(mount))
  }

  /// Learns how the file system of the directory `dirfd` treats names: creates a uniquely named empty
  /// file (`.docpkg-probe-RANDOM`, ``TemporaryName``), looks it up in upper case, creates a few more
  /// beside it (with `é`, `:`, a trailing dot, a trailing space), looks those up in other spellings, and
  /// removes each at once.
  ///
  /// Everything created is removed before this returns, whatever happened on the way (best effort: an
  /// `unlink` the file system refuses leaves that empty file). A refused name is one whose creation fails
  /// with `EINVAL`, `ENOENT`, `EPERM` or `EILSEQ`, as FAT and exFAT drivers fail for names they cannot hold.
  /// - Returns: `nil` when nothing can be concluded: the directory takes no new file (read-only, no
  ///   permission, full), or a step failed for another reason than the name.
  package static func probeNames(in dirfd: CInt) -> NameProbe? {
    enum Outcome { case created, refused, failed }
    var created: [RawName] = []
    defer { for name in created { try? unlink(in: dirfd, name, directory: false) } }
    func create(_ name: String) -> Outcome {
      let raw = RawName(name)
      do {
        let fd = try createFile(in: dirfd, raw)
        closeFile(fd)
        created.append(raw)
        return .created
      } catch .invalidArgument, .noSuchFileOrDirectory, .notPermitted, .illegalByteSequence {
        return .refused
      } catch {
        return .failed
      }
    }
    func finds(_ name: String) -> Bool { (try? status(in: dirfd, RawName(name))) != nil }
    func remove(_ name: String) {
      let raw = RawName(name)
      if (try? unlink(in: dirfd, raw, directory: false)) != nil { created.removeAll { $0 == raw } }
    }

    var base = TemporaryName.make("probe")
    var attempts = 0
    while true {
      switch create(base) {
      case .created: break
      case .refused, .failed:
        // EEXIST (a name taken by chance) gets another name; anything else ends the probe.
        attempts += 1
        guard attempts < 4, (try? status(in: dirfd, RawName(base))) != nil else { return nil }
        base = TemporaryName.make("probe")
        continue
      }
      break
    }
    var probe = NameProbe()
    probe.foldsASCIICase = finds(base.uppercased())
    remove(base)

    let accented = base + "-\u{E9}"  // é, precomposed (NFC)
    switch create(accented) {
    case .created:
      probe.foldsOtherCase = finds(base + "-\u{C9}")  // É
      probe.normalizes = finds(base + "-e\u{301}")  // e and a combining acute accent (NFD)
      remove(accented)
    case .refused: probe.refusesNonASCII = true
    case .failed: return nil
    }

    let reserved = base + "-:"
    switch create(reserved) {
    case .created: remove(reserved)
    case .refused: probe.refusesReservedCharacters = true
    case .failed: return nil
    }

    for ending in [".", " "] {
      let stem = base + "-e"
      let outcome: NameProbe.Ending
      switch create(stem + ending) {
      case .created:
        outcome = finds(stem) ? .dropped : .kept
        remove(stem + ending)
        if outcome == .dropped { remove(stem) }
      case .refused: outcome = .refused
      case .failed: return nil
      }
      if ending == "." { probe.trailingDot = outcome } else { probe.trailingSpace = outcome }
    }
    return probe
  }
}
