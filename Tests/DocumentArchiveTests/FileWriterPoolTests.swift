import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive

/// The unpack's small-file writer: groups claimed by whoever is free, the calling thread creating files itself
/// when the workers fall behind, and no worker at all on one core. Whatever the number of workers, every file
/// is created with its bytes, mode and time, and the failure reported is the first in archive order.
@Suite("Unpack's file writer pool")
struct FileWriterPoolTests {
  static let directories = 40
  static let filesPerDirectory = 75

  /// Opens `count` fresh directories in `temp` as the extractor would hand them to the pool.
  static func directories(in temp: TemporaryDirectory, count: Int) throws -> [DirectoryHandle] {
    try (0..<count).map { index in
      let path = try temp.makeDirectory("d\(index)")
      return DirectoryHandle(fd: try Syscalls.openDirectory(FilePath(path)))
    }
  }

  static func job(_ number: Int, in handles: [DirectoryHandle]) -> FileJob {
    let directory = number / filesPerDirectory
    return FileJob(
      parent: handles[directory], name: "f\(number).txt", path: "d\(directory)/f\(number).txt",
      data: Array("file \(number)\n".utf8) + [UInt8](repeating: UInt8(number % 251), count: number % 3000),
      mode: 0o640, time: FileTime(seconds: 1_700_000_000 + Int64(number)))
  }

  @Test("every file is created, with its bytes, mode and time", arguments: [0, 1, 2, 4])
  func createsEveryFile(workers: Int) throws {
    let temp = try TemporaryDirectory()
    let handles = try Self.directories(in: temp, count: Self.directories)
    let pool = FileWriterPool(archive: "test.zip", workers: workers)
    let count = Self.directories * Self.filesPerDirectory
    for number in 0..<count { try pool.add(Self.job(number, in: handles)) }
    try pool.wait()
    for number in 0..<count {
      let expected = Self.job(number, in: handles)
      let path = temp.appending(expected.path)
      #expect(FileManager.default.contents(atPath: path) == Data(expected.data), "\(path)")
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect((attributes[.posixPermissions] as? Int) == 0o640, "\(path)")
      let time = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
      #expect(time == Double(1_700_000_000 + number), "\(path)")
    }
  }

  @Test("the failure reported is the first in archive order", arguments: [0, 1, 2])
  func firstFailureInArchiveOrder(workers: Int) throws {
    let temp = try TemporaryDirectory()
    let handles = try Self.directories(in: temp, count: Self.directories)
    // Files already there: creating them fails (O_EXCL). The later one may fail first on another thread.
    let first = 1_234, second = 2_345
    for number in [first, second] { _ = try temp.write(Self.job(number, in: handles).path, "in the way") }
    let pool = FileWriterPool(archive: "test.zip", workers: workers)
    let error = #expect(throws: PackageError.self) {
      for number in 0..<(Self.directories * Self.filesPerDirectory) { try pool.add(Self.job(number, in: handles)) }
      try pool.wait()
    }
    #expect(error?.code == .io)
    #expect(error?.description.contains("d16/f1234.txt") == true, "\(String(describing: error))")
  }
}
