import Foundation
import TestSupport
import Testing

@testable import DocumentPackage

@Suite("Big files: streamed and mapped with bounded memory")
struct BigFileTests {
  /// Resident memory of this process now, in bytes (from /proc/self/statm).
  private func residentBytes() throws -> Int {
    let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
    return Int(fields[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  @Test func streamingAFileLargerThanMemoryBudgetKeepsMemoryBounded() throws {
    let temp = try TemporaryDirectory()
    let path = try temp.write("Big.pkg/huge.raw", Data())
    let size: Int64 = (2 << 30) + 4096  // past 2^31, sparse: no disk space used, but every byte is read
    #expect(truncate(path, off_t(size)) == 0)
    // A marker at the very end, so the stream must really reach the end.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seek(toOffset: UInt64(size - 4))
    handle.write(Data("END!".utf8))
    try handle.close()

    let before = try residentBytes()
    let node = try PackageNode(contentsOf: temp.filePath.appending("Big.pkg")).node(at: "huge.raw")
    #expect(node.size == size)
    var total: Int64 = 0
    var tail = Data()
    var highest = before
    try node.readContents(chunkSize: 4 << 20) { chunk in
      total += Int64(chunk.count)
      if total > size - 8 { tail.append(contentsOf: chunk.suffix(8)) }
      if total % (256 << 20) == 0 { highest = max(highest, try residentBytes()) }
    }
    #expect(total == size)
    #expect(tail.suffix(4) == Data("END!".utf8))
    #expect(highest - before < 64 << 20)
    #expect(node.isLoaded == false)  // streaming keeps nothing
  }

  @Test func mappingAFileDoesNotCopyIt() throws {
    let temp = try TemporaryDirectory()
    let path = try temp.write("Big.pkg/mapped.raw", Data())
    let size = 1 << 30
    #expect(truncate(path, off_t(size)) == 0)
    let before = try residentBytes()
    let data = try PackageNode(contentsOf: temp.filePath.appending("Big.pkg")).node(at: "mapped.raw").contents()
    #expect(data.count == size)
    #expect(data[size / 2] == 0)
    #expect(try residentBytes() - before < 64 << 20)
  }
}
