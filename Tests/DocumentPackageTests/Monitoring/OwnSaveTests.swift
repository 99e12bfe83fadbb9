import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// An entry moved into `package` by "another program", as `name`, from `from`: a rename, which
/// keeps its inode number, as a file system giving a freed number to a new entry would.
private func moveIn(_ from: String, _ package: String, as name: String) throws {
  try FileManager.default.moveItem(atPath: from, toPath: package + "/" + name)
}

/// How a monitor tells this process's saves from other programs' changes when inode numbers come
/// back: each save's placement is its own once, and only placements made while it watched.
@Suite("Package monitor: own saves")
struct OwnSaveTests {
  /// The number of the events that have `path` added.
  private func additions(of path: String, in events: EventCollector) -> [PackageMonitor.Event] {
    events.events.filter { $0.changes.contains { $0.kind == .added && $0.path == path } }
  }

  @Test func aSaveGivenTheInodeNumberOfAnEarlierSaveIsStillOwnAndAnotherProgramsEntryIsNot() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package))
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    let built = temp.appending(".Doc.pkg.built")  // beside the package, where a save builds
    try FileManager.default.createDirectory(atPath: built, withIntermediateDirectories: false)
    var expected: [Bool] = []
    for (placedBySave, round) in [(true, 1), (true, 2), (false, 3)] {
      // A save of this process places it (rounds 1 and 2: the same inode number twice), or another
      // program moves it in with no save placing it (round 3).
      if placedBySave { OwnSaves.shared.willPlace(FilePath(built), package: FilePath(package)) }
      try moveIn(built, package, as: "New")
      expected.append(placedBySave)
      #expect(await events.wait { self.additions(of: "New", in: $0).count == round }, "round \(round)")
      try FileManager.default.moveItem(atPath: package + "/New", toPath: built)
      #expect(await events.wait { $0.changes.filter { $0.kind == .removed && $0.path == "New" }.count == round })
    }
    #expect(additions(of: "New", in: events).map(\.isOwnSave) == expected)
  }

  @Test func anEntryPlacedBeforeTheMonitorStartedIsNotTakenForItsSave() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let built = temp.appending(".Doc.pkg.built")
    try FileManager.default.createDirectory(atPath: built, withIntermediateDirectories: false)
    // Placed by a save (say a save-as that made this package) before the package was watched.
    OwnSaves.shared.willPlace(FilePath(built), package: FilePath(package))
    let monitor = try PackageMonitor(watching: FilePath(package))
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    try moveIn(built, package, as: "New")
    #expect(await events.wait(for: .added, "New"))
    #expect(additions(of: "New", in: events).map(\.isOwnSave) == [false])
  }

  @Test func aPlacementASaveReplacedBeforeTheMonitorSawItIsNotTakenForASaveLater() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package))
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    let first = temp.appending(".Doc.pkg.first")
    let second = temp.appending(".Doc.pkg.second")
    for folder in [first, second] {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    }
    // Two saves of `New` in one burst: the second exchanges the first's entry out of the package.
    OwnSaves.shared.willPlace(FilePath(first), package: FilePath(package))
    try moveIn(first, package, as: "New")
    OwnSaves.shared.willPlace(FilePath(second), package: FilePath(package))
    try FileManager.default.moveItem(atPath: package + "/New", toPath: first)
    OwnSaves.shared.wasReplaced(FilePath(first), package: FilePath(package))
    try moveIn(second, package, as: "New")
    #expect(await events.wait(for: .added, "New"))
    #expect(additions(of: "New", in: events).map(\.isOwnSave) == [true])
    // The first one's inode number comes back in another program's entry: not a save.
    try moveIn(first, package, as: "Other")
    #expect(await events.wait(for: .added, "Other"))
    #expect(events.events.filter { $0.changes.contains { $0.path == "Other" } }.map(\.isOwnSave) == [false])
  }
}
