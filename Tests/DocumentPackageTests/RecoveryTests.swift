import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Each state an interrupted save can leave beside a package, and what recovery must make of it.
@Suite("Recovery of interrupted saves")
struct RecoveryTests {
  /// Builds `Doc.pkg` (old state, unless `package` is false) and the leftovers named, each holding a
  /// marker file saying which state it is; recovers; returns the marker of the package and what is left.
  func recover(package: Bool, leftovers: [String]) throws -> (marker: String?, names: [String], actions: Int) {
    let temp = try TemporaryDirectory()
    if package { try temp.write("Doc.pkg/state", "old") }
    for name in leftovers {
      let state = name == "tmp" ? "partial" : name == "ready" ? "new" : "old"
      try temp.write(".Doc.pkg.docpkg-\(name)/state", state)
    }
    let actions = try PackageFile.recover(at: FilePath(temp.appending("Doc.pkg")))
    let marker = try? String(contentsOfFile: temp.appending("Doc.pkg/state"), encoding: .utf8)
    let names = try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted()
    return (marker, names, actions.count)
  }

  @Test func nothingToRecover() throws {
    let result = try recover(package: true, leftovers: [])
    #expect(result.marker == "old" && result.actions == 0)
  }

  @Test func aTemporaryTreeIsRemoved() throws {
    let result = try recover(package: true, leftovers: ["tmp"])
    #expect(result.marker == "old" && result.names == ["Doc.pkg"] && result.actions == 1)
  }

  @Test func aReadyTreeBesideThePackageIsRemoved() throws {
    let result = try recover(package: true, leftovers: ["ready", "tmp"])
    #expect(result.marker == "old" && result.names == ["Doc.pkg"])
  }

  @Test func aSidelineBesideTheNewPackageIsRemoved() throws {
    let result = try recover(package: true, leftovers: ["old"])
    #expect(result.marker == "old" && result.names == ["Doc.pkg"])
  }

  @Test func aMissingPackageGetsTheReadyTree() throws {
    let result = try recover(package: false, leftovers: ["ready", "old"])
    #expect(result.marker == "new" && result.names == ["Doc.pkg"])
  }

  @Test func aMissingPackageGetsItsSidelineBack() throws {
    let result = try recover(package: false, leftovers: ["old", "tmp"])
    #expect(result.marker == "old" && result.names == ["Doc.pkg"])
  }

  @Test func anIncompleteNewPackageIsNeverMovedIn() throws {
    let result = try recover(package: false, leftovers: ["tmp"])
    #expect(result.marker == nil && result.names == [])
  }

  @Test func openingRecoversFirst() throws {
    let temp = try TemporaryDirectory()
    try temp.write(".Doc.pkg.docpkg-old/state", "old")
    try temp.write(".Doc.pkg.docpkg-ready/state", "new")
    let document = try PackageFile(at: FilePath(temp.appending("Doc.pkg")))
    #expect(document.recoveryActions.count == 2)
    #expect(try document.root.node(at: "state").contents() == Data("new".utf8))
  }
}
