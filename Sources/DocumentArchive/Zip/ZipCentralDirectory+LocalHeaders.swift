import DocumentPackage
import SystemPackage

extension ZipCentralDirectory {
  /// What the central directory says of an entry that libarchive does not read, or reads otherwise than the
  /// other readers.
  struct Amendment {
    /// The UTC modification time of the central directory's extended timestamp (0x5455) or else NTFS (0x000A)
    /// record. libarchive ignores the NTFS record, and takes the local header's MS-DOS time (in the local time
    /// zone) when only the central directory has an extended timestamp; Info-ZIP, bsdtar's listing and Go take
    /// the UTC time.
    var modificationTime: FileTime?
    /// A file made on MS-DOS, FAT, VFAT or NTFS with no Unix mode, with the read-only attribute set: unpacked
    /// without write permissions, as Info-ZIP's `unzip` does (libarchive 3.6 makes it 0664).
    var readOnly = false
    /// Why a symbolic link's target cannot be trusted: libarchive reads a link's target without checking its
    /// CRC-32 or its encryption (a damaged target passes, an encrypted one comes out as ciphertext).
    var linkDamage: String?
    /// The bytes a stored entry that states more than it stores gives (``ZipCentralDirectory/dataSize(method:flags:size:compressedSize:)``),
    /// where libarchive reports the stated size.
    var dataSize: Int64?
    /// A file whose data is encrypted (ZipCrypto or AES, flag bit 0): listed, never read (libarchive fails on it
    /// only when its data is read, which a listing does not do).
    var encrypted = false
    /// A name in UTF-8 that is not ASCII, as the central directory has it: libarchive gives a name flagged UTF-8
    /// normalized to NFC (`e` + U+0301 comes out `é`), where a name is kept byte for byte.
    var name: String?

    var isEmpty: Bool {
      modificationTime == nil && !readOnly && linkDamage == nil && dataSize == nil && !encrypted && name == nil
    }
  }

  /// Reads what libarchive must not be left to judge alone, before it reads the zip: checks every
  /// entry's local header, and data descriptor, against its central directory entry
  /// (``ZipLocalHeader``) — libarchive takes names from the local headers, every listing of ours and
  /// `unzip -l` from the central directory, and the two must show the same archive — and collects
  /// what libarchive reads otherwise (``Amendment``).
  /// - Returns: The amendments of the entries that have any, by decoded name.
  /// - Throws: ``/DocumentPackage/PackageError`` (code `corrupt`) naming the first entry whose copies
  ///   differ, and what differs; or naming `archive` if it cannot be read.
  /// - Complexity: One `pread` of at most 1 KiB per entry, and one more for a data descriptor that
  ///   is not within it.
  /// - Parameter keepingAmendments: `false` checks the headers alone and returns no amendment (a reader that
  ///   takes every entry from the central directory needs none; keeping them costs a string per entry).
  func checkLocalHeaders(archive: String, keepingAmendments: Bool = true) throws -> [String: Amendment] {
    var amendments: [String: Amendment] = [:]
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.localReadSize, alignment: 8)
    defer { buffer.deallocate() }
    func read(_ count: Int, at offset: Int64) throws -> UnsafeRawBufferPointer {
      var filled = 0
      while filled < count {
        let room = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<count])
        let read: Int
        do throws(Errno) { read = try Syscalls.readBytes(fd, into: room, at: offset + Int64(filled)) } catch {
          throw PackageError.io(error, "cannot read", path: archive)
        }
        if read == 0 { break }
        filled += read
      }
      return UnsafeRawBufferPointer(rebasing: buffer[..<filled])
    }
    var linkFile: ZipArchiveFile?  // the archive for reading links' targets, opened at the first link
    try forEachHeader(archive: archive) { header in
      let entry = header.entry()
      let fields = header.extraFields
      var amendment = Amendment(
        modificationTime: fields.extendedModificationTime() ?? fields.ntfsModificationTime())
      // MS-DOS/FAT (0), NTFS (11), VFAT (14): attributes in the low byte; a Unix mode, if any, in the high 16 bits.
      // A folder's read-only attribute means nothing on Windows (Explorer marks customized folders with it).
      if [0, 11, 14].contains(entry.versionMadeBy >> 8), entry.externalAttributes >> 16 == 0,
        entry.externalAttributes & 1 != 0, !entry.isDirectory
      {
        amendment.readOnly = true
      }
      if entry.externalAttributes >> 16 & 0o170000 == 0o120000 {
        amendment.linkDamage = try checkLink(entry, archive: archive, file: &linkFile)
      }
      if entry.dataSize != entry.size { amendment.dataSize = Int64(clamping: entry.dataSize) }
      amendment.encrypted = entry.flags & 1 != 0 && !entry.isDirectory
      let name = entry.decodedName
      if name.utf8.contains(where: { $0 >= 0x80 }) { amendment.name = name }
      if keepingAmendments, !amendment.isEmpty { amendments[name] = amendment }
      let offset = Int64(clamping: entry.localHeaderOffset)
      var bytes = try read(Self.localReadSize, at: offset)
      if let length = ZipLocalHeader.length(ofHeaderStartingWith: bytes), length > bytes.count {
        // A long extra field: read the whole header (at most 30 + 2 x 64 KiB).
        let whole: [UInt8]
        do throws(Errno) { whole = try Syscalls.readBytes(fd, at: offset, count: length) } catch {
          throw PackageError.io(error, "cannot read", path: archive)
        }
        _ = try whole.withUnsafeBytes { try ZipLocalHeader.check($0, against: entry, archive: archive) }
        return try checkDescriptor(of: entry, dataStart: offset + Int64(length), archive: archive, read: read)
      }
      let dataStart = offset + Int64(try ZipLocalHeader.check(bytes, against: entry, archive: archive))
      guard entry.flags & ZipRecords.dataDescriptorFlag != 0 else { return true }
      // The descriptor is often within the bytes already read.
      let descriptor = dataStart + Int64(clamping: entry.compressedSize) - offset
      if descriptor + 24 <= bytes.count {
        bytes = UnsafeRawBufferPointer(rebasing: bytes[Int(descriptor)..<(Int(descriptor) + 24)])
        try ZipLocalHeader.checkDescriptor(bytes, against: entry, archive: archive)
        return true
      }
      return try checkDescriptor(of: entry, dataStart: dataStart, archive: archive, read: read)
    }
    return amendments
  }

  /// Reads a symbolic link's target as a file's data is read and checked (``ZipEntryReading``: size, CRC-32),
  /// since libarchive does not; an encrypted link is refused as an encrypted file is.
  /// - Returns: Why the target cannot be trusted, or `nil` (a method other than stored or deflated is left to
  ///   libarchive).
  private func checkLink(_ entry: Entry, archive: String, file: inout ZipArchiveFile?) throws -> String? {
    if entry.flags & 1 != 0 { return "its target is encrypted (a passphrase would be required)" }
    guard entry.method == 0 || entry.method == 8 else { return nil }
    if file == nil {
      do throws(Errno) { file = ZipArchiveFile(fd: try Syscalls.duplicate(fd), path: archive) } catch {
        throw PackageError.io(error, "cannot read", path: archive)
      }
    }
    do {
      try ZipEntryReading.read(entry, of: file!, dataStart: nil, chunkSize: 4096) {
        _ in
      }
    } catch let error as PackageError where error.code == .corrupt {
      return error.context.hasSuffix("its CRC-32 does not match")
        ? "its target's CRC-32 does not match" : "its target's data is damaged"
    }
    return nil
  }

  /// How much of an entry is read at its local header: the header, and often a small entry's descriptor.
  private static let localReadSize = 1024

  private func checkDescriptor(
    of entry: Entry, dataStart: Int64, archive: String, read: (Int, Int64) throws -> UnsafeRawBufferPointer
  ) throws -> Bool {
    guard entry.flags & ZipRecords.dataDescriptorFlag != 0 else { return true }
    let (end, overflow) = dataStart.addingReportingOverflow(Int64(clamping: entry.compressedSize))
    let bytes = overflow ? UnsafeRawBufferPointer(start: nil, count: 0) : try read(24, end)
    try ZipLocalHeader.checkDescriptor(bytes, against: entry, archive: archive)
    return true
  }
}
