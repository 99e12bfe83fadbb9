/// How ``ArchiveUnpacker`` extracts an archive.
public struct UnpackOptions: Sendable, Hashable {
  /// Replace top-level entries that already exist in the destination (atomically, one by one).
  public var replaceExisting: Bool
  /// Limits against archive bombs.
  public var limits: UnpackLimits
  /// Skip devices, FIFOs and sockets (nothing is written for them; each is listed in
  /// ``UnpackReport/skipped``) instead of refusing the archive. Off by default.
  public var skipSpecialFiles: Bool
  /// Write the extracted tree to disk (`syncfs`) before renaming it into place, and the renames
  /// before returning, so that after a power loss each entry is absent or whole. Always done
  /// with ``replaceExisting``, whose old entry is deleted right after the rename.
  ///
  /// Off by default, because an unpack without replacing puts nothing at risk: the archive is
  /// untouched, and a killed process never leaves a partial entry (the renames come after the
  /// last write). Only a power loss within the kernel's writeback delay (about 30 s) can leave
  /// an entry with short or empty files, as after `bsdtar -x` or `unzip`. Waiting for the disk
  /// is most of an unpack's time on a quiet machine: turn this on when the archive is deleted
  /// right after.
  public var durable: Bool
  /// Make the destination, and its missing parents, when it does not exist (as `unzip -d` does); those made
  /// are removed again if the unpack fails. Off by default: a missing destination is an error.
  public var createsDestination: Bool

  /// Creates options.
  public init(
    replaceExisting: Bool = false, limits: UnpackLimits = UnpackLimits(), skipSpecialFiles: Bool = false,
    durable: Bool = false, createsDestination: Bool = false
  ) {
    self.replaceExisting = replaceExisting
    self.limits = limits
    self.skipSpecialFiles = skipSpecialFiles
    self.durable = durable
    self.createsDestination = createsDestination
  }
}

/// What ``ArchiveUnpacker/unpackReporting(_:into:options:cancellation:progress:)`` did.
public struct UnpackReport: Sendable, Hashable {
  /// An entry left out, and why.
  public struct Skipped: Sendable, Hashable {
    /// The entry's path in the archive (bytes that are not UTF-8 as U+F780–U+F7FF).
    public var path: String
    /// Why, in words: "it is a FIFO".
    public var reason: String
  }

  /// The names of the top-level entries created in the destination.
  public var created: [String]
  /// The entries skipped (special files, with ``UnpackOptions/skipSpecialFiles``), in archive order.
  public var skipped: [Skipped]
}

/// Limits that stop an archive bomb before it fills the disk.
public struct UnpackLimits: Sendable, Hashable {
  /// The most bytes of file contents extracted in all: 64 GiB by default. A sparse tar entry counts
  /// its length, holes included (what `ls`, a copy or a backup sees).
  public var maxTotalSize: Int64
  /// The most entries: 1,000,000 by default.
  public var maxEntryCount: Int
  /// The most bytes extracted per byte of archive, once more than ``ratioGrace`` bytes are out:
  /// 200 by default (text deflates 3-10×; a zip bomb 1,000×).
  public var maxCompressionRatio: Double

  /// Bytes extracted before the compression ratio is checked: small archives of zeros are harmless.
  public static let ratioGrace: Int64 = 16 << 20

  /// Creates limits; the defaults suit documents.
  public init(maxTotalSize: Int64 = 64 << 30, maxEntryCount: Int = 1_000_000, maxCompressionRatio: Double = 200) {
    self.maxTotalSize = maxTotalSize
    self.maxEntryCount = maxEntryCount
    self.maxCompressionRatio = maxCompressionRatio
  }
}
