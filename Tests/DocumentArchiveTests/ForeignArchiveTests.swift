import Foundation
import TestSupport
import Testing

/// Archives in shapes other tools write (`Tests/Scripts/make-foreign-archives.py`), read as GNU tar,
/// Go and Python read them; and names `pack` must either write so that `unpack` reads them back, or refuse.
@Suite("foreign archives")
struct ForeignArchiveTests {
  /// Makes the archives `names` (by stem) in a new folder of `temp`; returns its path.
  private func make(_ names: String..., in temp: TemporaryDirectory) throws -> String {
    let folder = try temp.makeDirectory("archives")
    try Shell.run("python3", [Fixtures.script("make-foreign-archives.py"), folder] + names)
    return folder
  }

  @Test("a GNU header with star's times where GNU keeps a sparse file's real size gives the size field's size")
  func gnuHeaderSizeField() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("gnu-star-times", in: temp) + "/gnu-star-times.tar"
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("14  └── P1050238.JPG.log"), "\(listing)")
    let bytes = try Shell.docpkgChecked(["cat", archive, "P1050238.JPG.log"]).standardOutput
    #expect(bytes == "44,44,POWERON\0")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    let size = try FileManager.default.attributesOfItem(atPath: destination + "/P1050238.JPG.log")[.size] as? Int
    #expect(size == 14)
  }

  @Test("several pax headers for one entry and no end blocks: the last header wins")
  func severalPaxHeaders() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("pax-several-headers", in: temp) + "/pax-several-headers.tar"
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("link -> pkg/target.txt"), "\(listing)")
  }

  @Test("a pax size with leading zeros is read as its number, as libarchive, GNU tar and Python read it")
  func paxSizeWithLeadingZeros() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("pax-size-zeros", in: temp) + "/pax-size-zeros.tar"
    #expect(try Shell.docpkgChecked(["cat", archive, "a.txt"]).standardOutput == "hello")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    #expect(try String(contentsOfFile: destination + "/pkg/a.txt", encoding: .utf8) == "hello")
  }

  @Test("a link target given by a pax header and a GNU long link, or by two pax headers, is read as GNU tar reads it")
  func linkTargetGivenSeveralWays() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("pax-link-several-ways", in: temp) + "/pax-link-several-ways.tar"
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("link -> target.txt"), "\(listing)")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: destination + "/pkg/link") == "target.txt")
    #expect(try String(contentsOfFile: destination + "/pkg/hard", encoding: .utf8) == "x")
  }

  @Test("a star tar whose file has a POSIX ACL lists and unpacks with its header's mode, as GNU tar and Python")
  func modeUnderAnACL() throws {
    // libarchive's own test archive: file2's ACL has group::r-- and mask::rwx, its header mode 0573.
    let archive = Fixtures.repositoryRoot.appendingPathComponent(
      "Tests/Corpora/libarchive/test_compat_star_acl_posix1e.tar"
    ).path
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("file      0573               0  └── file2"), "\(listing)")
    let temp = try TemporaryDirectory()
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    let mode = try FileManager.default.attributesOfItem(atPath: destination + "/file2")[.posixPermissions] as? Int
    #expect(mode == 0o573)
  }

  @Test("devices and FIFOs are listed, each marked refused")
  func devicesListed() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("devices", in: temp) + "/devices.tar"
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("pkg/sda  [refused: it is a block device"), "\(listing)")
    #expect(listing.contains("pkg/null  [refused: it is a character device"), "\(listing)")
    #expect(listing.contains("pkg/pipe  [refused: it is a FIFO"), "\(listing)")
    #expect(listing.contains("3 refused"))
  }

  @Test("entries 70 and 1,500 directories deep unpack, list and read", arguments: ["deep-70", "deep-1500"])
  func deepEntries(_ stem: String) throws {
    let temp = try TemporaryDirectory()
    let archive = try make(stem, in: temp) + "/\(stem).tar"
    let depth = Int(stem.split(separator: "-")[1])!
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    let file = destination + "/" + String(repeating: "a/", count: depth) + "f"
    #expect(FileManager.default.contents(atPath: file) == Data("x".utf8))
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains("1 file, \((depth - 1).formatted()) directories"), "\(listing.suffix(200))")
    let path = String(repeating: "a/", count: depth - 1) + "f"
    #expect(try Shell.docpkgChecked(["cat", archive, path]).standardOutput == "x")
  }

  @Test("a Windows zip's NTFS and extended timestamps give the real times, and its read-only attribute is kept")
  func windowsZipTimes() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("windows-times", in: temp) + "/windows-times.zip"
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    func attributes(_ name: String) throws -> [FileAttributeKey: Any] {
      try FileManager.default.attributesOfItem(atPath: destination + "/pkg/" + name)
    }
    let mtime = 1_365_454_838.0
    let ntfs = try attributes("ntfs.txt")[.modificationDate] as! Date
    #expect(abs(ntfs.timeIntervalSince1970 - (mtime + 0.1234567)) < 0.000_001)
    #expect((try attributes("extended.txt")[.modificationDate] as! Date).timeIntervalSince1970 == mtime)
    // The MS-DOS time alone is the writer's local time (UTC+9 here): nothing says otherwise.
    #expect((try attributes("dos.txt")[.modificationDate] as! Date).timeIntervalSince1970 == mtime + 9 * 3600)
    #expect((try attributes("read-only.txt")[.posixPermissions] as! Int) & 0o222 == 0)
    #expect((try attributes("extended.txt")[.posixPermissions] as! Int) & 0o200 != 0)
    // Made on NTFS or VFAT (Windows XP's zip): the read-only attribute is kept too, as unzip keeps it.
    #expect((try attributes("read-only-ntfs.txt")[.posixPermissions] as! Int) & 0o222 == 0)
    #expect((try attributes("read-only-vfat.txt")[.posixPermissions] as! Int) & 0o222 == 0)
    // A folder's read-only attribute (Explorer's mark of a customized folder) is not a mode.
    #expect((try attributes("customized")[.posixPermissions] as! Int) & 0o200 != 0)
    // An extended timestamp in the central directory only: its UTC time, not the local header's MS-DOS time.
    #expect((try attributes("central-time.txt")[.modificationDate] as! Date).timeIntervalSince1970 == mtime)
    let listing = try Shell.docpkgChecked(["inspect", archive, "--json"]).standardOutput
    #expect(listing.contains(#""kind":"file","mode":"0444","path":"read-only-vfat.txt","size":1"#), "\(listing)")
  }

  @Test("a Solaris sparse file (pax SUN.holesdata) lists, reads and unpacks as Python and bsdtar read it")
  func solarisSparseFile() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("solaris-sparse", in: temp) + "/solaris-sparse.tar"
    let holes =
      Data(repeating: UInt8(ascii: "a"), count: 512) + Data(count: 512)
      + Data(repeating: UInt8(ascii: "c"), count: 512)
    let listing = try Shell.docpkgChecked(["inspect", archive, "--json"]).standardOutput
    #expect(listing.contains(#""path":"hole","size":1536}"#), "\(listing)")
    #expect(listing.contains(#""path":"after.txt","size":6}"#), "\(listing)")
    #expect(try Shell.docpkgChecked(["cat", archive, "hole"]).standardOutput == String(decoding: holes, as: UTF8.self))
    #expect(try Shell.docpkgChecked(["cat", archive, "after.txt"]).standardOutput == "after\n")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    #expect(FileManager.default.contents(atPath: destination + "/pkg/hole") == holes)
    #expect(FileManager.default.contents(atPath: destination + "/pkg/after.txt") == Data("after\n".utf8))
    let diff = try Shell.docpkg(["diff", archive, destination + "/pkg"])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
  }

  @Test("a stored zip entry that states 4 GiB more than its 5 bytes lists, reads and unpacks as those 5 bytes")
  func storedSizeOffBy4GiB() throws {
    let temp = try TemporaryDirectory()
    let archive = try make("stored-size-off-by-4gib", in: temp) + "/stored-size-off-by-4gib.zip"
    let listing = try Shell.docpkgChecked(["inspect", archive, "--json"]).standardOutput
    #expect(listing.contains(#""kind":"file","mode":"0644","path":"hello.txt","size":5}"#), "\(listing)")
    #expect(try Shell.docpkgChecked(["cat", archive, "hello.txt"]).standardOutput == "hello")
    #expect(try Shell.docpkgChecked(["cat", archive, "b.txt"]).standardOutput == "bee\n")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", destination])
    #expect(FileManager.default.contents(atPath: destination + "/pkg/hello.txt") == Data("hello".utf8))
    #expect(FileManager.default.contents(atPath: destination + "/pkg/b.txt") == Data("bee\n".utf8))
    let diff = try Shell.docpkg(["diff", archive, destination + "/pkg"])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
    // Those bytes must still have the CRC-32 the entry states.
    let damaged = try make("stored-size-off-by-4gib-bad-crc", in: temp) + "/stored-size-off-by-4gib-bad-crc.zip"
    let cat = try Shell.docpkg(["cat", damaged, "hello.txt"])
    #expect(cat.status == 1 && cat.standardError.contains("CRC"), "\(cat.standardError)")
    let unpack = try Shell.docpkg(["unpack", damaged, "-o", try temp.makeDirectory("damaged")])
    #expect(unpack.status == 1 && unpack.standardError.contains("'pkg/hello.txt'"), "\(unpack.standardError)")
  }

  /// A name unpack would refuse is left out, named on one line, and the rest packed: zip and bsdtar pack every
  /// file, and a user packing a folder of thousands expects the archive, not one failure for one name (issue 37, F13).
  @Test("pack leaves out a name unpack would refuse, naming it, and packs the rest")
  func packSkipsUnreadableNames() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("Red.mydoc/red\u{1B}[31m.txt", "x")
    _ = try temp.write("Red.mydoc/Bad\u{7}/inside.txt", "y")
    _ = try temp.write("Red.mydoc/good.txt", "g")
    for output in ["red.tar", "red.zip"] {
      let result = try Shell.docpkg(["pack", temp.appending("Red.mydoc"), "-o", temp.appending(output), "--quiet"])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(
        result.standardError
          == "docpkg: skipped 'Red.mydoc/Bad\\u{7}': its name has control characters (not packed: unpack would refuse it)\n"
          + "docpkg: skipped 'Red.mydoc/red\\u{1B}[31m.txt': its name has control characters (not packed: unpack would "
          + "refuse it)\n")
      let listing = try Shell.docpkg(["inspect", temp.appending(output)])
      #expect(listing.status == 0, "\(listing.standardError)")
      #expect(listing.standardOutput.contains("good.txt") && !listing.standardOutput.contains("red"))
      #expect(!listing.standardOutput.contains("inside"), "\(listing.standardOutput)")
    }
  }

  @Test("a tar keeps modification times to the nanosecond (pax mtime), and plain ustar headers where there are none")
  func nanosecondsInTar() throws {
    let temp = try TemporaryDirectory()
    let file = try temp.write("Times.mydoc/fine.txt", "f")
    let whole = try temp.write("Times.mydoc/whole.txt", "w")
    try Shell.run("touch", ["-d", "2024-01-02 03:04:05.123456789", file], environment: ["TZ": "UTC"])
    try Shell.run("touch", ["-d", "2024-01-02 03:04:05", whole], environment: ["TZ": "UTC"])
    try Shell.docpkgChecked(["pack", temp.appending("Times.mydoc"), "-o", temp.appending("times.tar")])
    let headers = try Shell.run(
      "python3",
      [
        "-c", "import tarfile,sys; [print(m.name, m.pax_headers.get('mtime')) for m in tarfile.open(sys.argv[1])]",
        temp.appending("times.tar"),
      ]
    ).standardOutput
    #expect(headers.contains("Times.mydoc/fine.txt 1704164645.123456789"), "\(headers)")
    #expect(headers.contains("Times.mydoc/whole.txt None"), "\(headers)")
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", temp.appending("times.tar"), "-o", destination])
    let stamp = try Shell.run("stat", ["-c", "%y", destination + "/Times.mydoc/fine.txt"], environment: ["TZ": "UTC"])
      .standardOutput
    #expect(stamp.contains("03:04:05.123456789"), "\(stamp)")
  }

  @Test("a name that is not UTF-8 keeps its bytes through a tar, and a zip refuses it")
  func nonUTF8Names() throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Latin.mydoc")
    _ = try temp.write("Latin.mydoc/a.txt", "a")
    // caf\xE9.txt: Latin-1, not UTF-8 (Foundation's paths are strings, so Python makes it).
    try Shell.run(
      "python3", ["-c", "import sys; open(sys.argv[1].encode() + b'/caf\\xe9.txt', 'wb').write(b'e')", package])
    try Shell.docpkgChecked(["pack", package, "-o", temp.appending("latin.tar")])
    let destination = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", temp.appending("latin.tar"), "-o", destination])
    let names = try Shell.run(
      "python3", ["-c", "import os,sys; print(sorted(os.listdir(sys.argv[1].encode())))", destination + "/Latin.mydoc"]
    ).standardOutput
    #expect(names.contains("b'caf\\xe9.txt'"), "\(names)")
    let zip = try Shell.docpkg(["pack", package, "-o", temp.appending("latin.zip")])
    #expect(zip.status == 1)
    #expect(zip.standardError.contains("its name is not UTF-8, which a zip cannot hold"), "\(zip.standardError)")
    #expect(!FileManager.default.fileExists(atPath: temp.appending("latin.zip")))
  }
}
