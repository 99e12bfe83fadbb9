/// What a file system does to names: which it does not hold apart, and which it cannot hold.
///
/// Two names may be one (they differ only in case or in Unicode normalization), and a name may be
/// refused (reserved characters, a trailing dot or space, characters beyond ASCII). Learned from the
/// file system itself, per mounted file system (``FileSystemNaming/of(directory:)``), never assumed
/// from its type.
///
/// | file system                     | case           | normalization | refused                                        |
/// |---------------------------------|----------------|---------------|------------------------------------------------|
/// | ext4, xfs, btrfs, tmpfs, sshfs  | kept apart     | kept apart    | nothing                                        |
/// | exFAT (exfat-fuse)              | folded         | kept apart    | `"*:<>?\|`, control characters                 |
/// | FAT (fusefat)                   | folded (ASCII) | —             | those, and every character beyond ASCII        |
/// | FAT (Linux vfat), Windows       | folded         | kept apart    | those; a trailing dot or space is dropped      |
/// | APFS, HFS+ (macOS's default)    | folded         | folded        | nothing                                        |
///
/// Two names are one name here when their ``key(_:)``s are equal. The model already takes canonically
/// equivalent names (`é` precomposed, `e` + U+0301) for one, so a normalization difference alone never
/// reaches a file system; it matters combined with case (`É` and `e` + U+0301 are one name on APFS).
/// Case is folded per Unicode scalar, to its upper case where that is one scalar (as exFAT's up-case
/// table does: `ß` stays `ß`, `ı` and `i` both become `I`).
package struct FileSystemNaming: Hashable, Sendable {
  /// Which letters differ only in case for the file system.
  package enum CaseFolding: Hashable, Sendable {
    /// Case is kept apart.
    case none
    /// ASCII letters are folded, others kept apart (FAT drivers with a UTF-8 character set).
    case ascii
    /// All letters are folded.
    case unicode
  }

  package var caseFolding = CaseFolding.none
  /// Whether names in different Unicode normalizations are one name.
  package var normalizes = false
  /// Whether `"*:<>?\|` and control characters are refused in names.
  package var refusesReservedCharacters = false
  /// Whether characters beyond ASCII are refused in names.
  package var refusesNonASCII = false
  /// What happens to a name ending in `.`.
  package var trailingDot = NameProbe.Ending.kept
  /// What happens to a name ending in a space.
  package var trailingSpace = NameProbe.Ending.kept

  /// A file system that holds every name apart and refuses none (ext4, xfs, btrfs, tmpfs).
  package static let posix = FileSystemNaming()

  package init() {}

  /// The rules a probe found (``Syscalls/probeNames(in:)``).
  package init(_ probe: NameProbe) {
    caseFolding = probe.foldsOtherCase ? .unicode : probe.foldsASCIICase ? .ascii : .none
    normalizes = probe.normalizes
    refusesReservedCharacters = probe.refusesReservedCharacters
    refusesNonASCII = probe.refusesNonASCII
    trailingDot = probe.trailingDot
    trailingSpace = probe.trailingSpace
  }

  /// Whether any name could be refused, or two names taken for one: whether checking is needed at all.
  package var restricts: Bool { self != .posix }

  /// The characters FAT, exFAT and NTFS refuse in a name, besides control characters.
  static let reservedCharacters: Set<Unicode.Scalar> = ["\"", "*", ":", "<", ">", "?", "\\", "|"]

  /// Why the file system cannot hold `name`, as words that go before "on the file system at …"
  /// ("':' is not allowed in a name"); `nil` when it can.
  /// - Complexity: O(*n*) in the name's length.
  package func problem(with name: String) -> String? {
    if refusesReservedCharacters || refusesNonASCII {
      for scalar in name.unicodeScalars {
        if refusesReservedCharacters, scalar.value < 0x20 || Self.reservedCharacters.contains(scalar) {
          return "'\(scalar)' is not allowed in a name"
        }
        if refusesNonASCII, !scalar.isASCII { return "a name with '\(scalar)' (not ASCII) is not allowed" }
      }
    }
    switch name.unicodeScalars.last {
    case "."? where trailingDot != .kept: return "a name cannot end in '.'"
    case " "? where trailingSpace != .kept: return "a name cannot end in a space"
    default: return nil
    }
  }

  /// The key two names share exactly when the file system takes them for one name.
  /// - Complexity: O(*n*) in the name's length.
  package func key(_ name: String) -> Key {
    Key(folded: fold(name), canonical: normalizes)
  }

  /// `name` with its letters in upper case as ``caseFolding`` folds them.
  private func fold(_ name: String) -> String {
    switch caseFolding {
    case .none: return name
    case .ascii, .unicode:
      if name.utf8.allSatisfy({ $0 < 0x80 }) {
        return String(decoding: name.utf8.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
      }
      var folded = String.UnicodeScalarView()
      for scalar in name.unicodeScalars {
        if scalar.isASCII {
          let value = scalar.value
          folded.append((0x61...0x7A).contains(value) ? Unicode.Scalar(value - 0x20)! : scalar)
        } else if caseFolding == .unicode {
          let upper = scalar.properties.uppercaseMapping.unicodeScalars
          folded.append(upper.count == 1 ? upper.first! : scalar)
        } else {
          folded.append(scalar)
        }
      }
      return String(folded)
    }
  }

  /// How `name` and `other`, two names that are one here (and not one to the model: not canonically
  /// equivalent), differ: "case", or "case and Unicode normalization".
  package func difference(between name: String, and other: String) -> String {
    fold(name).utf8.elementsEqual(fold(other).utf8) ? "case" : "case and Unicode normalization"
  }

  /// A name as a file system compares it: folded to one case where it folds case, and compared by
  /// canonical equivalence where it normalizes, else by its bytes.
  package struct Key: Hashable {
    fileprivate let folded: String
    fileprivate let canonical: Bool

    package static func == (a: Key, b: Key) -> Bool {
      a.canonical ? a.folded == b.folded : a.folded.utf8.elementsEqual(b.folded.utf8)
    }

    package func hash(into hasher: inout Hasher) {
      if canonical {
        hasher.combine(folded)  // String hashes by canonical equivalence
      } else {
        var bytes = folded
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
      }
    }
  }
}
