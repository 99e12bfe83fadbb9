import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

/// A walk over a large package drops each directory's listing once done with it (`docpkg inspect`), so that
/// it holds the directories on its way, not the package; a listing that holds changes is never dropped.
@Suite("Forgetting listings")
struct ForgettingListingsTests {
  private func makePackage(_ temp: TemporaryDirectory) throws -> String {
    for directory in 0..<4 {
      for file in 0..<3 { try temp.write("P.pkg/d\(directory)/e/f\(file).txt", "\(directory)/\(file)") }
    }
    return temp.appending("P.pkg")
  }

  @Test("an unchanged listing is dropped, from the leaves up, and read again from disk when asked for")
  func dropsUnchanged() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try makePackage(temp)))
    let d1 = try root.node(at: "d1")
    let e = try d1.node(at: "e")
    #expect(try e.sortedChildren().count == 3)
    #expect(!d1.forgetListing())  // its subdirectory `e` still holds a listing
    #expect(e.forgetListing())
    #expect(e.loadedChildren == nil)
    #expect(d1.forgetListing())
    #expect(d1.loadedChildren == nil)
    try temp.write("P.pkg/d1/e/new.txt", "new")
    #expect(try root.node(at: "d1/e").sortedChildren().map(\.name) == ["f0.txt", "f1.txt", "f2.txt", "new.txt"])
  }

  @Test("a listing holding a change in memory is kept")
  func keepsChanges() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try makePackage(temp)))
    try root.setFile(at: "d2/e/f0.txt", contents: Data("changed".utf8))
    let e = try root.node(at: "d2/e")
    #expect(!e.forgetListing())
    _ = try root.node(at: "d3/e").removeChild(named: "f1.txt")
    #expect(!(try root.node(at: "d3/e")).forgetListing())
    #expect(String(decoding: try root.node(at: "d2/e/f0.txt").contents(), as: UTF8.self) == "changed")
  }

  @Test("listing a few directories ahead on every core lists just those")
  func listsAhead() throws {
    let temp = try TemporaryDirectory()
    let root = try PackageNode(contentsOf: .init(try makePackage(temp)))
    let directories = try root.sortedChildren()
    PackageNode.listInParallel(directories.prefix(2))
    #expect(directories.map { $0.loadedChildren != nil } == [true, true, false, false])
    #expect(try directories[0].node(at: "e").loadedChildren == nil)
  }
}
