import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 10: entry names from archives other tools wrote (fixtures made by Scripts/make-name-fixtures.py).
@Suite("entry names: zip CP437 and Unicode Path, tar bytes")
struct NameDecodingTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var fixture: String
    /// What `inspect` shows, one line per entry (kind and name, escaped).
    var shown: [String]
    /// The files `unpack` creates, as bytes written in Python's notation.
    var files: String
    var testDescription: String { fixture }
  }

  static let cases: [Case] = [
    Case(
      fixture: "names-cp437.zip", shown: ["Résumé/", "naïve.txt"],
      files: #"[b'R\xc3\xa9sum\xc3\xa9/na\xc3\xafve.txt']"#),
    Case(
      fixture: "names-utf8-flag.zip", shown: ["Résumé/", "naïve.txt"],
      files: #"[b'R\xc3\xa9sum\xc3\xa9/na\xc3\xafve.txt']"#),
    Case(
      fixture: "names-unicode-path.zip", shown: ["Ünïcödé ✓.txt"],
      files: #"[b'\xc3\x9cn\xc3\xafc\xc3\xb6d\xc3\xa9 \xe2\x9c\x93.txt']"#),
    Case(fixture: "names-unicode-path-bad-crc.zip", shown: ["Ab.txt"], files: "[b'Ab.txt']"),
    Case(fixture: "names-latin1.tar", shown: [#"caf\xE9/"#, #"cr\xE8me.txt"#], files: #"[b'caf\xe9/cr\xe8me.txt']"#),
    // Made on Unix, not UTF-8, no flag: the bytes, as unzip, bsdtar and 7z write them (Python alone reads CP437).
    Case(
      fixture: "names-latin1-unix.zip", shown: [#"caf\xE9/"#, #"cr\xE8me.txt"#],
      files: #"[b'caf\xe9/cr\xe8me.txt']"#),
  ]

  @Test(
    "a Latin-1 name zipped on Linux by Info-ZIP unpacks with its bytes, as unzip writes it, and diff finds no change",
    .enabled(if: Shell.has("zip") && Shell.has("unzip")))
  func latin1ZipFromLinux() throws {
    let temp = try TemporaryDirectory()
    let setup = #"import os; os.makedirs(b'L.pkg'); open(b'L.pkg/caf\xe9', 'wb').write(b'x\n')"#
    try Shell.run("python3", ["-c", setup], directory: temp.path)
    try Shell.run("zip", ["-qr", "L.zip", "L.pkg"], directory: temp.path)
    let diff = try Shell.docpkg(["diff", temp.appending("L.zip"), temp.appending("L.pkg")])
    #expect(diff.status == 0, "\(diff.standardOutput)\(diff.standardError)")
    let listing = try Shell.docpkgChecked(["inspect", temp.appending("L.zip")]).standardOutput
    #expect(listing.contains(#"caf\xE9"#), "\(listing)")
    try Shell.docpkgChecked(["unpack", temp.appending("L.zip"), "-o", temp.appending("u"), "--quiet"])
    try Shell.run("unzip", ["-q", "-d", "z", "L.zip"], directory: temp.path)
    let list = #"import os, sys; print(sorted(os.listdir(os.path.join(os.fsencode(sys.argv[1]), b'L.pkg'))))"#
    let ours = try Shell.run("python3", ["-c", list, "u"], directory: temp.path).standardOutput
    let unzips = try Shell.run("python3", ["-c", list, "z"], directory: temp.path).standardOutput
    #expect(ours == #"[b'caf\xe9']"# + "\n")
    #expect(ours == unzips)
  }

  @Test("inspect lists the decoded names (raw tar bytes as \\xNN) and unpack creates them", arguments: cases)
  func decoded(_ test: Case) throws {
    let temp = try TemporaryDirectory()
    let archive = Fixtures.url(test.fixture).path
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    for name in test.shown { #expect(listing.contains(name), "\(listing)") }
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    let list =
      "import os; print(sorted(os.path.relpath(os.path.join(d, f), b'.') for d, _, fs in os.walk(b'.') for f in fs))"
    let files = try Shell.run("python3", ["-c", list], directory: out).standardOutput
    #expect(files == test.files + "\n")
  }

  @Test(
    "inspect --json escapes a name's bytes that are not UTF-8 as \\xNN, as the text listing does, never replacing them")
  func jsonEscapesRawBytes() throws {
    let json = try Shell.docpkgChecked(["inspect", Fixtures.url("names-latin1.tar").path, "--json"]).standardOutput
    #expect(json.contains(#"{"kind":"file","mode":"0644","path":"cr\\xE8me.txt""#), "\(json)")
    #expect(!json.contains("\u{FFFD}") && !json.contains("\u{F7E8}"))
  }

  @Test("a symbolic link whose target is not UTF-8 is unpacked with its bytes, and listed as \\xNN by inspect")
  func nonUTF8LinkTargetKept() throws {
    let temp = try TemporaryDirectory()
    let archive = try makeHostileArchives("non-utf8-link", in: temp) + "/non-utf8-link.tar"
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    let link = try Shell.run("python3", ["-c", "import os; print(os.readlink(b'pkg/link'))"], directory: out)
    #expect(link.standardOutput == #"b'caf\xe9.txt'"# + "\n")
    let listing = try Shell.docpkgChecked(["inspect", archive]).standardOutput
    #expect(listing.contains(#"8  └── link -> caf\xE9.txt"# + "\n") && !listing.contains("refused"), "\(listing)")
    let json = try Shell.docpkgChecked(["inspect", archive, "--json"]).standardOutput
    #expect(json.contains(#""target":"caf\\xE9.txt""#), "\(json)")
  }

  @Test(
    "a name that is NFD on disk (e + U+0301) is stored as its bytes by pack, link target too, and unpacked so",
    arguments: ["tar", "tar.gz", "zip"])
  func decomposedNameKeepsItsBytes(format: String) throws {
    let temp = try TemporaryDirectory()
    try temp.write("N.mydoc/keep.txt", "x\n")
    // The bytes as macOS and some tools write them; Linux keeps them as given.
    let make = """
      import os, sys
      d = sys.argv[1].encode() + b'/N.mydoc/'
      open(d + b'e\\xcc\\x81.txt', 'wb').write(b'e\\n')
      os.symlink(b'e\\xcc\\x81.txt', d + b'link')
      """
    try Shell.run("python3", ["-c", make, temp.path])
    let archive = temp.appending("N.\(format)")
    try Shell.docpkgChecked(["pack", temp.appending("N.mydoc"), "-o", archive])
    // Each entry's name and link target as bytes (a zip's link target is its data).
    let read =
      format == "zip"
      ? """
      import sys, zipfile
      z = zipfile.ZipFile(sys.argv[1])
      print(sorted((i.filename.encode(), z.read(i) if i.external_attr >> 28 == 0xA else b'') for i in z.infolist()))
      """
      : """
      import sys, tarfile
      t = tarfile.open(sys.argv[1])
      print(sorted((m.name.encode('utf-8', 'surrogateescape'), m.linkname.encode()) for m in t))
      """
    let names = try Shell.run("python3", ["-c", read, archive]).standardOutput
    #expect(names.contains(#"b'N.mydoc/e\xcc\x81.txt'"#), "\(names)")
    #expect(names.contains(#"(b'N.mydoc/link', b'e\xcc\x81.txt')"#), "\(names)")
    #expect(!names.contains(#"\xc3\xa9"#), "\(names)")
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    let list = """
      import os
      print(sorted(os.listdir(b'N.mydoc')), os.readlink(b'N.mydoc/link'))
      """
    let files = try Shell.run("python3", ["-c", list], directory: out).standardOutput
    #expect(files == #"[b'e\xcc\x81.txt', b'keep.txt', b'link'] b'e\xcc\x81.txt'"# + "\n")
  }

  @Test(
    "pack keeps a symbolic link whose destination is not UTF-8 byte for byte, and unpack makes it so",
    arguments: ["tar", "zip"])
  func packKeepsNonUTF8LinkTarget(format: String) throws {
    let temp = try TemporaryDirectory()
    try temp.write("N.mydoc/a.txt", "x\n")
    try Shell.run("sh", ["-c", #"ln -s "$(printf 'caf\351.txt')" "$1/N.mydoc/link""#, "sh", temp.path])
    let archive = temp.appending("N.\(format)")
    let result = try Shell.docpkg(["pack", temp.appending("N.mydoc"), "-o", archive])
    #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
    let out = try temp.makeDirectory("out")
    try Shell.docpkgChecked(["unpack", archive, "-o", out, "--quiet"])
    let link = try Shell.run("python3", ["-c", "import os; print(os.readlink(b'N.mydoc/link'))"], directory: out)
    #expect(link.standardOutput == #"b'caf\xe9.txt'"# + "\n")
    if format == "tar" {  // another reader finds the same bytes
      let read =
        "import sys, tarfile; print([m.linkname.encode('utf-8', 'surrogateescape') for m in tarfile.open(sys.argv[1]) if m.issym()])"
      #expect(try Shell.run("python3", ["-c", read, archive]).standardOutput == #"[b'caf\xe9.txt']"# + "\n")
    }
  }

  @Test("reading and writing non-ASCII names leaves the process's locale as the app set it")
  func processLocaleUntouched() throws {
    let before = String(cString: setlocale(LC_CTYPE, nil))
    let temp = try TemporaryDirectory()
    let archive = temp.appending("accents.tar")
    try Shell.run(
      "python3",
      [
        "-c",
        "import io,sys,tarfile; t=tarfile.open(sys.argv[1],'w',format=tarfile.PAX_FORMAT); "
          + "i=tarfile.TarInfo('pkg/caf\u{E9}.txt'); i.size=1; t.addfile(i, io.BytesIO(b'x')); t.close()",
        archive,
      ])
    let package = try ArchivePackage.open(FilePath(archive))
    #expect(try package.children().keys.sorted() == ["caf\u{E9}.txt"])
    try ArchivePacker.pack(package, to: FilePath(temp.appending("again.tar")), options: PackOptions(format: .tar))
    #expect(String(cString: setlocale(LC_CTYPE, nil)) == before)
  }

  @Test("a Latin-1 tar read in place has the names the bytes give, and the files their bytes")
  func latin1InPlace() throws {
    let folder = try ArchivePackage.open(FilePath(Fixtures.url("names-latin1.tar").path))
    #expect(folder.name.escapingControlCharacters == #"caf\xE9"#)
    let children = try folder.children()
    #expect(children.keys.map(\.escapingControlCharacters) == [#"cr\xE8me.txt"#])
    #expect(try children.values.first?.contents() == Data("latin1\n".utf8))
  }
}
