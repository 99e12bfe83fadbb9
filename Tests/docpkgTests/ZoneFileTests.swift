import Foundation
import TestSupport
import Testing

/// `docpkg` names the zone file in `TZ` when it is unset, so libarchive's MS-DOS time conversions do
/// not make glibc `stat` `/etc/localtime` for every entry (see `LocalTime.readZoneFileOnce`).
@Suite("the local time zone file")
struct ZoneFileTests {
  @Test("unpacking a zip of many entries looks at /etc/localtime a bounded number of times, not per entry")
  func zoneFileReadOnce() throws {
    guard Shell.has("strace"), Shell.has("zip") else {
      Issue.record("strace or zip is not installed (Scripts/setup.sh installs them)")
      return
    }
    let temp = try TemporaryDirectory()
    for index in 0..<200 { try temp.write("Z/f\(index).txt", "\(index)\n") }
    // `-X`: no extra fields, so every entry has only its MS-DOS time, which libarchive converts.
    try Shell.run("zip", ["-qrX", temp.appending("z.zip"), "Z"], directory: temp.path)
    try FileManager.default.createDirectory(atPath: temp.appending("out"), withIntermediateDirectories: false)
    let (result, calls) = try Shell.traceDocpkg(
      ["unpack", temp.appending("z.zip"), "-o", temp.appending("out"), "--quiet"], calls: "%stat,%fstat,openat",
      unsetting: ["TZ"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(FileManager.default.fileExists(atPath: temp.appending("out/Z/f199.txt")))
    let looks = calls.filter { $0.contains("/etc/localtime") }
    #expect(looks.count <= 4, "\(looks.count) looks at /etc/localtime for 200 entries")
  }
}
