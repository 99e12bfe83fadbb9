import DocumentPackage

/// A tar's own header scan (``TarHeaderScan``) as one ``ArchiveReader`` made it, with the file it read: a reader
/// opened later on the same, unchanged file takes it instead of reading the whole tar again. A tar read in place is
/// walked once, then opened again to read contents (``ArchiveCursor``): for a GNU or pax tar, that second scan was a
/// whole pass over the archive, for one entry.
///
/// The file is the same when its device, inode, size, and modification and change times are: a file written since
/// (in place, or replaced by a rename) is scanned again.
struct SharedHeaderScan {
  /// The scan, or `nil` where it could not finish (the reader then leaves the archive to libarchive's judgement).
  let scan: TarHeaderScan?
  let file: Identity

  struct Identity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modificationTime: FileTime
    let changeTime: FileTime

    init(_ status: FileStatus) {
      (device, inode, size) = (status.device, status.inode, status.size)
      (modificationTime, changeTime) = (status.modificationTime, status.changeTime)
    }
  }
}
