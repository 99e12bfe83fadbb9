import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What is particular to a monitor that polls (forced here with `alwaysPolls`, chosen by itself on a
/// network or FUSE file system). That it reports the same changes as one that has inotify is tested
/// with both (`PackageMonitorTests`).
@Suite("Package monitor: polling")
struct PollingMonitorTests {
  static let interval = Duration.milliseconds(100)

  static func polling(_ interval: Duration = interval) -> PackageMonitor.Options {
    var options = PackageMonitor.Options()
    options.alwaysPolls = true
    options.pollingInterval = interval
    return options
  }

  @Test func saysWhichModeItUses() throws {
    let temp = try TemporaryDirectory("monitor-poll")
    let package = try makeWatchedPackage(in: temp)
    let polling = try PackageMonitor(watching: FilePath(package), options: Self.polling())
    defer { polling.stop() }
    #expect(polling.mode == .polling(interval: Self.interval, reason: .requested))
    #expect(polling.mode.description == "polling every 100 ms: asked for")
    #expect(polling.watchedDirectoryCount == 3)
    // An interval of nothing is the shortest there is, not a busy loop.
    let busy = try PackageMonitor(watching: FilePath(package), options: Self.polling(.zero))
    busy.stop()
    #expect(busy.mode == .polling(interval: .milliseconds(10), reason: .requested))
    // The temporary folder is on a local file system (ext4, tmpfs): inotify sees everything there.
    let notified = try PackageMonitor(watching: FilePath(package))
    defer { notified.stop() }
    #expect(notified.mode == .notifications)
    #expect(notified.mode.description == "inotify")
    #expect(
      PackageMonitor.Mode.polling(interval: .seconds(1), reason: .fileSystem(name: "FUSE")).description
        == "polling every 1 s: FUSE file system")
    #expect(
      PackageMonitor.Mode.polling(interval: .milliseconds(1500), reason: .requested).description
        == "polling every 1.5 s: asked for")
  }

  /// A comb: a chain of `d` directories, each also holding directories `a` and `b` (listed in
  /// the file system's order: a poll walks `d` before one of them about two times in three, and the
  /// one left waits on the stack, its parent kept open: more directories wait than a poll keeps
  /// open, and those past the limit are opened by their paths).
  @Test func pollsADeepCombOfDirectories() async throws {
    let temp = try TemporaryDirectory("monitor-poll")
    let depth = WatchedTree.maximumOpenDirectories * 3
    let chain = (0..<depth).map { _ in "d" }.joined(separator: "/")
    try temp.write("Comb.pkg/" + chain + "/bottom.txt", "bottom\n")
    for level in 0..<depth {
      let prefix = (0..<level).map { _ in "d/" }.joined()
      try temp.write("Comb.pkg/" + prefix + "a/leaf.txt", "leaf\n")
      try temp.write("Comb.pkg/" + prefix + "b/leaf.txt", "leaf\n")
    }
    let monitor = try PackageMonitor(watching: FilePath(temp.appending("Comb.pkg")), options: Self.polling())
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    #expect(monitor.watchedDirectoryCount == 1 + 3 * depth)
    let middle = (0..<(depth / 2)).map { _ in "d/" }.joined() + "a/leaf.txt"
    try temp.write("Comb.pkg/" + chain + "/bottom.txt", "changed at the bottom\n")
    try temp.write("Comb.pkg/" + middle, "changed halfway\n")
    #expect(await events.wait(for: .modified, chain + "/bottom.txt"))
    #expect(await events.wait(for: .modified, middle))
    #expect(events.changes.count == 2, "\(events.changes)")
  }

  @Test func pollsADeepPackage() async throws {
    let package = try DeepPackage()
    let monitor = try PackageMonitor(watching: FilePath(package.path), options: Self.polling())
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    // Replaced through descriptors (the path may be longer than the kernel takes).
    var fd = try Syscalls.openDirectory(FilePath(package.path))
    for _ in 0..<DeepPackage.depth {
      let next = try Syscalls.openDirectory(in: fd, RawName(DeepTree.directoryName))
      Syscalls.closeFile(fd)
      fd = next
    }
    try Syscalls.unlink(in: fd, RawName(DeepTree.fileName), directory: false)
    Syscalls.closeFile(try Syscalls.createFile(in: fd, RawName(DeepTree.fileName)))
    Syscalls.closeFile(fd)
    let bottom = DeepTree.innerPath(depth: DeepPackage.depth) + "/" + DeepTree.fileName
    #expect(await events.wait(for: .modified, bottom, seconds: 60))
  }

  @Test func pairsMovesByInodeOnlyWhenEachSideIsAlone() throws {
    func signature(_ inode: UInt64, _ kind: NodeKind = .file) -> WatchedTree.Signature {
      var status = FileStatus(CStat())
      status.kind = kind
      status.inode = inode
      return WatchedTree.Signature(status)!
    }
    let moves = WatchedTree.moves(
      gone: [("a", signature(1)), ("b", signature(2)), ("c", signature(2)), ("d", signature(3)), ("e", signature(4))],
      arrived: [("x", signature(1)), ("y", signature(2)), ("z", signature(3, .directory)), ("e", signature(4))])
    #expect(moves.map { "\($0.from) -> \($0.to)" } == ["a -> x"])
  }
}

/// A monitor on the sshfs share of `Scripts/filesystems.sh` polls by itself and reports edits made
/// on the server side, which inotify never sees. (How soon is timed by `docpkg watch`'s test, in a
/// process of its own: here the monitor's thread shares the machine with every suite of the run, and its
/// polls share the one SFTP connection with the crash sweeps on the same share, so a wait is generous: a
/// CI run at load 10–12 saw no report of the first edit within 30 s.)
@Suite("Package monitor: sshfs", .enabled(if: SshfsFolder.isAvailable, "DOCPKG_FS_SSHFS is not set"))
struct MonitorFileSystemTests {
  @Test func reportsEditsAdditionsAndRemovalsMadeOnTheServerSide() async throws {
    let share = try SshfsFolder("monitor")
    try share.writeOnServer("Doc.pkg/a.txt", "a\n")
    try share.writeOnServer("Doc.pkg/Data/b.txt", "b\n")
    let monitor = try PackageMonitor(watching: FilePath(share.mounted + "/Doc.pkg"))
    let events = EventCollector(monitor)
    defer { monitor.stop() }
    let interval = PackageMonitor.Options().pollingInterval
    #expect(monitor.mode == .polling(interval: interval, reason: .fileSystem(name: "FUSE")))

    var start = ContinuousClock.now
    try share.writeOnServer("Doc.pkg/Data/b.txt", "changed on the server\n")
    #expect(await events.wait(for: .modified, "Data/b.txt", seconds: 120), "\(events.changes)")
    let edit = events.arrival { $0 == PackageMonitor.Change(.modified, "Data/b.txt") }.map { $0 - start }
    print("sshfs: an edit on the server side was reported after \(edit ?? .zero)")

    start = ContinuousClock.now
    try share.writeOnServer("Doc.pkg/Data/new.txt", "new on the server\n")
    try share.removeOnServer("Doc.pkg/a.txt")
    #expect(await events.wait(for: .added, "Data/new.txt", seconds: 120), "\(events.changes)")
    #expect(await events.wait(for: .removed, "a.txt", seconds: 120), "\(events.changes)")
    let added = events.arrival { $0 == PackageMonitor.Change(.added, "Data/new.txt") }.map { $0 - start }
    print("sshfs: an addition and a removal on the server side were reported after \(added ?? .zero)")
    #expect(events.changes.count == 3, "\(events.changes)")
    #expect(events.error == nil)
  }
}
