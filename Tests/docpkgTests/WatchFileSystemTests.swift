import Foundation
import TestSupport
import Testing

/// `docpkg watch` on the real file systems `Scripts/filesystems.sh` mounts for `make fs-test` (issue
/// 24; skipped where a `DOCPKG_FS_<NAME>` variable is not set): it polls on FUSE and inotify sees
/// everything elsewhere, and on the sshfs share it reports an edit made on the server side within
/// its polling interval.
@Suite("docpkg watch on file systems")
struct WatchFileSystemTests {
  struct Mount: CustomTestStringConvertible, Sendable {
    var name: String
    var path: String
    var testDescription: String { name }
    /// What watch says it does there: FAT, exFAT and sshfs are FUSE file systems here.
    var mode: String {
      ["FAT", "EXFAT", "SSHFS"].contains(name) ? "polling every 1 s: FUSE file system" : "inotify"
    }
  }

  static let mounts: [Mount] = ["FAT", "EXFAT", "SSHFS", "OVERLAY", "BTRFS", "XFS"].compactMap { name in
    ProcessInfo.processInfo.environment["DOCPKG_FS_\(name)"].map { Mount(name: name, path: $0) }
  }

  @Test("watch says how it watches and reports an edit made through the mount", arguments: mounts)
  func reportsAnEditThroughTheMount(_ mount: Mount) async throws {
    // A folder of this test's own (others use the mount at the same time), removed with what is in it.
    let folder = mount.path + "/watch-" + UUID().uuidString.prefix(8).lowercased()
    try FileManager.default.createDirectory(atPath: folder + "/Doc.pkg/Data", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data("a\n".utf8).write(to: URL(fileURLWithPath: folder + "/Doc.pkg/Data/a.txt"))
    let watch = try RunningProcess(watch: [folder + "/Doc.pkg"])
    defer { watch.stop() }
    #expect(await watch.started())
    #expect(watch.standardError.hasSuffix(" (2 directories, \(mount.mode))\n"), "\(watch.standardError)")
    // Another size: FAT keeps times to 2 s.
    try Data("changed through the mount\n".utf8).write(to: URL(fileURLWithPath: folder + "/Doc.pkg/Data/a.txt"))
    try Data("new\n".utf8).write(to: URL(fileURLWithPath: folder + "/Doc.pkg/b.txt"))
    #expect(await watch.wait { $0.lines.contains("modified Data/a.txt") }, "\(watch.standardOutput)")
    #expect(await watch.wait { $0.lines.contains("added b.txt") }, "\(watch.standardOutput)")
  }

  @Test(.enabled(if: SshfsFolder.isAvailable, "DOCPKG_FS_SSHFS is not set"))
  func reportsAnEditMadeOnTheServerSideOfSshfsWithinThePollingInterval() async throws {
    let share = try SshfsFolder("watch")
    try share.writeOnServer("Doc.pkg/a.txt", "a\n")
    try share.writeOnServer("Doc.pkg/Data/b.txt", "b\n")
    let watch = try RunningProcess(watch: [share.mounted + "/Doc.pkg", "--json"])
    defer { watch.stop() }
    #expect(await watch.started())
    #expect(
      watch.standardError.hasSuffix(" (2 directories, polling every 1 s: FUSE file system)\n"),
      "\(watch.standardError)")
    let start = ContinuousClock.now
    try share.writeOnServer("Doc.pkg/Data/b.txt", "changed on the server\n")
    let path = #""path":"Data/b.txt"}"#  // the last key: {"kind","packagePath","path"} are sorted
    #expect(
      await watch.wait(seconds: 30) {
        $0.lines.contains { $0.hasPrefix(#"{"kind":"modified","#) && $0.hasSuffix(path) }
      }, "\(watch.standardOutput)")
    // Within the interval (1 s), plus the kernel's attribute cache of a FUSE file (up to 1 s) and slack
    // for a shared machine; timed when the line came through the pipe.
    let seen = watch.arrival(ofLineContaining: path).map { $0 - start }
    print("docpkg watch on sshfs: an edit on the server side was reported after \(seen ?? .zero)")
    #expect(seen.map { $0 < .seconds(1 + 3) } == true, "\(String(describing: seen))")
    #expect(watch.lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
  }
}
