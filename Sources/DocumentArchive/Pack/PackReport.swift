/// What ``ArchivePacker`` left out of an archive.
public struct PackReport: Sendable, Hashable {
  /// An entry of the package on disk that is not in the archive, and why.
  public struct Skipped: Sendable, Hashable {
    /// The path it would have had in the archive (bytes that are not UTF-8 as U+F780–U+F7FF).
    public var path: String
    /// Why, in words: "it is a FIFO".
    public var reason: String
  }

  /// The FIFOs, sockets and devices in the package's folders, in archive order: an archive holds files,
  /// directories and links (``ArchiveUnpacker`` refuses the others), so they are left out, as `zip` leaves them out.
  public var skipped: [Skipped]
}
