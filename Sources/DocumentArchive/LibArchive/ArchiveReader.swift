import CArchive
import DocumentPackage
import SystemPackage

/// One entry's header, as read from an archive.
struct EntryHeader {
  enum Kind: Equatable {
    case file, directory, symlink, hardlink
    /// A device, FIFO or socket: never extracted.
    case special(String)
  }

  /// The name, decoded as ``EntryName`` says (a zip's CP437, a tar's raw bytes); `nil` only if
  /// it cannot be decoded.
  var name: String?
  /// The bytes the walk splits into components: a zip's decoded name in UTF-8, a tar's name as stored.
  var rawName: [UInt8]
  var kind: Kind
  /// Permission bits including set-id and sticky bits.
  var mode: UInt32
  /// The declared size, when the header has one.
  var size: Int64?
  var modificationTime: FileTime?
  /// A symbolic link's destination, or a hard link's target path.
  var linkTarget: String?

  /// Why the name cannot be trusted although libarchive read it (a pax path cut at a NUL byte).
  var nameProblem: String?
  /// Why the rest of the header cannot be trusted although libarchive read it (a pax owner that is not a number).
  var damage: String?
  /// Whether the entry's data is encrypted (a zip's flag bit 0): it cannot be read.
  var encrypted = false

  /// The name for messages (raw bytes as their private-use scalars, which messages show as `\xNN`).
  var displayName: String { name ?? String(decoding: rawName, as: UTF8.self) }
}

/// A libarchive read handle over one archive file, restricted to the zip and tar families.
///
/// Owns the handle (freed in `deinit`). Every `ARCHIVE_WARN` is a failure. Zip files are read
/// with the seekable reader, which trusts the central directory and so refuses a truncated zip, over
/// the archive ``ZipCentralDirectory`` found (``ZipArchiveView``).
final class ArchiveReader {
  /// The archive's path, for messages.
  let path: String
  /// The file actually read: `path`, or a spooled copy of standard input (see ``ArchiveSpool``).
  let source: String
  let format: ArchiveFormat
  private let handle: OpaquePointer
  private let fd: CInt
  private var entry: OpaquePointer?
  /// The current entry's name, for messages.
  private(set) var currentName = ""
  /// The archive file's size in bytes.
  let archiveSize: Int64
  /// A tar's pax headers as we read them ourselves (see ``TarHeaderScan``): scanned once, when the
  /// first pax header shows (a tar without any costs nothing); `nil` until then, for a zip, or when
  /// the scan could not finish.
  private var paxScan: TarHeaderScan?
  private var paxScanned = false
  /// The file as opened, for sharing the scan (``sharedScan``).
  private let fileIdentity: SharedHeaderScan.Identity?
  /// What a zip's central directory says that libarchive does not read, by entry name (UTC times, read-only files,
  /// stored sizes).
  private var zipAmendments: [String: ZipCentralDirectory.Amendment] = [:]
  /// What libarchive reads of a zip (kept for as long as the handle).
  private let zipView: ZipArchiveView?
  /// How many entries a zip's central directory lists (`nil` for a tar, known only at its end).
  let zipEntryCount: Int?
  /// The index of the entry last returned by ``next()``.
  private var entryIndex = -1
  /// Whether the current entry's data must be read to its end before the next header: a Solaris sparse
  /// entry, which libarchive does not skip whole (see ``TarHeaderScan``).
  private var readToEndBeforeNext = false
  /// Whether a gzip-compressed tar's trailers were checked (``GzipStreamCheck``).
  private var gzipChecked = false

  /// Opens `path`, in `format` or the one its contents (or else its name) say.
  /// - Parameters:
  ///   - label: The name messages give the archive, when not `path` (`-` for standard input).
  ///   - previousScan: The header scan of an earlier reader of the archive, taken if the file is still the same.
  /// - Throws: ``/DocumentPackage/PackageError`` naming `path` if it cannot be opened or is not a supported archive.
  init(
    path source: String, format: ArchiveFormat? = nil, label: String? = nil, previousScan: SharedHeaderScan? = nil
  ) throws {
    let path = label ?? source
    try LibArchive.prepare(for: path)
    self.path = path
    self.source = source
    let fd: CInt
    do { fd = try Syscalls.openFile(FilePath(source), .readOnly) } catch {
      throw PackageError.opening(error, "cannot open archive", path: path)
    }
    self.fd = fd
    let status = try? Syscalls.status(of: fd)
    archiveSize = status?.size ?? 0
    fileIdentity = status.map(SharedHeaderScan.Identity.init)
    if let previousScan, let fileIdentity, previousScan.file == fileIdentity {
      (paxScan, paxScanned) = (previousScan.scan, true)
    }
    guard let detected = format ?? ArchiveFormat(contentsOf: fd) ?? ArchiveFormat(fileName: source) else {
      Syscalls.closeFile(fd)
      throw PackageError(.unsupported, "not a zip or tar archive:", path: path)
    }
    self.format = detected
    if detected == .zip {
      // libarchive names entries from their local headers: they must say what the directory says. And it
      // reads the archive where ZipCentralDirectory finds it, through a view (see ZipArchiveView).
      do {
        guard let directory = ZipCentralDirectory(fd: fd, fileSize: archiveSize) else {
          throw PackageError(
            .corrupt, "cannot read zip archive", path: path,
            context: "(no valid central directory where its end record says: truncated or damaged?)")
        }
        zipAmendments = try directory.checkLocalHeaders(archive: path)
        zipView = ZipArchiveView(fd: fd, directory: directory)
        zipEntryCount = directory.declaredEntryCount
      } catch {
        Syscalls.closeFile(fd)
        throw error
      }
    } else {
      zipView = nil
      zipEntryCount = nil
    }
    handle = docpkg_archive_read_new()
    if detected == .zip {
      docpkg_archive_read_support_format_zip_seekable(handle)
    } else {
      docpkg_archive_read_support_format_tar(handle)
      docpkg_archive_read_support_filter_gzip(handle)
      docpkg_archive_read_support_filter_bzip2(handle)
      docpkg_archive_read_support_filter_xz(handle)
      docpkg_archive_read_support_filter_zstd(handle)
    }
    // Read through a 1 MiB buffer: mapping the archive was no faster, and counts against RSS.
    let result = zipView?.open(handle) ?? docpkg_archive_read_open_fd(handle, fd, 1 << 20)
    do {
      try check(result, handle, path: path, action: "read archive")
    } catch let error as PackageError where detected == .zip && error.code == .corrupt {
      throw PackageError(
        .corrupt, "cannot read zip archive", path: path,
        context: "(no valid central directory: truncated or damaged?): \(error.context.dropFirst().dropLast())")
    }
  }

  /// The header scan this reader made or took, with the file it read; `nil` if it made none (a tar without pax or
  /// GNU headers needs none) or for a zip.
  var sharedScan: SharedHeaderScan? {
    guard paxScanned, let fileIdentity else { return nil }
    return SharedHeaderScan(scan: paxScan, file: fileIdentity)
  }

  deinit {
    docpkg_archive_read_free(handle)
    Syscalls.closeFile(fd)
  }

  /// The next entry's header, or `nil` at the end. Skips the current entry's unread data.
  /// - Throws: ``/DocumentPackage/PackageError`` with code `corrupt` if the archive is damaged.
  func next() throws -> EntryHeader? {
    try Syscalls.withUTF8CharacterType { try readHeader() }
  }

  /// ``next()``'s work, in a UTF-8 character type: libarchive converts the names as it reads them.
  private func readHeader() throws -> EntryHeader? {
    if readToEndBeforeNext { try readData { _, _ in } }
    var raw: OpaquePointer?
    let result = docpkg_archive_read_next_header(handle, &raw)
    if result == ARCHIVE_EOF {
      // What libarchive skips: the gzip trailers (checked once, when the whole tar has been read).
      if format == .tarGzip, !gzipChecked {
        try GzipStreamCheck.verify(fd: fd, archive: path)
        gzipChecked = true
      }
      return nil
    }
    entryIndex += 1
    // What libarchive does not tell is read from the headers themselves: where a pax or GNU header
    // shows, or libarchive warns.
    let tarFormat = docpkg_archive_format(handle)
    if !paxScanned, format != .zip,
      result == ARCHIVE_WARN || tarFormat == ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE
        || tarFormat == ARCHIVE_FORMAT_TAR_GNUTAR
    {
      paxScanned = true
      paxScan = TarHeaderScan.scan(path: source)
    }
    let scanned = paxScan?.info(entryIndex)
    let name = raw.flatMap { docpkg_archive_entry_pathname($0) }
    let storedName = Self.exact(
      name.map { RawName(cString: $0).bytes.dropLast().map { UInt8(bitPattern: $0) } } ?? [], scanned?.paxPath)
    var decodedName = EntryName.decodeBytes(storedName)
    // A zip's name that is not UTF-8 keeps its bytes if the entry was made on Unix, which its central directory
    // says: its amendment (it has one, since the name is not ASCII) is found by that name. Else it is CP437.
    let keptBytes = format != .zip || zipAmendments[decodedName] != nil
    if !keptBytes { decodedName = EntryName.decodeZip(storedName, madeOnUnix: false) }
    let amendment = format == .zip ? zipAmendments[decodedName] : nil
    // A zip's UTF-8 name as its central directory has it (libarchive gives it normalized to NFC).
    if let exact = amendment?.name, exact == decodedName { decodedName = exact }
    // A CP437 or UTF-8 zip name is split after decoding (CP437 has no '/' above 0x7F); other names as the bytes
    // they are.
    let rawName =
      format == .zip && !(keptBytes && String(validating: storedName, as: UTF8.self) == nil)
      ? Array(decodedName.utf8) : storedName
    currentName = decodedName
    readToEndBeforeNext = scanned?.solarisHoles == true
    // A size that is not a number (`size=+5`, `size= 5`) leaves where the next header starts unknown: the
    // archive is refused, whichever way libarchive read it (it fails on one, reads the other).
    if let scanned, scanned.badSize, let problem = scanned.badValue {
      throw PackageError(
        .corrupt, "cannot read tar archive", path: path,
        context: "(entry \(currentName.debugDescription): \(problem): where its data ends is unknown)")
    }
    // Several well-formed pax headers for one entry: POSIX says the last wins, as libarchive does,
    // though it warns. Any other warning stays an error.
    let warning = result == ARCHIVE_WARN ? docpkg_archive_error_string(handle).map { String(cString: $0) } : nil
    let severalPaxHeaders =
      warning == "Ignoring malformed pax extended attribute"
      && scanned.map { $0.paxHeaders > 1 && !$0.malformedPax } == true
    // A pax name that is not UTF-8 and not marked `hdrcharset=BINARY` (GNU tar writes Latin-1 names so): libarchive
    // warns that it cannot convert it, and gives its bytes, which are kept as a plain ustar's are.
    let unconvertedName =
      format != .zip && scanned?.malformedPax != true
      && warning.map { $0.hasSuffix("can't be converted from UTF-8 to current locale.") } == true
    if !severalPaxHeaders, !unconvertedName {
      try checkZipView(result)
      try check(result, handle, path: path, entry: rawName.isEmpty ? nil : currentName, action: "read header of")
    }
    guard let raw else { throw PackageError(.corrupt, "cannot read header in", path: path) }
    entry = raw
    let type = UInt32(docpkg_archive_entry_filetype(raw))
    let hardlink = docpkg_archive_entry_hardlink(raw).map {
      EntryName.decodeBytes(
        Self.exact(RawName(cString: $0).bytes.dropLast().map { UInt8(bitPattern: $0) }, scanned?.paxLinkpath))
    }
    let kind: EntryHeader.Kind
    if let _ = hardlink, type == 0 || type == docpkg_AE_IFREG {
      kind = .hardlink
    } else {
      switch type {
      case docpkg_AE_IFREG: kind = .file
      case docpkg_AE_IFDIR: kind = .directory
      case docpkg_AE_IFLNK: kind = .symlink
      case docpkg_AE_IFCHR: kind = .special("character device")
      case docpkg_AE_IFBLK: kind = .special("block device")
      case docpkg_AE_IFIFO: kind = .special("FIFO")
      case docpkg_AE_IFSOCK: kind = .special("socket")
      default: kind = .special("entry of unknown type")
      }
    }
    let symlinkBytes = docpkg_archive_entry_symlink(raw).map {
      Self.exact(RawName(cString: $0).bytes.dropLast().map { UInt8(bitPattern: $0) }, scanned?.paxLinkpath)
    }
    // As the model reads a link on disk (``RawByteNames``, lookalikes escaped): unpacking writes these very bytes,
    // UTF-8 or not.
    let symlink = symlinkBytes.map { RawByteNames.decode($0, escapingLookalikes: true) }
    // A zip's link is checked as a file's data is (its CRC-32; encrypted, it is refused).
    let linkDamage = kind == .symlink ? amendment?.linkDamage : nil
    let size = docpkg_archive_entry_size_is_set(raw) != 0 ? docpkg_archive_entry_size(raw) : nil
    return EntryHeader(
      name: decodedName,
      rawName: rawName,
      kind: kind,
      mode: (scanned?.headerMode ?? UInt32(docpkg_archive_entry_perm(raw)))
        & (amendment?.readOnly == true ? 0o7555 : 0o7777),
      size: kind == .file ? scanned?.gnuSize ?? amendment?.dataSize ?? size : size,
      modificationTime: amendment?.modificationTime ?? scanned?.paxTime ?? scanned?.timeFromGlobalHeader
        ?? (docpkg_archive_entry_mtime_is_set(raw) != 0
          ? LibArchive.time(
            seconds: Int64(docpkg_archive_entry_mtime(raw)), nanoseconds: docpkg_archive_entry_mtime_nsec(raw))
          : nil),
      linkTarget: kind == .hardlink ? hardlink : symlink,
      nameProblem: scanned?.nulInPath == true
        ? "its pax header's path has a NUL byte, where libarchive would cut the name" : nil,
      damage: linkDamage ?? scanned?.badValue,
      encrypted: amendment?.encrypted == true
    )
  }

  /// A name or link target as libarchive gave it, or `header`'s bytes (a pax `path` or `linkpath`) where they are
  /// the same text under Unicode canonical equivalence: libarchive normalizes a pax header's UTF-8 to NFC, and a
  /// name is kept as its bytes.
  private static func exact(_ given: [UInt8], _ header: [UInt8]?) -> [UInt8] {
    guard let header, header != given, let text = String(validating: header, as: UTF8.self),
      String(validating: given, as: UTF8.self) == text
    else { return given }
    return header
  }

  /// Hands the current entry's data to `body` in blocks, with each block's offset in the file
  /// (a tar's sparse file has holes between blocks).
  /// - Throws: ``/DocumentPackage/PackageError`` with code `corrupt` on damaged data or a bad CRC, or what `body` throws.
  func readData(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
    while true {
      var buffer: UnsafeRawPointer?
      var size = 0
      var offset: Int64 = 0
      let result = docpkg_archive_read_data_block(handle, &buffer, &size, &offset)
      if result == ARCHIVE_EOF {
        readToEndBeforeNext = false
        return
      }
      try checkZipView(result)
      try check(result, handle, path: path, entry: currentName, action: "read data of")
      if size > 0, let buffer { try body(UnsafeRawBufferPointer(start: buffer, count: size), offset) }
    }
  }

  /// The read error behind a failed libarchive call, if ``ZipArchiveView`` met one (libarchive gives no message).
  private func checkZipView(_ result: CInt) throws {
    guard result != ARCHIVE_OK, let zipView else { return }
    if let failure = zipView.failure { throw PackageError.io(failure, "cannot read", path: path) }
    if zipView.shrank { throw PackageError(.changedOnDisk, "archive changed since it was opened:", path: path) }
  }

  /// Compressed bytes read from the archive so far.
  var compressedBytesRead: Int64 { docpkg_archive_filter_bytes(handle, -1) }
}
