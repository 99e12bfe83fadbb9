import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive

/// Random archives (Tests/Scripts/make-random-archives.py: zip stored and deflated, pax, GNU and ustar tars, Unicode
/// and Latin-1 names, depths, modes, sizes, symbolic and hard links) read by Python's zipfile and tarfile and by us:
/// the listing has Python's entries in Python's order, with the same name bytes, kinds, sizes, modes and link
/// targets, none refused (the generator makes only archives docpkg accepts), and the tree read in place gives each
/// file's bytes as Python read them.
@Suite struct ArchiveDifferentialTests {
  /// One archive as Python read it.
  struct Listed: Decodable {
    var archive: String
    var entries: [Entry]
    /// The names `bsdtar -tf` lists (base64 of their bytes, without a trailing /), where asked for.
    var bsdtar: [String]?
    /// bsdtar's reading of each entry, as it copies the archive into a pax tar (the corpus group only).
    var bsdtar_entries: [Entry]?
    /// Why Python or bsdtar refused the archive (the corpus group only).
    var python_error: String?
    var bsdtar_error: String?
    /// A corpus archive's path from its corpus folder's parent (`testdata/gnu.tar`): the key of
    /// ``corpusDifferences``.
    var name: String?

    /// How messages and ``corpusDifferences`` name the archive.
    var label: String { name ?? FilePath(archive).lastComponent!.string }

    /// Without an entry `.` (`./` in the archive: `tar -C DIR .`), the folder unpacked into, which we do not list
    /// (the README's table): the other entries are compared.
    var withoutRoot: Listed {
      let root = Data(".".utf8).base64EncodedString()
      var listed = self
      listed.entries.removeAll { $0.path == root }
      listed.bsdtar?.removeAll { $0 == root }
      listed.bsdtar_entries?.removeAll { $0.path == root }
      return listed
    }
  }

  /// One entry as Python read it: names and targets as base64 of their bytes, `fnv` the FNV-1a 64 of a file's bytes
  /// (or `crc32:` and their CRC-32, for the corpus).
  struct Entry: Decodable {
    var path: String
    var kind: String
    var size: Int64?
    /// `nil` for a zip entry made elsewhere than on Unix, which has no mode.
    var mode: UInt32?
    var target: String?
    var fnv: String?
    /// Seconds since 1970: a tar's; a zip's extended timestamp, else its MS-DOS time in the local time zone.
    var mtime: Int64?
  }

  @Test(arguments: [1, 2, 3])
  func randomArchivesReadAsPythonReadsThem(seed: Int) async throws {
    let temp = try TemporaryDirectory()
    let path = temp.path
    // Tens of seconds of blocking work: off the cooperative pool (see `offThePool`).
    let disagreements = try await offThePool { () throws -> [String] in
      let output = try Shell.run("python3", [Fixtures.script("make-random-archives.py"), path, "\(seed)", "40"])
      var disagreements: [String] = []
      for line in output.standardOutput.split(separator: "\n") {
        disagreements += try compare(JSONDecoder().decode(Listed.self, from: Data(line.utf8)))
      }
      return disagreements
    }
    #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
  }

  /// Zips other writers made with bytes around them (`Tests/Scripts/make-others-archives.py`): Info-ZIP's `zip`
  /// (zip64 with `-fz`, offsets adjusted with `-A`, a 40,000-byte comment with `-z`), Python's zipfile and Go's
  /// archive/zip after a real executable, junk or a signature after the end record, both, and an end record whose
  /// directory size is wrong (read as Go, Info-ZIP and libarchive read it; Python refuses it, and its listing is
  /// of the zip before the change), and end records whose entry counts (zip64 too) are too low, 0 or too high
  /// (every header is listed, as Python lists them). Listed, read in place and unpacked as Python reads them.
  @Test("archives other writers made read as Python reads them", arguments: ["surrounded", "writers"])
  func othersArchivesReadAsPythonReadsThem(group: String) async throws {
    let temp = try TemporaryDirectory()
    let path = temp.path
    let disagreements = try await offThePool { () throws -> [String] in
      let output = try Shell.run("python3", [Fixtures.script("make-others-archives.py"), path, group])
      var disagreements: [String] = []
      var archives = 0
      for line in output.standardOutput.split(separator: "\n") {
        disagreements += try compare(JSONDecoder().decode(Listed.self, from: Data(line.utf8)), unpackingIn: temp)
        archives += 1
      }
      if archives < 10 { disagreements.append("only \(archives) archives were made: \(output.standardError)") }
      return disagreements
    }
    #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
  }

  /// Other projects' test archives, each source compared on its own (``CorpusSource``): libarchive's `test/*.uu`,
  /// decoded and committed in `Tests/Corpora/libarchive`, and Go's archive/tar and archive/zip test data and
  /// Python's test suite's archives, which Debian packages install (`Scripts/setup.sh`). Each archive Python reads
  /// is listed, read in place and unpacked as Python reads it; each that Python and bsdtar both refuse is refused;
  /// each that one of them refuses is refused by us or listed as the other lists it. The differences kept are
  /// ``corpusDifferences`` (the README's table); a row for an archive read as the others read it fails, being out of
  /// date. With `DOCPKG_REQUIRE_CORPUS=1` (`make test`), a source that is not there is a failure, not a skip.
  @Test(
    "other projects' test archives read as Python and bsdtar read them",
    .enabled(if: !CorpusSource.found.isEmpty || CorpusSource.required))
  func corpusReadAsOthersReadIt() async throws {
    if CorpusSource.required {
      for missing in CorpusSource.expected where !CorpusSource.found.contains(where: { $0.name == missing }) {
        Issue.record("DOCPKG_REQUIRE_CORPUS=1 but \(missing)'s test archives are not installed: run Scripts/setup.sh")
      }
    }
    let temp = try TemporaryDirectory()
    var disagreements: [String] = []
    for source in CorpusSource.found {
      let (found, count) = try await offThePool { () throws -> ([String], Int) in
        let output = try Shell.run(
          "python3", [Fixtures.script("make-others-archives.py"), temp.path, "corpus"],
          environment: ["DOCPKG_ARCHIVE_CORPUS": source.folders.joined(separator: ":")])
        var found: [String] = []
        var count = 0
        for line in output.standardOutput.split(separator: "\n") {
          let expected = try JSONDecoder().decode(Listed.self, from: Data(line.utf8)).withoutRoot
          count += 1
          let differences =
            (expected.python_error == nil
              ? try compare(expected, unpackingIn: temp) : refusedOrListed(expected, in: temp))
            + bsdtarDifferences(expected)
          if !differences.isEmpty, Self.corpusDifferences[expected.label] == nil { found += differences }
          // A row of the table for an archive we now read as the others do is out of date.
          if differences.isEmpty, Self.corpusDifferences[expected.label] != nil {
            found.append("\(expected.label): read as Python and bsdtar read it, yet listed in corpusDifferences")
          }
        }
        return (found, count)
      }
      disagreements += found
      if count < source.minimumCount {
        disagreements.append("\(source.name): only \(count) archives, at least \(source.minimumCount) expected")
      }
    }
    #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
  }

  /// The corpus archives we read differently from Python or bsdtar, and why (each a row of the README's table).
  static let corpusDifferences: [String: String] = [
    // libarchive's test archives (Tests/Corpora/libarchive).
    "libarchive/test_compat_gtar_1.tar": "a symbolic link's mode is 0777, as Linux gives every link",
    "libarchive/test_read_format_zip_symlink.zip": "a symbolic link's mode is 0777, as Linux gives every link",
    "libarchive/test_compat_solaris_tar_acl.tar": "a Solaris ACL header (`A`) is no entry, as bsdtar and Solaris tar",
    "libarchive/test_compat_zip_8.zip": "`\\` in a name of a zip made on MS-DOS: a separator, as unzip and bsdtar",
    "libarchive/test_read_pax_empty_val_no_nl.tar": "a malformed pax record: refused, as Go; GNU tar and bsdtar fail",
    "libarchive/test_write_disk_appledouble_zip.zip": "the old Info-ZIP Unix field's UTC time, as unzip and bsdtar",
    "libarchive/test_compat_star_acl_posix1e.tar": "a mode under a POSIX ACL: the header's, as GNU tar and Python",
    "libarchive/test_read_format_zip_bzip2.zipx": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "libarchive/test_read_format_zip_bzip2_multi.zipx":
      "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "libarchive/test_read_format_zip_lzma.zipx": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "libarchive/test_read_format_zip_lzma_multi.zipx": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "libarchive/test_read_format_gtar_redundant_L.tar":
      "two GNU long names for one entry: the first, as GNU tar and bsdtar",
    "libarchive/test_read_format_tar_empty_with_gnulabel.tar":
      "a GNU volume label is no entry, as GNU tar and bsdtar",
    "libarchive/test_read_format_tar_empty_filename.tar":
      "an entry without a name is refused, as bsdtar refuses it",
    "libarchive/test_read_format_tar_pax_timestamps.tar":
      "a pax time with junk after its digits: them, as GNU tar and bsdtar",
    "libarchive/test_read_format_zip_mac_metadata.zip":
      "the old Info-ZIP Unix field's UTC time, as unzip and bsdtar",
    "libarchive/test_read_format_zip_msdos.zip":
      "MS-DOS directory attribute without a slash: a directory, as bsdtar",
    "libarchive/test_read_format_zip_filename_cp866.zip":
      "a name not UTF-8, made on Unix: its bytes, as bsdtar, unzip and 7z (Python: CP437)",
    "libarchive/test_read_format_zip_filename_koi8r.zip":
      "a name not UTF-8, made on Unix: its bytes, as bsdtar, unzip and 7z (Python: CP437)",
    "libarchive/test_read_format_zip_filename_utf8_ru2.zip":
      "a name not UTF-8, made on Unix: its bytes, as bsdtar, unzip and 7z (Python: CP437)",
    // Go's archive/tar and archive/zip test data.
    "testdata/gnu-incremental.tar":
      "a GNU header's time fields are no name prefix (Python reads one); a dumpdir is a directory",
    "testdata/invalid-go17.tar": "a GNU header's time fields are no name prefix, as GNU tar and bsdtar read it",
    "testdata/gnu-multi-hdrs.tar": "several GNU long names and long links: the last of each, as GNU tar, bsdtar and Go",
    "testdata/hdr-only.tar": "devices, FIFOs, duplicates and a link out of the package are refused (safety rules)",
    "testdata/pax-bad-hdr-file.tar": "a malformed pax record: refused, as Go; GNU tar and bsdtar fail too",
    "testdata/pax-nul-xattrs.tar": "a malformed pax record: refused, as Go; GNU tar and bsdtar fail too",
    "testdata/pax-bad-hdr-large.tar.bz2": "a pax header too large: refused, as Go and bsdtar",
    "testdata/pax-bad-mtime-file.tar": "a pax time with junk after its digits: them, as GNU tar and bsdtar",
    "testdata/pax-global-records.tar": "a pax global header's path names no entry, as Go and bsdtar",
    "testdata/pax-multi-hdrs.tar":
      "several pax headers: the last, as GNU tar, bsdtar and Go; a link out of the package",
    "testdata/pax-nul-path.tar": "a NUL in a pax path: refused, as Go (GNU tar and bsdtar cut the name there)",
    "testdata/pax-nil-sparse-data.tar": "a pax sparse 1.0 file's size is its real size, as GNU tar, bsdtar and Go",
    "testdata/pax-nil-sparse-hole.tar": "a pax sparse 1.0 file's size is its real size, as GNU tar, bsdtar and Go",
    "testdata/pax-sparse-big.tar": "a pax sparse 1.0 file's size is its real size, as GNU tar, bsdtar and Go",
    "testdata/test-baddirsz.zip": "a wrong directory size in the end record: read, as Go and Info-ZIP (issue 37)",
    "testdata/dupdir.zip": "a second entry of the same path is refused (safety rule)",
    "testdata/symlink.zip": "a link out of the package is refused (safety rule)",
    "testdata/time-osx.zip": "the old Info-ZIP Unix field's UTC time, as unzip, bsdtar and Go",
    "testdata/nil-uid.tar":
      "a GNU header's real-size field on a file that is not sparse: the size field, as the others",
    "testdata/time-7zip.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/time-winrar.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/time-winzip.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/utf8-7zip.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/utf8-winrar.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/utf8-winzip.zip": "a time only in the NTFS field: it, UTC, as Go (bsdtar: MS-DOS)",
    "testdata/winxp.zip": "a Windows read-only file: 0444, as unzip keeps it (bsdtar: 0664)",
    "testdata/zip64-2.zip": "an extended timestamp in the central directory only: it, as Go and unzip (bsdtar: MS-DOS)",
    "testdata/utf8-osx.zip": "the old Info-ZIP Unix field's UTC time, as unzip, bsdtar and Go",
    // Python's test suite.
    "test/ziptestdata/exe_with_z64":
      "an executable before a zip64 archive: read, as Python and Info-ZIP (bsdtar lists none)",
  ]

  /// How our listing of the entry at `path` of the archive `name` differs from another reader's: name, kind, size,
  /// mode, link target.
  private static func entryDifferences(
    _ name: String, _ ours: ArchiveListingEntry, _ theirs: Entry, at path: Data, reader: String
  ) -> [String] {
    let shown = String(decoding: path, as: UTF8.self).debugDescription
    var found: [String] = []
    if !sameName(ours.path, path) { found.append("\(name): \(shown) is \(ours.path.debugDescription) to us") }
    if ours.kind.rawValue != theirs.kind {
      found.append("\(name): \(shown) is a \(ours.kind) to us, a \(theirs.kind) to \(reader)")
    }
    if theirs.kind == "file", ours.size != theirs.size {
      found.append("\(name): \(shown) has \(ours.size ?? -1) bytes to us, \(theirs.size ?? -1) to \(reader)")
    }
    if let mode = theirs.mode, ours.mode & 0o7777 != mode {
      found.append("\(name): \(shown) has mode \(String(ours.mode, radix: 8)), \(String(mode, radix: 8)) to \(reader)")
    }
    if let target = theirs.target.flatMap({ Data(base64Encoded: $0) }), !sameName(ours.target, target) {
      let their = String(decoding: target, as: UTF8.self)
      found.append("\(name): \(shown) links to \(ours.target ?? "nothing") to us, \(their) to \(reader)")
    }
    return found
  }

  /// What we list differently from bsdtar's reading of an archive (``Listed/bsdtar_entries``): entries, names, kinds,
  /// sizes, modes and link targets; and times and file bytes where bsdtar's differ from Python's, which ours were
  /// compared with. Entries we refuse are left to the comparison with Python.
  private func bsdtarDifferences(_ expected: Listed) -> [String] {
    guard let theirs = expected.bsdtar_entries,
      let listed = try? ArchiveListing.entries(of: FilePath(expected.archive))
    else { return [] }
    let name = expected.label
    guard listed.count == theirs.count else {
      return ["\(name): we list \(listed.count) entries, bsdtar \(theirs.count)"]
    }
    let python = expected.entries.count == listed.count ? expected.entries : nil
    var found: [String] = []
    var theirModes: [Data: UInt32] = [:]
    for (index, (ours, bsdtar)) in zip(listed, theirs).enumerated() where ours.refused == nil {
      let path = Data(base64Encoded: bsdtar.path)!
      var bsdtar = bsdtar
      // A hard link has its target's mode (see `compare`).
      if bsdtar.kind == "hardlink", let target = bsdtar.target.flatMap({ Data(base64Encoded: $0) }) {
        bsdtar.mode = theirModes[target] ?? bsdtar.mode
      }
      theirModes[path] = bsdtar.mode
      found += Self.entryDifferences(name, ours, bsdtar, at: path, reader: "bsdtar")
      guard let python = python?[index] else { continue }
      let shown = String(decoding: path, as: UTF8.self).debugDescription
      if let time = bsdtar.mtime, let theirs = python.mtime, time != theirs {
        found.append("\(name): \(shown) has time \(time) to bsdtar, \(theirs) to Python and us")
      }
      if let bytes = bsdtar.fnv, let theirs = python.fnv, bytes != theirs {
        found.append("\(name): \(shown) has other bytes to bsdtar than to Python and us")
      }
    }
    return found
  }

  /// For an archive Python refuses: we refuse it too (the unpack fails) when bsdtar refuses it as well, and
  /// otherwise refuse it or list bsdtar's names.
  private func refusedOrListed(_ expected: Listed, in temp: TemporaryDirectory) -> [String] {
    let archive = expected.archive
    let name = expected.label
    guard let destination = try? temp.makeDirectory("unpacked-" + name.replacing("/", with: "_")) else {
      return ["\(name): no folder to unpack it in"]
    }
    guard (try? ArchiveUnpacker.unpack(FilePath(archive), into: FilePath(destination))) != nil else { return [] }
    guard let bsdtar = expected.bsdtar?.compactMap({ Data(base64Encoded: $0) }) else {
      return ["\(name): we unpack what Python (\(expected.python_error ?? "")) and bsdtar refuse"]
    }
    let ours = (try? ArchiveListing.entries(of: FilePath(archive)))?.map(\.path) ?? []
    if bsdtar.count != ours.count || !zip(ours, bsdtar).allSatisfy({ Self.sameName($0, $1) }) {
      return [
        "\(name): Python refuses it; we list \(ours), bsdtar \(bsdtar.map { String(decoding: $0, as: UTF8.self) })"
      ]
    }
    return []
  }

  /// What we read differently from Python in one archive, in words; with `temp`, unpacked there too.
  private func compare(_ expected: Listed, unpackingIn temp: TemporaryDirectory? = nil) throws -> [String] {
    let archive = expected.archive
    let name = expected.label
    let listed: [ArchiveListingEntry]
    do { listed = try ArchiveListing.entries(of: FilePath(archive)) } catch {
      return ["\(name): the listing throws \(error)"]
    }
    guard listed.count == expected.entries.count else {
      return ["\(name): we list \(listed.count) entries, Python \(expected.entries.count)"]
    }
    if let bsdtar = expected.bsdtar?.compactMap({ Data(base64Encoded: $0) }) {
      let ours = listed.map(\.path)
      if bsdtar.count != ours.count || !zip(ours, bsdtar).allSatisfy({ Self.sameName($0, $1) }) {
        return ["\(name): we list \(ours), bsdtar \(bsdtar.map { String(decoding: $0, as: UTF8.self) })"]
      }
    }
    var found: [String] = []
    // A hard link is one file under two names: it has its target's mode, as GNU tar and bsdtar unpack it (Python
    // applies the link's own mode to both names).
    var theirModes: [Data: UInt32] = [:]
    for (ours, theirs) in zip(listed, expected.entries) {
      let path = Data(base64Encoded: theirs.path)!
      var theirs = theirs
      if theirs.kind == "hardlink", let target = theirs.target.flatMap({ Data(base64Encoded: $0) }) {
        theirs.mode = theirModes[target] ?? theirs.mode
      }
      theirModes[path] = theirs.mode
      // A device or FIFO is refused by design (`unpack --skip-special` leaves it out): no difference in reading.
      if theirs.kind == "special", ours.kind == .special, ours.refused != nil { continue }
      if let refused = ours.refused {
        found.append("\(name): we refuse \(String(decoding: path, as: UTF8.self).debugDescription): \(refused)")
      }
      found += Self.entryDifferences(name, ours, theirs, at: path, reader: "Python")
    }
    guard found.isEmpty else { return found }
    // The tree read in place: each file's bytes. An archive with a device or FIFO is not opened in place (a safety
    // rule): its files' bytes are compared once unpacked with `skipSpecialFiles` below.
    let root: PackageNode
    guard !expected.entries.contains(where: { $0.kind == "special" }) else {
      return try temp.map { try unpacked(expected, listed, in: $0) } ?? found
    }
    do { root = try ArchivePackage.open(FilePath(archive), unwrappingSingleDirectory: false) } catch {
      return ["\(name): reading it in place throws \(error)"]
    }
    for (ours, theirs) in zip(listed, expected.entries) {
      guard let fnv = theirs.fnv else { continue }
      do {
        let node = try root.node(at: ours.path)
        let contents = try node.contents()
        if Self.hash(contents, like: fnv) != fnv {
          found.append("\(name): \(ours.path.debugDescription) reads other bytes")
        }
        if let mtime = theirs.mtime, node.modificationTime?.seconds != mtime {
          found.append(
            "\(name): \(ours.path.debugDescription) has time \(node.modificationTime?.seconds ?? -1), Python \(mtime)")
        }
      } catch {
        found.append("\(name): reading \(ours.path.debugDescription) in place throws \(error)")
      }
    }
    guard let temp else { return found }
    return try found + unpacked(expected, listed, in: temp)
  }

  /// What differs between Python's reading of an archive and what unpacking it in `temp` writes: what the listing
  /// shows is what is written.
  private func unpacked(_ expected: Listed, _ listed: [ArchiveListingEntry], in temp: TemporaryDirectory) throws
    -> [String]
  {
    let archive = expected.archive
    let name = expected.label
    var found: [String] = []
    let destination = try temp.makeDirectory("unpacked-" + name.replacing("/", with: "_"))
    // Test archives of sparse files are many MB of holes in a few KB, over the default ratio (holes count toward
    // the limits, as the files' length is what a user's tools see); what is compared here is what is written.
    let options = UnpackOptions(
      limits: UnpackLimits(maxCompressionRatio: .greatestFiniteMagnitude), skipSpecialFiles: true)
    do { try ArchiveUnpacker.unpack(FilePath(archive), into: FilePath(destination), options: options) } catch {
      return found + ["\(name): unpacking throws \(error)"]
    }
    for (ours, theirs) in zip(listed, expected.entries) {
      // A name that is not UTF-8 has no `String` path to open here (its bytes were read in place above).
      guard String(validating: EntryName.rawBytes(ours.path), as: UTF8.self) != nil else { continue }
      let written = destination + "/" + ours.path
      guard let fnv = theirs.fnv else {
        var isDirectory: ObjCBool = false
        if theirs.kind == "directory",
          !FileManager.default.fileExists(atPath: written, isDirectory: &isDirectory)
            || !isDirectory.boolValue
        {
          found.append("\(name): unpacking makes no directory \(ours.path.debugDescription)")
        }
        continue
      }
      guard let contents = FileManager.default.contents(atPath: written), Self.hash(contents, like: fnv) == fnv else {
        found.append("\(name): unpacking writes other bytes for \(ours.path.debugDescription)")
        continue
      }
      let date = try? FileManager.default.attributesOfItem(atPath: written)[.modificationDate] as? Date
      if let mtime = theirs.mtime, let date, Int64(date.timeIntervalSince1970.rounded(.down)) != mtime {
        found.append("\(name): unpacking gives \(ours.path.debugDescription) the time \(date), Python \(mtime)")
      }
    }
    return found
  }

  /// Whether our decoded name is the name Python read as `bytes`: under Unicode canonical equivalence where the
  /// bytes are UTF-8 (the model's rule: `é` precomposed and `e` + U+0301 are one entry), else byte for byte.
  private static func sameName(_ ours: String?, _ bytes: Data) -> Bool {
    guard let ours else { return false }
    // `./a` is `a`, the path it unpacks to (Python, bsdtar and GNU tar list the `./`).
    var bytes = bytes
    while bytes.count > 2, bytes.starts(with: Data("./".utf8)) { bytes = bytes.dropFirst(2) }
    if let text = String(validating: bytes, as: UTF8.self) { return ours == text }
    return Data(EntryName.rawBytes(ours)) == bytes
  }

  /// The hash `expected` is of: a CRC-32 after `crc32:`, else FNV-1a 64.
  private static func hash(_ data: Data, like expected: String) -> String {
    guard expected.hasPrefix("crc32:") else { return fnv(data) }
    let crc = data.withUnsafeBytes { crc32(0, $0) }
    let hex = String(crc, radix: 16)
    return "crc32:" + String(repeating: "0", count: 8 - hex.count) + hex
  }

  /// FNV-1a 64, as the generator computes it.
  private static func fnv(_ data: Data) -> String {
    var value: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in data { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
