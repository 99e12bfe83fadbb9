import DocumentPackage

/// One archive entry as ``ArchiveWalk`` judged it: what it is, where it goes, and whether it is
/// accepted. Both consumers of a walk — the tree builder of ``ArchivePackage`` (reading in place)
/// and the ``Extractor`` (unpacking to disk) — act on accepted entries only, so they cannot
/// disagree on what an archive holds.
struct WalkedEntry {
  /// What an accepted entry is, with what its kind needs.
  enum Content {
    case file
    case directory
    case symbolicLink(destination: String)
    /// A hard link to a file accepted before it, at `target` (components, like ``WalkedEntry/components``, spelled as
    /// the file's own entry spells them).
    case hardLink(target: [String])
    /// A second entry for the file accepted before it as entry `earlier`, with the same bytes (zip tools write
    /// such, and `tar -rf` appends such to change a file's mode or time): its header's mode and time apply to that
    /// file, as GNU tar, bsdtar, Python, 7z and unzip apply the last header. The walk read its data to compare;
    /// it cannot be read again.
    case identicalDuplicate(earlier: Int)
  }

  /// The walk's judgement of the entry.
  enum Verdict {
    case accepted(Content)
    /// Refused, with the error naming the entry and saying why.
    case refused(PackageError)
  }

  /// The header as read.
  var header: EntryHeader
  /// The entry's position in the archive, from 0.
  var index: Int
  /// The path's components, after the document folder's name if the walk wraps a document zip;
  /// empty when the name itself was refused.
  var components: [String]
  var verdict: Verdict

  /// The path, `/`-separated.
  var path: String { components.joined(separator: "/") }

  /// The content if accepted; otherwise throws the refusal.
  func accepted() throws -> Content {
    switch verdict {
    case .accepted(let content): return content
    case .refused(let error): throw error
    }
  }
}
