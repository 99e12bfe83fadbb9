import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Listing a tree on every core")
struct ParallelListingTests {
  /// A package of `directories` × 3 levels with a few files each.
  private func makePackage(_ temp: TemporaryDirectory, directories: Int) throws -> String {
    for index in 0..<directories {
      for file in 0..<3 { try temp.write("P.pkg/d\(index)/e\(index % 4)/f\(file).txt", "\(index)/\(file)") }
    }
    return temp.appending("P.pkg")
  }

  /// Every path below `node`, with its kind and size, from the listings in memory or on disk.
  private func describe(_ node: PackageNode, _ prefix: String = "") throws -> [String] {
    var lines: [String] = []
    for child in try node.sortedChildren() {
      lines.append("\(prefix)\(child.name) \(child.kind) \(child.kind == .file ? child.size : 0)")
      if child.kind == .directory { lines += try describe(child, prefix + child.name + "/") }
    }
    return lines
  }

  @Test("every directory is listed ahead, as a walk on one thread lists it")
  func listsEverything() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(temp, directories: 150)
    let expected = try describe(try PackageNode(contentsOf: .init(package)))
    let root = try PackageNode(contentsOf: .init(package))
    root.listDirectoriesInParallel()
    // Everything is in memory now: the walk still sees it after the package is gone from disk.
    try FileManager.default.removeItem(atPath: package)
    #expect(try describe(root) == expected)
    #expect(expected.count == 150 * 2 + 150 * 3)
  }

  @Test("a directory that cannot be listed is left for the walk, which fails there as it would have")
  func leavesErrorsToTheWalk() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(temp, directories: 80)
    let root = try PackageNode(contentsOf: .init(package))
    // `d7` is listed with its child `e3`, which then vanishes from disk before it is listed.
    _ = try root.node(at: "d7").sortedChildren()
    try FileManager.default.removeItem(atPath: package + "/d7/e3")
    root.listDirectoriesInParallel()
    #expect(throws: PackageError.self) { try describe(root) }
    #expect(try root.node(at: "d8").sortedChildren().count == 1)
  }
}
