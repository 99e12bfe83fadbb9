import DocumentPackage
import SystemPackage

/// Extracts archives safely and atomically.
///
///     let names = try ArchiveUnpacker.unpack("/tmp/Trip.zip", into: "/home/ann/Documents")
///     // ["Trip.mydoc"]
///
/// The archive is extracted into a temporary folder inside the destination, then each top-level
/// entry is renamed into place: on any error or cancellation nothing is left at the destination,
/// and the folder a killed unpack left is removed by the next unpack into the same destination
/// (each running unpack locks its own folder). Names are decoded as the formats define them: a zip
/// name is UTF-8 with flag bit 11, else CP437 (or the Info-ZIP Unicode Path field when its CRC
/// matches; valid UTF-8 without the flag is taken as UTF-8); a tar name is kept as its bytes, so a
/// Latin-1 name is created with the same bytes. Unsafe entries
/// are refused, each with an error naming it: absolute paths, `..` (also with `\`), names that
/// have control characters or are too long, entries written through a symbolic link
/// or below a file, links that resolve outside their package, hard links to anything but a file
/// extracted before them, devices, FIFOs and sockets, duplicate entries, names the destination's file
/// system cannot hold or does not tell apart from a sibling's (`a.txt` and `A.txt` on exFAT, `x:y` on FAT:
/// see `SiblingNameCheck`), and damaged data (bad
/// CRC, sizes that do not match, a zip without its central directory, a zip entry whose local header
/// or data descriptor differs from its central directory entry, a pax owner that is not a number).
/// Set-id and sticky bits are stripped, and unless the process runs as root the umask applies to the
/// archive's modes, as with tar. A sparse tar entry's holes stay holes. ``UnpackLimits`` stop archive bombs.
public enum ArchiveUnpacker {
  /// Extracts `archive` into the existing directory `destination`.
  ///
  /// A document zip (ODF, EPUB: `mimetype` is the first entry) is extracted into a folder named
  /// after the archive, since its entries are the document's contents.
  /// - Parameters:
  ///   - archive: A zip or (compressed) tar archive.
  ///   - destination: The directory to extract into.
  ///   - options: Whether to replace existing entries, and the limits.
  ///   - cancellation: Stops the unpacking (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread as entries are extracted.
  /// - Returns: The names of the top-level entries created in `destination`.
  /// - Throws: ``/DocumentPackage/PackageError`` naming the archive and the entry at fault, or the existing entry
  ///   (code `nameTaken`) when one is in the way and `replaceExisting` is not set.
  /// - Complexity: O(*n* + *b*) for *n* entries and *b* bytes.
  @discardableResult
  public static func unpack(
    _ archive: FilePath, into destination: FilePath, options: UnpackOptions = UnpackOptions(),
    cancellation: ArchiveCancellation? = nil, progress: ((ArchiveProgress) -> Void)? = nil
  ) throws -> [String] {
    try unpackReporting(archive, into: destination, options: options, cancellation: cancellation, progress: progress)
      .created
  }

  /// Extracts `archive` into `destination` as ``unpack(_:into:options:cancellation:progress:)``
  /// does, and reports the entries it skipped too (``UnpackOptions/skipSpecialFiles``).
  /// - Parameters:
  ///   - archive: A zip or (compressed) tar archive.
  ///   - destination: The directory to extract into.
  ///   - options: Whether to replace existing entries, skip special files, and the limits.
  ///   - cancellation: Stops the unpacking (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread as entries are extracted.
  /// - Returns: The top-level entries created, and the entries skipped with the reason.
  /// - Throws: ``/DocumentPackage/PackageError`` as ``unpack(_:into:options:cancellation:progress:)`` does.
  public static func unpackReporting(
    _ archive: FilePath, into destination: FilePath, options: UnpackOptions = UnpackOptions(),
    cancellation: ArchiveCancellation? = nil, progress: ((ArchiveProgress) -> Void)? = nil
  ) throws -> UnpackReport {
    let reader = try ArchiveReader(path: archive.string)
    return try withDestination(destination, creating: options.createsDestination) { destfd in
      try extract(
        reader, documentName: documentFolderName(for: archive), into: destfd, destination: destination,
        options: options, cancellation: cancellation, progress: progress)
    }
  }

  /// Extracts the archive read from `input` (standard input, a pipe, a socket) into
  /// `destination`, with the same checks and the same all-or-nothing result as
  /// ``unpackReporting(_:into:options:cancellation:progress:)``.
  ///
  /// The stream is first copied into a hidden temporary file in `destination` (a zip's central
  /// directory is at its end), which is removed when the unpack ends, and by the next unpack into
  /// `destination` if this one is killed (a stream that does not start as an archive
  /// is refused after its first 512 bytes, and one larger than the limits allow when it reaches that
  /// size). A document zip read from a stream is extracted into a folder named `Document`.
  /// - Parameters:
  ///   - input: The stream to read to its end (it stays open).
  ///   - label: The name messages give the stream.
  ///   - destination: The directory to extract into.
  ///   - options: Whether to replace existing entries, skip special files, and the limits.
  ///   - cancellation: Stops the unpacking (code `cancelled`) when cancelled from another thread.
  ///   - progress: Called on the calling thread as entries are extracted.
  /// - Returns: The top-level entries created, and the entries skipped with the reason.
  /// - Throws: ``/DocumentPackage/PackageError`` as ``unpack(_:into:options:cancellation:progress:)`` does, or
  ///   naming `label` if the stream cannot be read.
  public static func unpackReporting(
    reading input: FileDescriptor, label: String = "-", into destination: FilePath,
    options: UnpackOptions = UnpackOptions(), cancellation: ArchiveCancellation? = nil,
    progress: ((ArchiveProgress) -> Void)? = nil
  ) throws -> UnpackReport {
    try withDestination(destination, creating: options.createsDestination) { destfd in
      let spool = try UnpackFolder.make(in: destfd, destination: destination)
      defer { spool.remove(from: destfd) }
      let name = RawName("archive")
      let spoolPath = destination.string + "/" + spool.name.string + "/archive"
      let fd: CInt
      do throws(Errno) { fd = try Syscalls.createFile(in: spool.fd, name) } catch {
        throw PackageError.io(error, "cannot create a temporary file in", path: destination)
      }
      do {
        defer { Syscalls.closeFile(fd) }
        try StreamSpool.copy(
          input.rawValue, label: label, to: fd, path: spoolPath, limits: options.limits, cancellation: cancellation)
      }
      let reader = try ArchiveReader(path: spoolPath, label: label)
      return try extract(
        reader, documentName: "Document", into: destfd, destination: destination, options: options,
        cancellation: cancellation, progress: progress)
    }
  }

  /// Opens `destination` (made first with its missing parents if `creating`, and removed again if the unpack
  /// fails), removes what killed unpacks left there, and runs `body` on it.
  private static func withDestination<T>(
    _ destination: FilePath, creating: Bool, _ body: (CInt) throws -> T
  ) throws -> T {
    let made = creating ? try LocalFiles.makeDirectories(destination) : []
    do {
      let destfd: CInt
      do { destfd = try Syscalls.openDirectory(destination) } catch {
        throw PackageError.opening(error, "cannot open destination directory", path: destination.string)
      }
      defer { Syscalls.closeFile(destfd) }
      UnpackFolder.removeAbandoned(in: destfd)
      return try body(destfd)
    } catch {
      LocalFiles.removeEmptyDirectories(made)
      throw error
    }
  }

  /// Extracts `reader`'s archive into a fresh temporary folder in `destfd`, then moves its
  /// top-level entries into place.
  private static func extract(
    _ reader: ArchiveReader, documentName: String, into destfd: CInt, destination: FilePath, options: UnpackOptions,
    cancellation: ArchiveCancellation?, progress: ((ArchiveProgress) -> Void)?
  ) throws -> UnpackReport {
    // Entries are renamed into place whole: a file system that loses what is in a directory renamed
    // with entries in it (fusefat) would lose them. Refused before anything is written.
    let traits = try FileSystemTraits.of(directory: destfd, probe: RawName(".docpkg-probe"), path: destination)
    guard traits.renamesFilledDirectories else {
      throw PackageError(
        .unsupported, "cannot unpack into", path: destination.string,
        context: "(its file system loses the contents of a directory renamed with entries in it; unpack "
          + "elsewhere and copy)")
    }
    let folder = try UnpackFolder.make(in: destfd, destination: destination)
    // Raw names throughout: with `replaceExisting`, what lands here may have names that are not UTF-8.
    defer { folder.remove(from: destfd) }
    let tempfd = folder.fd

    let extractor = Extractor(reader: reader, root: tempfd, limits: options.limits, cancellation: cancellation)
    // Its open directories closed before the folder is removed: an unpack that failed for want of descriptors
    // leaves its removal some.
    defer { extractor.directoryFDs.removeAll() }
    extractor.skipSpecialFiles = options.skipSpecialFiles
    // The destination's file system, probed in the temporary folder (on it, and ours alone).
    let nameCheck = SiblingNameCheck(forDirectory: tempfd, at: destination)
    if nameCheck.isNeeded { extractor.nameCheck = nameCheck }
    if !options.replaceExisting {
      // Refused as soon as the name shows in the archive, before anything is extracted below it.
      extractor.checkTopLevelName = { name in
        guard try !exists(name, in: destfd, destination: destination.string) else {
          throw alreadyExists(destination.string + "/" + name)
        }
      }
    }
    try extractor.run(wrapDocumentIn: documentName, progress: progress)
    let names = extractor.topLevel
    // Durable: the extracted tree reaches the disk before it is renamed in (a replaced entry is
    // deleted right after), and the renames reach it before we report success.
    let durable = options.durable || options.replaceExisting
    if durable {
      do { try Syscalls.synchronizeFileSystem(tempfd) } catch {
        throw PackageError.io(error, "cannot write the extracted files to disk in", path: destination)
      }
    }
    try moveIntoPlace(
      names, from: tempfd, to: destfd, destination: destination.string, replace: options.replaceExisting)
    if durable {
      do { try Syscalls.synchronize(destfd) } catch {
        throw PackageError.io(error, "cannot write directory", path: destination)
      }
    }
    return UnpackReport(created: names, skipped: extractor.skipped)
  }

  /// The error for an entry in the way (code `nameTaken`). It names no remedy: the library's is
  /// ``UnpackOptions/replaceExisting``, the `docpkg` tool's is `--force`, which the tool adds.
  static func alreadyExists(_ path: String) -> PackageError {
    PackageError(.nameTaken, "already exists:", path: path)
  }

  private static func exists(_ name: String, in destfd: CInt, destination: String) throws -> Bool {
    do { return try Syscalls.exists(in: destfd, RawName(entryName: name)) } catch {
      throw PackageError.io(error, "cannot look at", path: destination + "/" + name)
    }
  }

  /// The folder a document zip is extracted into: the archive's name without a trailing `.zip`.
  static func documentFolderName(for archive: FilePath) -> String {
    var name = archive.lastComponent?.string ?? "Document"
    if name.lowercased().hasSuffix(".zip"), name.count > 4 { name.removeLast(4) }
    return name
  }

  /// Renames each top-level entry from the temporary folder into the destination; all or none.
  private static func moveIntoPlace(
    _ names: [String], from tempfd: CInt, to destfd: CInt, destination: String, replace: Bool
  ) throws {
    if !replace {
      // Checked again: something may have taken a name while the archive was extracted.
      for name in names {
        guard try !exists(name, in: destfd, destination: destination) else {
          throw alreadyExists(destination + "/" + name)
        }
      }
    }
    var moved: [(name: String, exchanged: Bool)] = []
    do throws(Errno) {
      for name in names {
        let exchange = replace ? try Syscalls.exists(in: destfd, RawName(entryName: name)) : false
        // Swap the new entry in; the old one lands in the temporary folder and goes with it.
        try Syscalls.rename(
          from: tempfd, RawName(entryName: name), to: destfd, RawName(entryName: name),
          flags: exchange ? Syscalls.renameExchange : Syscalls.renameNoReplace)
        moved.append((name, exchange))
      }
    } catch {
      // Put back what was moved, newest first.
      for item in moved.reversed() {
        try? Syscalls.rename(
          from: destfd, RawName(entryName: item.name), to: tempfd, RawName(entryName: item.name),
          flags: item.exchanged ? Syscalls.renameExchange : Syscalls.renameNoReplace)
      }
      let name = names[moved.count]
      if error == .fileExists { throw alreadyExists(destination + "/" + name) }
      throw PackageError.io(error, "cannot move into place", path: destination + "/" + name)
    }
  }
}
