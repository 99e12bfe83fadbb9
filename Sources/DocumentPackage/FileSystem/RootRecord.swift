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
    let records = readAll(name, in: directoryFD)
    return records.count == 1 ? records[0] : nil
  }

  /// Every device and inode the file `name` in `directoryFD` records, one line each (a lock file whose holder
  /// swapped a new root in records both roots: see ``PackageLock/recordSwappedInRoot(replacing:with:_:parentFD:)``).
  static func readAll(_ name: RawName, in directoryFD: CInt) -> [[UInt64]] {
    guard let fd = try? Syscalls.openForReading(in: directoryFD, name) else { return [] }
    defer { Syscalls.closeFile(fd) }
    guard let bytes = try? Syscalls.readBytes(fd, at: 0, count: 256) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ").compactMap { UInt64($0) }
      return fields.count == 2 ? fields : nil
    }
  }
}
