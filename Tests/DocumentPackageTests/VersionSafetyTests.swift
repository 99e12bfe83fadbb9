import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Saved versions survive programs that write package files in place (`>>`, `dd conv=notrunc`,
/// a write through `mmap`), on each kind of file system the store copies to in its own way:
/// ext4 and tmpfs (a copy), xfs (a reflink clone, on a loop-mounted image).
@Suite("Versions survive in-place writes")
struct VersionSafetyTests {
  /// The ways a program writes a file in place, as shell commands on `$1`.
  static let writes: [(name: String, command: String)] = [
    ("append", "echo more >> \"$1\""),
    ("dd conv=notrunc", "printf 'XXXX' | dd of=\"$1\" bs=1 seek=1 conv=notrunc status=none"),
    (
      "mmap",
      "python3 -c 'import mmap,sys; f=open(sys.argv[1],\"r+b\"); m=mmap.mmap(f.fileno(),0); m[0:3]=b\"MAP\"; m.flush()' \"$1\""
    ),
  ]

  @Test func versionsKeepTheirBytesAfterInPlaceWritesInTheTempFolder() throws {
    try versionsKeepTheirBytesAfterInPlaceWrites(.temporaryFolder)
  }

  @Test(
    .enabled(if: getuid() == 0, "mounting a tmpfs or an xfs image needs root"), arguments: [FileSystemKind.tmpfs, .xfs])
  func versionsKeepTheirBytesAfterInPlaceWrites(on kind: FileSystemKind) throws {
    try versionsKeepTheirBytesAfterInPlaceWrites(kind)
  }

  func versionsKeepTheirBytesAfterInPlaceWrites(_ kind: FileSystemKind) throws {
    let place = try TestFileSystem(kind)
    guard let root = place.root else { return }
    for (index, write) in Self.writes.enumerated() {
      let package = root + "/N\(index).mydoc"
      try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
      try Data("first notes\n".utf8).write(to: URL(fileURLWithPath: package + "/Notes.txt"))
      try Data("big\n".utf8).write(to: URL(fileURLWithPath: package + "/Other.txt"))
      // Two saves: versions 1 and 2 both hold Notes.txt as it is now.
      for text in ["a", "b"] {
        let file = try PackageFile(at: FilePath(package))
        try file.root.setFile(at: "Page.txt", contents: Data(text.utf8))
        try file.save()
      }
      try Shell.run("/bin/sh", ["-c", write.command, "sh", package + "/Notes.txt"])
      let changed = try Data(contentsOf: URL(fileURLWithPath: package + "/Notes.txt"))
      #expect(changed != Data("first notes\n".utf8), "\(write.name) did not write")

      let store = try VersionStore(forPackageAt: FilePath(package))
      for id in [1, 2] {
        #expect(
          try store.tree(of: id).node(at: "Notes.txt").contents() == Data("first notes\n".utf8),
          "\(kind) \(write.name): version \(id)")
      }
      let cat = try Shell.docpkg(["cat", package + "@2", "Notes.txt"])
      #expect(cat.status == 0 && cat.standardOutput == "first notes\n", "\(kind) \(write.name): \(cat.standardError)")
      let check = try Shell.docpkg(["check", package])
      #expect(check.status == 0, "\(kind) \(write.name): \(check.standardOutput) \(check.standardError)")
      #expect(check.standardOutput.contains("ok: 2 versions"))

      let restore = try Shell.docpkg(["versions", "restore", package, "2"])
      #expect(restore.status == 0, "\(kind) \(write.name): \(restore.standardError)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: package + "/Notes.txt")) == Data("first notes\n".utf8))
      // The restored file is not the blob: writing it in place leaves the version alone.
      try Shell.run("/bin/sh", ["-c", write.command, "sh", package + "/Notes.txt"])
      #expect(try store.tree(of: 2).node(at: "Notes.txt").contents() == Data("first notes\n".utf8))
      // The state the restore replaced (with the in-place write) is a version of its own.
      #expect(try store.tree(of: 3).node(at: "Notes.txt").contents() == changed)
    }
  }

  @Test func blobsShareNoInodeWithThePackage() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("P.mydoc")
    try temp.write("P.mydoc/a.txt", "a\n")
    let file = try PackageFile(at: FilePath(package))
    try file.root.setFile(at: "b.txt", contents: Data("b\n".utf8))
    try file.save()
    let store = try file.versionStore()
    for name in try FileManager.default.subpathsOfDirectory(atPath: store.path.string + "/objects") where name.count > 3
    {
      let attributes = try FileManager.default.attributesOfItem(atPath: store.path.string + "/objects/" + name)
      #expect((attributes[.referenceCount] as? Int) == 1, "\(name)")
    }
  }

  @Test func checkNamesDamagedVersionsAndFails() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("D.mydoc")
    try temp.write("D.mydoc/a.txt", "alpha\n")
    try temp.write("D.mydoc/b.txt", "beta\n")
    for text in ["1", "2"] {
      let file = try PackageFile(at: FilePath(package))
      try file.root.setFile(at: "c.txt", contents: Data(text.utf8))
      try file.save()
    }
    #expect(try Shell.docpkg(["check", package]).standardOutput.contains("ok: 2 versions"))
    // Damage the blob of a.txt inside the store itself, keeping its size and time.
    let store = try VersionStore(forPackageAt: FilePath(package))
    let blob = try Self.blobPath(of: "a.txt", version: 1, in: store)
    let reference = temp.appending("time-reference")
    try Shell.run("/usr/bin/touch", ["-r", blob, reference])
    try Shell.run("/bin/chmod", ["u+w", blob])
    try Shell.run("/bin/sh", ["-c", "printf 'ALPHA' | dd of=\"$1\" conv=notrunc status=none", "sh", blob])
    try Shell.run("/usr/bin/touch", ["-r", reference, blob])  // to the nanosecond

    // Size and time unchanged, but the change time moved: even the quick check reads it again
    // (issue 35: its cache of verified blobs compares the change time too).
    let quick = try Shell.docpkg(["check", package])
    #expect(quick.status == 1, "\(quick.standardOutput)")
    #expect(quick.standardOutput.contains("damaged: version 1: a.txt: blob"), "\(quick.standardOutput)")
    let full = try Shell.docpkg(["check", package, "--full"])
    #expect(full.status == 1)
    #expect(full.standardOutput.contains("damaged: version 1: a.txt: blob"), "\(full.standardOutput)")
    #expect(full.standardOutput.contains("damaged: version 2: a.txt: blob"), "\(full.standardOutput)")
    #expect(full.standardError.hasPrefix("docpkg: error: 2 of 2 versions damaged (1, 2) in"), "\(full.standardError)")
    // A changed time is seen without --full; reading the version fails before printing a byte.
    try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: blob)
    #expect(try Shell.docpkg(["check", package]).status == 1)
    let cat = try Shell.docpkg(["cat", package + "@1", "a.txt"])
    #expect(cat.status == 1 && cat.stdout.isEmpty)
  }

  @Test func aBlobLinkedToAPackageFileByAnOlderReleaseIsReplacedByACopy() throws {
    let temp = try TemporaryDirectory()
    let package = temp.appending("L.mydoc")
    try temp.write("L.mydoc/a.txt", "alpha\n")
    let file = try PackageFile(at: FilePath(package))
    try file.root.setFile(at: "c.txt", contents: Data("1".utf8))
    try file.save()
    // As an older release kept it: the blob is a hard link of the package's a.txt.
    let store = try file.versionStore()
    let blob = try Self.blobPath(of: "a.txt", version: 1, in: store)
    try FileManager.default.removeItem(atPath: blob)
    try FileManager.default.linkItem(atPath: package + "/a.txt", toPath: blob)
    try file.root.setFile(at: "c.txt", contents: Data("2".utf8))
    try file.save()
    let links = try FileManager.default.attributesOfItem(atPath: blob)[.referenceCount] as? Int
    #expect(links == 1)
    try Shell.run("/bin/sh", ["-c", "echo more >> \"$1\"", "sh", package + "/a.txt"])
    #expect(try store.tree(of: 1).node(at: "a.txt").contents() == Data("alpha\n".utf8))
  }

  static func blobPath(of entry: String, version: Int, in store: VersionStore) throws -> String {
    let node = try store.tree(of: version).node(at: entry)
    let hash = try Self.sha256(node.contents())
    return store.path.string + "/objects/" + hash.prefix(2) + "/" + hash.dropFirst(2)
  }

  static func sha256(_ data: Data) throws -> String {
    let output = try Shell.run("/usr/bin/sha256sum", [], input: data)
    return String(output.standardOutput.prefix(64))
  }
}

/// Where a test's packages live: the machine's temp folder (ext4 here), a tmpfs, or a
/// loop-mounted xfs image (reflinks; needs root and mkfs.xfs, else the test says why it skips).
enum FileSystemKind: String, CaseIterable, CustomStringConvertible {
  case temporaryFolder, tmpfs, xfs
  var description: String { rawValue }
}

/// A folder on one ``FileSystemKind``, removed (and unmounted) when dropped.
final class TestFileSystem {
  let temp: TemporaryDirectory
  private(set) var root: String?
  private var mounted: String?

  init(_ kind: FileSystemKind) throws {
    temp = try TemporaryDirectory("fs")
    switch kind {
    case .temporaryFolder:
      root = temp.path
    case .tmpfs, .xfs:
      let point = temp.appending("mnt")
      try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: false)
      if kind == .tmpfs {
        try Shell.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", point])
      } else {
        guard let mkfs = ["/usr/sbin/mkfs.xfs", "/sbin/mkfs.xfs"].first(where: FileManager.default.fileExists) else {
          print("skipped xfs: mkfs.xfs is not installed (Scripts/setup.sh installs xfsprogs)")
          return
        }
        let image = temp.appending("xfs.img")
        try Shell.run("/usr/bin/truncate", ["-s", "320M", image])
        try Shell.run(mkfs, ["-q", "-f", image])
        let mount = try Shell.run("/bin/mount", ["-o", "loop", image, point], check: false)
        guard mount.status == 0 else {
          print("skipped xfs: cannot loop-mount an image here: \(mount.standardError)")
          return
        }
      }
      mounted = point
      root = point
    }
  }

  deinit {
    if let mounted { _ = try? Shell.run("/bin/umount", [mounted], check: false) }
  }
}
