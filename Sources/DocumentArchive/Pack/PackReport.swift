/// What ``ArchivePacker`` left out of an archive.
public struct PackReport: Sendable, Hashable {
  /// An entry of the package on disk that is not in the archive, and why.
  public struct Skipped: Sendable, Hashable {
    /// The path it would have had in the archive (bytes that are not UTF-8 as U+F780–U+F7FF).
    public var path: String
    /// Why, in words: "it is a FIFO".
    public var reason: String

    /// Creates a record of an entry left out.
    public init(path: String, reason: String) {
      self.path = path
      self.reason = reason
    }
  }

  /// What ``ArchiveUnpacker`` would refuse to write, left out so that what is packed unpacks, in archive order: the
  /// FIFOs, sockets and devices in the package's folders (as `zip` leaves them out), the symbolic links that are
  /// absolute or lead out of the package, and the entries whose names it refuses
  /// (control characters, too long), with everything below them.
  public var skipped: [Skipped]
  /// A file of the package that is a hard link to a file packed before it: the archive holds its bytes again, and
  /// an unpack makes two files (as `zip` stores them).
  public struct Copy: Sendable, Hashable {
    /// Its path in the archive.
    public var path: String
    /// The path of the file packed first under another of its names.
    public var original: String

    /// Creates a record of a hard link stored as a copy.
    public init(path: String, original: String) {
      self.path = path
      self.original = original
    }
  }

  /// The hard links stored as copies, in archive order.
  public var copies: [Copy] = []
  /// The bytes of the files packed (a sparse file's length, holes included): what an unpack of the archive
  /// counts against ``UnpackLimits``.
  public var bytes: Int64 = 0

  /// Whether an unpack with `limits` would refuse the archive, once `archiveSize` bytes long, as a bomb: it
  /// expands more than ``UnpackLimits/maxCompressionRatio`` times (a large file of zeros, a sparse file).
  public func exceedsRatio(of limits: UnpackLimits = UnpackLimits(), archiveSize: Int64) -> Bool {
    limits.exceedsRatio(bytes, archiveSize: archiveSize)
  }
}
