import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What a monitor reports, the same whether it has inotify or polls (``Watching``).
@Suite("Package monitor")
struct PackageMonitorTests {
  @Test(arguments: Watching.allCases)
  func reportsEntriesAddedModifiedRemovedAndRenamed(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    #expect(monitor.watchedDirectoryCount == 3)

    try temp.write("Doc.pkg/Data/b.txt", "changed\n")
    #expect(await events.wait(for: .modified, "Data/b.txt"))
    try temp.write("Doc.pkg/Data/Deep/new.txt", "new\n")
    #expect(await events.wait(for: .added, "Data/Deep/new.txt"))
    try FileManager.default.removeItem(atPath: temp.appending("Doc.pkg/a.txt"))
    #expect(await events.wait(for: .removed, "a.txt"))
    try FileManager.default.moveItem(
      atPath: temp.appending("Doc.pkg/Data/b.txt"), toPath: temp.appending("Doc.pkg/Data/Deep/b2.txt"))
    #expect(
      await events.wait {
        $0.changes.contains(PackageMonitor.Change(.renamed, "Data/Deep/b2.txt", oldPath: "Data/b.txt"))
      })
    // A renamed directory is one change, its entries are not reported again.
    try FileManager.default.moveItem(atPath: temp.appending("Doc.pkg/Data"), toPath: temp.appending("Doc.pkg/Moved"))
    #expect(await events.wait { $0.changes.contains(PackageMonitor.Change(.renamed, "Moved", oldPath: "Data")) })
    #expect(!events.changes.contains { $0.path.hasPrefix("Moved/") })
    // The watches followed the directory.
    try temp.write("Doc.pkg/Moved/Deep/c.txt", "c2\n")
    #expect(await events.wait(for: .modified, "Moved/Deep/c.txt"))
    #expect(events.events.allSatisfy { !$0.isOwnSave })
    #expect(
      Set(events.changes.map(\.description)) == [
        "added Data/Deep/new.txt", "modified Data/b.txt", "modified Moved/Deep/c.txt", "removed a.txt",
        "renamed Data -> Moved", "renamed Data/b.txt -> Data/Deep/b2.txt",
      ])
  }

  @Test(arguments: Watching.allCases)
  func watchesDirectoriesCreatedAfterTheStart(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // Created in one go (directory, then files at once): none slips through.
    try temp.write("Doc.pkg/New/Sub/x.txt", "x\n")
    try temp.write("Doc.pkg/New/y.txt", "y\n")
    #expect(await events.wait(for: .added, "New/Sub/x.txt"))
    #expect(await events.wait(for: .added, "New/y.txt"))
    #expect(events.changes.contains(PackageMonitor.Change(.added, "New")))
    // And later changes inside them are seen.
    try temp.write("Doc.pkg/New/Sub/x.txt", "x changed\n")
    #expect(await events.wait(for: .modified, "New/Sub/x.txt"))
    #expect(monitor.watchedDirectoryCount == 5)
    // And their removal, with what was in them.
    try FileManager.default.removeItem(atPath: temp.appending("Doc.pkg/New"))
    #expect(await events.wait(for: .removed, "New/Sub/x.txt"))
    #expect(events.changes.contains(PackageMonitor.Change(.removed, "New")))
    #expect(monitor.watchedDirectoryCount == 3)
  }

  @Test(arguments: Watching.allCases)
  func reportsAChangeOfPermissionsAndAFileReplacedByADirectory(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temp.appending("Doc.pkg/a.txt"))
    #expect(await events.wait(for: .modified, "a.txt"))
    try FileManager.default.removeItem(atPath: temp.appending("Doc.pkg/Data/b.txt"))
    try temp.write("Doc.pkg/Data/b.txt/inside.txt", "now a directory\n")
    #expect(await events.wait(for: .added, "Data/b.txt/inside.txt"))
    #expect(events.changes.contains(PackageMonitor.Change(.modified, "Data/b.txt")))
  }

  @Test func aBurstOfOneHundredWritesIsOneEvent() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    var options = PackageMonitor.Options()
    options.delay = .milliseconds(300)
    options.maximumDelay = .seconds(5)
    let monitor = try PackageMonitor(watching: FilePath(package), options: options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    for index in 0..<100 { try temp.write("Doc.pkg/Data/f\(index).txt", "\(index)\n") }
    #expect(await events.wait { $0.changes.count >= 100 })
    #expect(events.events.count == 1)
    #expect(events.events.first?.changes.count == 100)
    #expect(events.changes.allSatisfy { $0.kind == .added })
  }

  @Test(arguments: Watching.allCases)
  func followsThePackageWhenItMovesAndEndsWhenItIsDeleted(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    let folder = try temp.makeDirectory("Elsewhere")
    try FileManager.default.moveItem(atPath: package, toPath: folder + "/Renamed.pkg")
    let newPath = Syscalls.resolvingLinks(FilePath(folder + "/Renamed.pkg"))!.string
    #expect(await events.wait(for: .packageMoved, newPath))
    #expect(events.events.last?.packagePath == newPath)
    try temp.write("Elsewhere/Renamed.pkg/a.txt", "moved and changed\n")
    #expect(await events.wait(for: .modified, "a.txt"))

    try FileManager.default.removeItem(atPath: newPath)
    #expect(await events.wait(for: .packageDeleted, newPath))
    #expect(await events.wait { $0.hasEnded })
    #expect(events.error == nil)
  }

  /// Issue 26: a document moves when any folder above it is renamed, as NSFilePresenter reports it.
  @Test(arguments: Watching.allCases)
  func followsThePackageWhenAFolderAboveItsParentIsRenamed(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    try temp.write("Projects/2026/Doc.pkg/a.txt", "a\n")
    let monitor = try PackageMonitor(
      watching: FilePath(temp.appending("Projects/2026/Doc.pkg")), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    try FileManager.default.moveItem(atPath: temp.appending("Projects"), toPath: temp.appending("Archive"))
    let newPath = Syscalls.resolvingLinks(FilePath(temp.appending("Archive/2026/Doc.pkg")))!.string
    #expect(await events.wait(for: .packageMoved, newPath))
    // The watches follow: a change at the new place is seen, and so is a second move further up.
    try temp.write("Archive/2026/Doc.pkg/a.txt", "changed\n")
    #expect(await events.wait(for: .modified, "a.txt"))
    try FileManager.default.moveItem(atPath: temp.appending("Archive/2026"), toPath: temp.appending("Archive/2025"))
    let secondPath = Syscalls.resolvingLinks(FilePath(temp.appending("Archive/2025/Doc.pkg")))!.string
    #expect(await events.wait(for: .packageMoved, secondPath))
    #expect(events.error == nil)
  }

  @Test(arguments: Watching.allCases)
  func anotherProcessSaveIsAReplacementOrAChangeOfTheRightEntries(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // `docpkg put` saves by RENAME_EXCHANGE from another process.
    let input = Data("put by another process\n".utf8)
    let result = try Shell.docpkg(["put", package, "Data/Deep/c.txt"], input: input)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(await events.wait(for: .modified, "Data/Deep/c.txt"))
    #expect(!events.changes.contains { $0.path == "a.txt" || $0.path == "Data/b.txt" })
    #expect(events.events.allSatisfy { !$0.isOwnSave })
    // Later changes are still seen (the watches moved to the new directories).
    try temp.write("Doc.pkg/Data/Deep/c.txt", "and again\n")
    #expect(await events.wait { $0.changes.filter { $0.path == "Data/Deep/c.txt" }.count >= 2 })
  }

  @Test(arguments: Watching.allCases)
  func aWholeReplacementIsReportedWithTheEntriesThatDiffer(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: watching.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // Another program's save: the package renamed aside, a new directory renamed in its place.
    try temp.write("Staging/a.txt", "a\n")
    try temp.write("Staging/z.txt", "z\n")
    try FileManager.default.moveItem(atPath: package, toPath: temp.appending("Old.pkg"))
    try FileManager.default.moveItem(atPath: temp.appending("Staging"), toPath: package)
    #expect(await events.wait(for: .added, "z.txt"))
    let changes = events.changes
    #expect(changes.contains { $0.kind == .packageReplaced })
    #expect(changes.contains(PackageMonitor.Change(.removed, "Data")))
    #expect(!changes.contains { $0.path == "a.txt" && $0.kind != .modified })
    try temp.write("Doc.pkg/z.txt", "watched again\n")
    #expect(await events.wait(for: .modified, "z.txt"))
  }

  @Test(arguments: Watching.allCases)
  func ownSavesAreMarkedOrLeftOut(_ watching: Watching) async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let marking = try PackageMonitor(watching: FilePath(package), options: watching.options)
    var quiet = watching.options
    quiet.reportsOwnSaves = false
    let suppressing = try PackageMonitor(watching: FilePath(package), options: quiet)
    let marked = EventCollector(marking)
    let suppressed = EventCollector(suppressing)
    defer {
      marking.stop()
      suppressing.stop()
    }
    let file = try PackageFile(at: FilePath(package))
    file.versionPolicy = .none
    try file.root.setFile(at: "Data/b.txt", contents: Data("own save\n".utf8))
    try file.save()
    #expect(await marked.wait(for: .modified, "Data/b.txt"), "\(marked.events)")
    #expect(marked.events.allSatisfy { $0.isOwnSave }, "\(marked.events)")
    // The suppressing monitor reports outside changes and nothing of the save. (An outside write
    // that fell into the same burst as the save would be left out with it: write until one is seen.)
    let seen = await suppressed.wait { collector in
      _ = try? temp.write("Doc.pkg/a.txt", "outside \(UUID())\n")
      return collector.changes.contains { $0.path == "a.txt" }
    }
    #expect(seen, "\(suppressed.events)")
    #expect(!suppressed.changes.contains { $0.path == "Data/b.txt" }, "\(suppressed.events)")
    #expect(suppressed.events.allSatisfy { !$0.isOwnSave }, "\(suppressed.events)")
  }

  @Test func aMissingPackageIsAClearError() throws {
    let temp = try TemporaryDirectory("monitor")
    #expect {
      _ = try PackageMonitor(watching: FilePath(temp.appending("Nothing.pkg")))
    } throws: { error in
      (error as? PackageError)?.description.contains("Nothing.pkg") == true
    }
  }

  /// A document's monitor lists the root alone (`listsLazily`): it watches every folder without looking at their
  /// files, reports a file there by name when it changes, and a folder it never listed, replaced by another
  /// program's save, as that folder (the files in it that it knew are compared, the others it cannot tell apart).
  @Test func aLazyMonitorReportsAFolderItNeverListedAsAWholeWhenAnotherProgramsSaveReplacesIt() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    let monitor = try PackageMonitor(watching: FilePath(package), options: Watching.lazyListing.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    #expect(monitor.watchedDirectoryCount == 3)
    try temp.write("Doc.pkg/Data/Deep/c.txt", "changed\n")
    #expect(await events.wait(for: .modified, "Data/Deep/c.txt"))
    let put = try Shell.docpkg(["put", "--versions", "none", package, "Data/Deep/new.txt"], input: Data("new\n".utf8))
    #expect(put.status == 0, "\(put.standardError)")
    #expect(await events.wait(for: .modified, "Data/Deep"))
    #expect(
      Set(events.changes.map(\.description)) == ["modified Data/Deep/c.txt", "modified Data/Deep"],
      "\(events.changes)")
    // The new folder is watched: a file changed in it is reported.
    try temp.write("Doc.pkg/Data/Deep/new.txt", "newer\n")
    #expect(await events.wait(for: .modified, "Data/Deep/new.txt"))
  }

  /// A save that swaps a folder out removes the old folder's files afterwards, often in the same burst: those
  /// removals come from the old folder's watch, under the folder's name, and are not changes of the new folder.
  @Test func theOldFoldersRemovalsAfterASwapAreNotReportedUnderTheNewFolder() async throws {
    let temp = try TemporaryDirectory("monitor")
    let package = try makeWatchedPackage(in: temp)
    try temp.write("Doc.pkg/Data/Deep/d.txt", "d\n")
    let monitor = try PackageMonitor(watching: FilePath(package), options: Watching.lazyListing.options)
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    try Shell.run("cp", ["-a", package + "/Data/Deep", temp.appending("New")])
    try temp.write("New/e.txt", "e\n")
    let script = """
      import os, sys
      deep, new, old = sys.argv[1:]
      os.rename(deep, old); os.rename(new, deep)
      for name in os.listdir(old): os.remove(os.path.join(old, name))
      """
    try Shell.run(
      "python3", ["-c", script, package + "/Data/Deep", temp.appending("New"), temp.appending("Old")])
    #expect(await events.wait(for: .modified, "Data/Deep"))
    try await Task.sleep(for: .milliseconds(200))
    #expect(events.changes.map(\.description) == ["modified Data/Deep"], "\(events.changes)")
  }
}
