import DocumentPackage

/// libarchive's (seconds, nanoseconds) pairs, which are not ``/DocumentPackage/FileTime``'s for a time before 1970
/// with a fraction: its pax reader and writer (and its other text formats) take the pair as the sign and digits of
/// the decimal, so -1234567.5 s is (-1234567, 500000000) to libarchive, where it is (-1234568, 500000000) to the
/// file system and to ``/DocumentPackage/FileTime`` (whole seconds rounded down, nanoseconds after them).
extension LibArchive {
  /// The time of libarchive's pair.
  static func time(seconds: Int64, nanoseconds: Int) -> FileTime {
    let nanoseconds = Int32(clamping: min(max(nanoseconds, 0), 999_999_999))
    return FileTime(negative: seconds < 0, seconds: seconds < 0 ? -seconds : seconds, nanoseconds: nanoseconds)
  }

  /// libarchive's pair for `time`, which it writes as the decimal `time` is.
  /// A time after -1 s and before 0 (which libarchive cannot give a sign) is written as its whole seconds, -1.
  static func fields(_ time: FileTime) -> (seconds: Int64, nanoseconds: Int32) {
    let decimal = time.signAndDigits
    guard decimal.negative else { return (decimal.seconds, decimal.nanoseconds) }
    guard decimal.seconds > 0 else { return (-1, 0) }
    return (-decimal.seconds, decimal.nanoseconds)
  }
}
