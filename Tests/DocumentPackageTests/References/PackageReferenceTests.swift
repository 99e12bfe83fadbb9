import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// References on real packages, moved with the real `mv`, copied with the real `cp`, saved by the library.
@Suite("Package references")
struct PackageReferenceTests {
  @Test func findsThePackageAtItsPathWithoutAddingAnythingInsideIt() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let before = try inventory(package)
    let reference = try PackageReference(package: FilePath(package))
    #expect(try inventory(package) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path) == ["Notes.mydoc"])  // no lock file left
    #expect(reference.identifier != nil)
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(package))
    #expect(!resolution.isStale)
    #expect(try PackageReference(package: FilePath(package)).identifier == reference.identifier)
  }

  @Test func followsARenameInTheSameFolder() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    try Shell.run("/bin/mv", [package, temp.appending("Voyage.mydoc")])
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(temp.appending("Voyage.mydoc")))
    #expect(resolution.isStale)
    let again = try resolution.reference.resolve()
    #expect(again.path == resolution.path)
    #expect(!again.isStale)
  }

  @Test func followsAMoveToAnotherFolderUpOrDownTheTree() throws {
    let temp = try TemporaryDirectory("reference")
    try FileManager.default.createDirectory(atPath: temp.appending("Work/Docs"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: temp.appending("Archive/2026/May"), withIntermediateDirectories: true)
    let package = temp.appending("Work/Docs/Notes.mydoc")
    try Shell.run("/bin/cp", ["-Rp", Fixtures.url("Notes.mydoc").path, package])
    let reference = try PackageReference(package: FilePath(package))

    let deep = temp.appending("Archive/2026/May/Old notes.mydoc")  // a cousin folder: found from an ancestor
    try Shell.run("/bin/mv", [package, deep])
    var resolution = try reference.resolve()
    #expect(resolution.path == FilePath(deep))
    #expect(resolution.isStale)

    try FileManager.default.removeItem(atPath: temp.appending("Work"))  // the old folder is gone too
    resolution = try reference.resolve()
    #expect(resolution.path == FilePath(deep))

    let up = temp.appending("Notes.mydoc")
    try Shell.run("/bin/mv", [deep, up])
    resolution = try reference.resolve()
    #expect(resolution.path == FilePath(up))
  }

  @Test func survivesManySavesThatReplaceTheRoot() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    // Each save builds the new root while the old one still exists, so the root's inode changes at
    // every save; freed numbers come back, so distinct numbers over all rounds prove nothing.
    var root = try Syscalls.statusNoFollow(FilePath(package)).inode
    var replaced = 0
    for round in 0..<25 {
      let file = try PackageFile(at: FilePath(package))
      // Two changes at the top level: the smallest changed subtree is the root, so the save exchanges it.
      try file.root.setFile(at: "Text.txt", contents: Data("round \(round)\n".utf8))
      try file.root.setFile(at: "Round.txt", contents: Data("\(round)".utf8))
      try file.save()
      let newRoot = try Syscalls.statusNoFollow(FilePath(package)).inode
      if newRoot != root { replaced += 1 }
      root = newRoot
      if round % 8 == 0 { #expect(try !reference.resolve().isStale) }
    }
    #expect(replaced == 25)  // the root really was replaced, every time
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(package))
    #expect(!resolution.isStale)
  }

  @Test func followsAMoveFollowedBySaves() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    try FileManager.default.createDirectory(atPath: temp.appending("Elsewhere"), withIntermediateDirectories: true)
    let moved = temp.appending("Elsewhere/Moved.mydoc")
    try Shell.run("/bin/mv", [package, moved])
    let rootBefore = try Syscalls.statusNoFollow(FilePath(moved)).inode
    var roots: [UInt64] = []
    for round in 0..<5 {
      let file = try PackageFile(at: FilePath(moved))
      try file.root.setFile(at: "Index.json", contents: Data("{\"round\":\(round)}".utf8))
      try file.root.setFile(at: "Text.txt", contents: Data("moved \(round)\n".utf8))
      try file.save()
      roots.append(try Syscalls.statusNoFollow(FilePath(moved)).inode)
    }
    // Each save rebuilt the root (two root entries changed). A freed inode number may come back
    // in a later round, so the test asks only that some round's root was a new directory.
    #expect(roots.contains { $0 != rootBefore }, "\(rootBefore) \(roots)")
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(moved))
    #expect(resolution.isStale)
  }

  @Test(arguments: ["-r", "-a"])
  func aCopyIsNotTheOriginal(_ flag: String) throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    let copy = temp.appending("Copy.mydoc")
    try Shell.run("/bin/cp", [flag, package, copy])
    #expect((PackageIdentity.read(at: FilePath(copy)) != nil) == (flag == "-a"))  // cp -a keeps the attribute

    // The original moves away: the search meets the copy first (same folder) and passes it over.
    try FileManager.default.createDirectory(atPath: temp.appending("Z"), withIntermediateDirectories: true)
    try Shell.run("/bin/mv", [package, temp.appending("Z/Notes.mydoc")])
    #expect(try reference.resolve().path == FilePath(temp.appending("Z/Notes.mydoc")))

    // A reference to the copy is the copy's own.
    let copyReference = try PackageReference(package: FilePath(copy))
    #expect(copyReference.identifier != reference.identifier)
    #expect(try copyReference.resolve().path == FilePath(copy))

    // The original deleted: the reference fails rather than take the copy.
    try FileManager.default.removeItem(atPath: temp.appending("Z"))
    do {
      _ = try reference.resolve(options: .init(maximumFolders: 50))
      Issue.record("resolved a deleted package to its copy")
    } catch let error as PackageError {
      #expect(error.code == .noSuchEntry)
      #expect(error.description.hasPrefix("package not found: '\(package)' (nothing is there"))
    }
  }

  @Test func savingACopyDoesNotMakeItTheOriginal() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    let copy = temp.appending("Copy.mydoc")
    try Shell.run("/bin/cp", ["-a", package, copy])
    let copyRoot = try Syscalls.statusNoFollow(FilePath(copy)).inode
    let file = try PackageFile(at: FilePath(copy))
    try file.root.setFile(at: "Text.txt", contents: Data("copy\n".utf8))
    try file.root.setFile(at: "New.txt", contents: Data("new".utf8))
    try file.save()
    #expect(try Syscalls.statusNoFollow(FilePath(copy)).inode != copyRoot)  // the save replaced the copy's root
    let carried = try #require(PackageIdentity.read(at: FilePath(copy)))
    #expect(carried.identifier == reference.identifier)
    #expect(!carried.isBound(to: try Syscalls.statusNoFollow(FilePath(copy))))  // still a copy
    try FileManager.default.createDirectory(atPath: temp.appending("Moved"), withIntermediateDirectories: true)
    try Shell.run("/bin/mv", [package, temp.appending("Moved/Notes.mydoc")])
    #expect(try reference.resolve().path == FilePath(temp.appending("Moved/Notes.mydoc")))
  }

  @Test func aCopyTakesTheIdentityOverOnlyWhenAsked() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    let copy = temp.appending("Restored.mydoc")
    try Shell.run("/bin/cp", ["-a", package, copy])
    try FileManager.default.removeItem(atPath: package)
    #expect(throws: PackageError.self) { try reference.resolve(options: .init(maximumFolders: 50)) }
    let adopted = try PackageReference(package: FilePath(copy), adoptingIdentity: true)
    #expect(adopted.identifier == reference.identifier)
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(copy))
    #expect(resolution.isStale)
  }

  @Test func aCopyPutAtTheOriginalsPathIsAcceptedAsStale() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    let backup = temp.appending("backup.mydoc")
    try Shell.run("/bin/cp", ["-a", package, backup])
    try FileManager.default.removeItem(atPath: package)
    try Shell.run("/bin/mv", [backup, package])
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(package))
    #expect(resolution.isStale)
  }

  @Test func aDeletedPackageFailsNamingWhereItLooked() throws {
    let temp = try TemporaryDirectory("reference")
    try FileManager.default.createDirectory(atPath: temp.appending("A/B/C"), withIntermediateDirectories: true)
    let package = temp.appending("A/Notes.mydoc")
    try Shell.run("/bin/cp", ["-Rp", Fixtures.url("Notes.mydoc").path, package])
    let reference = try PackageReference(package: FilePath(package))
    try FileManager.default.removeItem(atPath: package)
    do {
      _ = try reference.resolve(options: .init(maximumFolders: 3))
      Issue.record("resolved a deleted package")
    } catch let error as PackageError {
      #expect(error.code == .noSuchEntry)
      #expect(
        error.description
          == "package not found: '\(package)' (nothing is there, and it is not in the 3 folders searched from "
          + "'\(temp.appending("A"))'; the search stops there: it may lie further away)")
    }
  }

  @Test func theSearchStopsAtItsBudget() throws {
    let temp = try TemporaryDirectory("reference")
    try FileManager.default.createDirectory(atPath: temp.appending("Docs"), withIntermediateDirectories: true)
    for index in 0..<30 {
      try FileManager.default.createDirectory(
        atPath: temp.appending("Other/\(index)/deeper"), withIntermediateDirectories: true)
    }
    let package = temp.appending("Docs/Notes.mydoc")
    try Shell.run("/bin/cp", ["-Rp", Fixtures.url("Notes.mydoc").path, package])
    let reference = try PackageReference(package: FilePath(package))
    let far = temp.appending("Other/29/deeper/Notes.mydoc")
    try Shell.run("/bin/mv", [package, far])
    #expect(throws: PackageError.self) { try reference.resolve(options: .init(maximumFolders: 20)) }
    #expect(try reference.resolve(options: .init(maximumFolders: 200)).path == FilePath(far))
  }

  @Test func aReferenceWithoutIdentityFollowsTheRootInode() throws {
    // What a file system without extended attributes gives: the root's device and inode only.
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let status = try Syscalls.statusNoFollow(FilePath(package))
    let reference = PackageReference(
      path: FilePath(package), device: status.device, inode: status.inode, identifier: nil)
    try Shell.run("/bin/mv", [package, temp.appending("Renamed.mydoc")])
    let resolution = try reference.resolve()
    #expect(resolution.path == FilePath(temp.appending("Renamed.mydoc")))
    #expect(resolution.isStale)
    #expect(resolution.reference.identifier == nil)
  }

  @Test func textAndCodableFormsRoundTrip() throws {
    let temp = try TemporaryDirectory("reference")
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let reference = try PackageReference(package: FilePath(package))
    let text = reference.text
    #expect(text.hasPrefix("docpkg-ref1:"))
    let unsafe: Set<Character> = [" ", "\t", "\n", "=", "\"", "'"]
    #expect(text.allSatisfy { !unsafe.contains($0) })
    #expect(try PackageReference(text: text) == reference)
    #expect(try PackageReference(text: "  \(text)\n") == reference)
    let json = try JSONEncoder().encode(reference)
    #expect(try JSONDecoder().decode(PackageReference.self, from: json) == reference)

    // A path that is not UTF-8 is kept exactly.
    let latin1 = FilePath(platformString: [0x2F, 0x74, 0x6D, 0x70, 0x2F, CChar(bitPattern: 0xE9), 0])
    let odd = PackageReference(path: latin1, device: 1, inode: 2, identifier: UUID())
    #expect(try PackageReference(text: odd.text) == odd)

    for bad in ["", "hello", "docpkg-ref1:!!!", "docpkg-ref1:eyJ4IjoxfQ"] {
      #expect(throws: PackageError.self) { try PackageReference(text: bad) }
    }
    do { _ = try PackageReference(text: "docpkg-ref2:abc") } catch let error as PackageError {
      #expect(error.code == .invalidArgument)
      #expect(error.description.contains("made by a newer version of docpkg"))
    }
  }

  /// Every path under `package` with its kind and size, to show that nothing was added or changed.
  private func inventory(_ package: String) throws -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: package)!
    var result: [String] = []
    while let path = enumerator.nextObject() as? String {
      let attributes = try FileManager.default.attributesOfItem(atPath: package + "/" + path)
      result.append("\(path) \(attributes[.type]!) \(attributes[.size]!)")
    }
    return result.sorted()
  }
}
