import Foundation
import TestSupport
import Testing

/// Issue 40: docpkg reads a GNU or pax tar's headers itself once (for what libarchive does not report), a whole pass
/// over the tar. Reading a file of a tar read in place opens the tar again; that reader takes the walk's scan while
/// the file is unchanged, where it used to scan the whole tar again for one entry.
@Suite("a GNU tar read in place: its headers scanned once", .enabled(if: Shell.has("strace") && Shell.has("tar")))
struct TarScanOnceTests {
  @Test("cat of one file of a GNU tar opens it to walk it and to scan its headers: the file is kept as it is passed")
  func catScansTheHeadersOnce() throws {
    let temp = try TemporaryDirectory()
    _ = try temp.write("P/a.txt", "a\n")
    _ = try temp.write("P/b.txt", "b\n")
    try Shell.run("tar", ["--format=gnu", "-cf", "p.tar", "P"], directory: temp.path)
    let archive = temp.appending("p.tar")
    let (output, calls) = try Shell.traceDocpkg(["cat", archive, "b.txt"], calls: "openat")
    #expect(output.status == 0, "\(output.standardError)")
    #expect(output.standardOutput == "b\n")
    // The reads of the archive's contents (read-only, blocking); the command's other looks at the path (its kind,
    // its format, a lock beside it) open it otherwise.
    let reads = calls.filter { $0.contains("\"\(archive)\", O_RDONLY|O_CLOEXEC) = ") }
    // Not a third time to read the file: the walk kept its bytes as it passed it (issue 40).
    #expect(reads.count == 2, "\(calls.joined(separator: "\n"))")
  }
}
