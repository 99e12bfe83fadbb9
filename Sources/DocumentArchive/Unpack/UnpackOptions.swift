/// How ``ArchiveUnpacker`` extracts an archive.
public struct UnpackOptions: Sendable, Hashable {
  /// Replace top-level entries that already exist in the destination (atomically, one by one).
  public var replaceExisting: Bool
  /// Limits against archive bombs.
  public var limits: UnpackLimits

  /// Creates options.
  public init(replaceExisting: Bool = false, limits: UnpackLimits = UnpackLimits()) {
    self.replaceExisting = replaceExisting
    self.limits = limits
  }
}

/// Limits that stop an archive bomb before it fills the disk.
public struct UnpackLimits: Sendable, Hashable {
  /// The most bytes of file contents extracted in all: 64 GiB by default.
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
