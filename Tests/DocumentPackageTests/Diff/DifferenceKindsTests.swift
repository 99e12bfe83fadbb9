import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("PackageDifference: change kinds")
struct DifferenceKindsTests {
  @Test func identicalTreesHaveNoChanges() throws {
    let old = try DiffTrees.make(["a.txt": "one", "dir/b.txt": "two", "link": "->a.txt", "empty/": ""])
    let new = try DiffTrees.make(["a.txt": "one", "dir/b.txt": "two", "link": "->a.txt", "empty/": ""])
    let difference = try new.difference(from: old)
    #expect(difference.isEmpty)
    #expect(difference.count == 0)
  }

  @Test func addedDeletedModifiedInWalkOrder() throws {
    let old = try DiffTrees.make(["a.txt": "same", "b.txt": "before", "c.txt": "size one", "gone/x.txt": "x1"])
    let new = try DiffTrees.make(["a.txt": "same", "b.txt": "BEFORE", "c.txt": "size two!", "new/y.txt": "y222"])
    let difference = try new.difference(from: old)
    #expect(DiffTrees.lines(difference) == ["M b.txt", "M c.txt", "D gone", "D gone/x.txt", "A new", "A new/y.txt"])
    let modified = difference.first { $0.path == "c.txt" }!
    #expect(modified.details == .contents)
    #expect(modified.old?.size == 8 && modified.new?.size == 9)
    #expect(difference.counts == [.modified: 2, .deleted: 2, .added: 2])
  }

  @Test func modeLinkAndTypeChanges() throws {
    let old = try DiffTrees.make(["run.sh": "#!/bin/sh\n", "link": "->a", "f2d": "file", "d2l/x": "x", "l2f": "->x"])
    let new = try DiffTrees.make([
      "run.sh": "#!/bin/sh\n", "link": "->b", "f2d/inner": "i", "d2l": "->x", "l2f": "file",
    ])
    try new.node(at: "run.sh").permissions = FilePermissions(rawValue: 0o755)
    let difference = try new.difference(from: old)
    #expect(DiffTrees.lines(difference) == ["T d2l", "D d2l/x", "T f2d", "A f2d/inner", "T l2f", "M link", "M run.sh"])
    #expect(difference.first { $0.path == "link" }?.details == .symbolicLinkDestination)
    #expect(difference.first { $0.path == "run.sh" }?.details == .permissions)
    let typeChange = difference.first { $0.path == "f2d" }!
    #expect(typeChange.old?.kind == .file && typeChange.new?.kind == .directory)
  }

  @Test func modificationTimesOnlyWhenAsked() throws {
    let old = try DiffTrees.make(["a.txt": "same"])
    let new = try DiffTrees.make(["a.txt": "same"])
    try old.node(at: "a.txt").modificationTime = FileTime(seconds: 1_000)
    try new.node(at: "a.txt").modificationTime = FileTime(seconds: 2_000)
    #expect(try new.difference(from: old).isEmpty)
    var options = PackageDifference.Options()
    options.comparesModificationTimes = true
    let difference = try new.difference(from: old, options: options)
    #expect(DiffTrees.lines(difference) == ["M a.txt"])
    #expect(difference[0].details == .modificationTime)
  }

  @Test func sameSizeEditsOnDiskAreFoundAndCopiesAreEqual() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    try Shell.run("/bin/cp", ["-a", package, temp.appending("copy.mydoc")])
    let old = try PackageNode(contentsOf: FilePath(package))
    var times = PackageDifference.Options()
    times.comparesModificationTimes = true  // cp -a keeps times
    #expect(
      try PackageNode(contentsOf: FilePath(temp.appending("copy.mydoc"))).difference(from: old, options: times).isEmpty)

    let text = try String(contentsOfFile: temp.appending("copy.mydoc/Text.txt"), encoding: .utf8)
    let flipped = String(text.dropLast()) + (text.last == "X" ? "Y" : "X")
    try flipped.write(toFile: temp.appending("copy.mydoc/Text.txt"), atomically: false, encoding: .utf8)
    let difference = try PackageNode(contentsOf: FilePath(temp.appending("copy.mydoc"))).difference(from: old)
    #expect(DiffTrees.lines(difference) == ["M Text.txt"])
    #expect(difference[0].old?.size == difference[0].new?.size)
  }

  /// A file renamed in memory is read from where it was loaded, not from the file that now has
  /// its name on disk.
  @Test func filesRenamedInMemoryAreReadFromTheirOrigin() throws {
    let temp = try TemporaryDirectory()
    for (path, text) in [
      "old/a.txt": "AAAA", "old/b.txt": "BBBB", "new/a.txt": "AAAA", "new/b.txt": "BBBB", "new/c.txt": "CCCC",
    ] {
      try temp.write(path, text)
    }
    let old = try PackageNode(contentsOf: FilePath(temp.appending("old")))
    let new = try PackageNode(contentsOf: FilePath(temp.appending("new")))
    try new.removeChild(named: "b.txt")
    try new.renameChild(named: "c.txt", to: "b.txt")
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M b.txt"])
    #expect(try PackageNode(contentsOf: FilePath(temp.appending("new"))).difference(from: old).map(\.path) == ["c.txt"])
  }

  /// Enough same-size pairs on disk for several batches on the parallel workers.
  @Test func manySameSizeFilesOnDiskOneChanged() throws {
    let temp = try TemporaryDirectory()
    for index in 0..<520 {
      let name = "d\(index / 100)/f\(index).txt"
      try temp.write("old/" + name, "contents of file \(index)\n")
      try temp.write("new/" + name, index == 517 ? "CONTENTS of file \(index)\n" : "contents of file \(index)\n")
    }
    let old = try PackageNode(contentsOf: FilePath(temp.appending("old")))
    let new = try PackageNode(contentsOf: FilePath(temp.appending("new")))
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M d5/f517.txt"])
  }

  @Test func bothRootsFilesAreOneEntry() throws {
    let old = PackageNode(regularFileWithContents: Data("a".utf8))
    let new = PackageNode(regularFileWithContents: Data("b".utf8))
    #expect(DiffTrees.lines(try new.difference(from: old)) == ["M "])
    #expect(try old.difference(from: old).isEmpty)
  }
}
