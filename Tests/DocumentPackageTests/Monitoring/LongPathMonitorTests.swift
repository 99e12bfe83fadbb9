import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Issue 38: `docpkg serve`'s live updates come from the monitor, whose cost per event must not grow with the
/// square of the path's length: a package of the longest names ext4 allows, nested deep, is followed as quickly as
/// a flat one.
@Suite("PackageMonitor follows packages of long names nested deep")
struct LongPathMonitorTests {
  @Test("300 files added 14 folders of 255-byte names deep are all reported within 30 s")
  func longNamesNestedDeep() async throws {
    let temp = try TemporaryDirectory()
    let package = try temp.makeDirectory("Deep.pkg")
    // 14 levels of 255-byte names: a path of about 3.6 KB, within what inotify can watch (4,096 bytes).
    let folders = (0..<14).map { String(format: "d%02d", $0) + String(repeating: "n", count: 252) }
    let deepest = package + "/" + folders.joined(separator: "/")
    try FileManager.default.createDirectory(atPath: deepest, withIntermediateDirectories: true)
    let monitor = try PackageMonitor(watching: FilePath(package))
    let events = EventCollector(monitor)
    defer {
      events.stop()
      monitor.stop()
    }
    let names = (0..<300).map { String(format: "f%03d", $0) + String(repeating: "y", count: 251) }
    let prefix = folders.joined(separator: "/") + "/"
    let start = ContinuousClock.now
    try await offThePool {
      for name in names { #expect(FileManager.default.createFile(atPath: deepest + "/" + name, contents: Data())) }
    }
    let expected = Set(names.map { prefix + $0 })
    let all = await events.wait(seconds: 30) { events in
      expected.isSubset(of: Set(events.changes.filter { $0.kind == .added }.map(\.path)))
    }
    let elapsed = ContinuousClock.now - start
    #expect(all, "\(Set(events.changes.map(\.path)).intersection(expected).count) of 300 reported in \(elapsed)")
    print("monitor: 300 files 14 levels of 255-byte names deep reported in \(elapsed)")
  }
}
