import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Big files: streamed and mapped with bounded memory")
struct BigFileTests {
  /// Makes a sparse file of `size` bytes (no disk space used, but every byte is read) ending in `END!`, so that a
  /// reader must really reach the end.
  private func makeSparseFile(_ path: String, size: Int64) throws {
    #expect(truncate(path, off_t(size)) == 0)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seek(toOffset: UInt64(size - 4))
    handle.write(Data("END!".utf8))
    try handle.close()
  }

  /// Streams the file through `docpkg cat` in a child process and returns the bytes it wrote, the last four of
  /// them and the child's peak resident memory. A child, because this process runs the other suites at the same
  /// time and its own resident memory says nothing about one reader.
  private func catInChild(_ package: String, _ entry: String) throws -> (total: Int64, tail: String, peak: Int) {
    let script = """
      import resource, subprocess, sys
      child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
      total, tail = 0, b""
      while chunk := child.stdout.read(1 << 20):
          total += len(chunk)
          tail = (tail + chunk)[-4:]
      assert child.wait() == 0
      print(total, tail.decode(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
      """
    let output = try Shell.run("python3", ["-c", script, Shell.docpkgPath, "cat", package, entry])
    let fields = output.standardOutput.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    return (Int64(fields[0])!, fields[1], Int(fields[2])!)
  }

  @Test func streamingAFileLargerThanMemoryBudgetKeepsMemoryBounded() throws {
    let temp = try TemporaryDirectory()
    let path = try temp.write("Big.pkg/huge.raw", Data())
    let size: Int64 = (2 << 30) + 4096  // past 2^31
    try makeSparseFile(path, size: size)

    // In this process: every byte arrives, and streaming keeps nothing in the model.
    let node = try PackageNode(contentsOf: temp.filePath.appending("Big.pkg")).node(at: "huge.raw")
    #expect(node.size == size)
    var total: Int64 = 0
    var tail = Data()
    try node.readContents(chunkSize: 4 << 20) { chunk in
      total += Int64(chunk.count)
      tail = (tail + chunk.suffix(4)).suffix(4)
    }
    #expect(total == size)
    #expect(tail == Data("END!".utf8))
    #expect(node.isLoaded == false)

    // Alone in a process: the whole read stays far below the file's size.
    let child = try catInChild(temp.appending("Big.pkg"), "huge.raw")
    #expect(child.total == size)
    #expect(child.tail == "END!")
    #expect(child.peak < 64 << 20)
  }

  @Test func mappingAFileDoesNotCopyIt() throws {
    let temp = try TemporaryDirectory()
    let path = try temp.write("Big.pkg/mapped.raw", Data())
    let size = 1 << 30
    try makeSparseFile(path, size: Int64(size))
    let data = try PackageNode(contentsOf: temp.filePath.appending("Big.pkg")).node(at: "mapped.raw").contents()
    #expect(data.count == size)
    #expect(data[size / 2] == 0)
    #expect(data.suffix(4) == Data("END!".utf8))
    // The bytes are the file's pages, not a copy: this process maps the file while it holds them.
    let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    #expect(maps.split(separator: "\n").contains { $0.hasSuffix(" " + resolved) })
    withExtendedLifetime(data) {}
  }
}
