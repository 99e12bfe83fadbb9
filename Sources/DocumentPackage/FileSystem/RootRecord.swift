import SystemPackage

/// What a save leaves beside a package says whose it is: the device and inode of the package's root as text
/// (`DEVICE INODE`), in the lock file (``PackageLock``) and in a journal's `root` file (``SaveJournal``), so that
/// recovery at the package's new name, after a rename, can tell them as this package's.
enum RootRecord {
  /// The record of `root`.
  static func bytes(of root: FileStatus) -> [UInt8] { Array("\(root.device) \(root.inode)\n".utf8) }

  /// The device and inode the file `name` in `directoryFD` records; nil if it records none (empty, as an earlier
  /// release left it) or does not read.
  static func read(_ name: RawName, in directoryFD: CInt) -> [UInt64]? {
    guard let fd = try? Syscalls.openForReading(in: directoryFD, name) else { return nil }
    defer { Syscalls.closeFile(fd) }
    guard let bytes = try? Syscalls.readBytes(fd, at: 0, count: 64) else { return nil }
    let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
    return fields.count == 2 ? fields : nil
  }
}
