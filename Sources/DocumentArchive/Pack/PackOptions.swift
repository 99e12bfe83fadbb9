/// How ``ArchivePacker`` writes an archive.
public struct PackOptions: Sendable, Hashable {
  /// The archive format.
  public var format: ArchiveFormat
  /// The compression level: 0-9 for zip, gzip, bzip2 and xz, 1-19 for zstd; `nil` for the
  /// format's default (6 for zip, like `zip -6`).
  public var level: Int?
  /// Byte-identical output for identical input: entries sorted, every modification time set to
  /// ``fixedModificationTime``, owners 0, no gzip timestamp, nothing that depends on the time zone.
  public var reproducible: Bool
  /// The modification time written for every entry when ``reproducible`` is set, in seconds since
  /// the epoch: `SOURCE_DATE_EPOCH` by convention. Defaults to ``defaultReproducibleTime``.
  public var fixedModificationTime: Int64?

  /// 1980-01-01 00:00:00 UTC, the earliest time a zip header can hold.
  public static let defaultReproducibleTime: Int64 = 315_532_800

  /// Creates options.
  public init(format: ArchiveFormat, level: Int? = nil, reproducible: Bool = false, fixedModificationTime: Int64? = nil)
  {
    self.format = format
    self.level = level
    self.reproducible = reproducible
    self.fixedModificationTime = fixedModificationTime
  }

  /// The levels `format` accepts.
  public static func levels(for format: ArchiveFormat) -> ClosedRange<Int> {
    switch format {
    case .zip, .tarGzip, .tarXz: return 0...9
    case .tarBzip2: return 1...9
    case .tarZstd: return 1...19
    case .tar: return 0...0
    }
  }
}
