import DocumentArchive
import DocumentPackage
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 15: the async forms of pack and unpack run off the cooperative pool, report progress,
/// and stop promptly when their task is cancelled, leaving nothing behind.
@Suite("async, cancellable pack and unpack")
struct AsyncArchiveTests {
  /// A package of 96 MiB in 24 files: long enough to pack or unpack that a cancel lands mid-way.
  func makePackage(in temp: TemporaryDirectory) throws -> String {
    let package = try temp.makeDirectory("Big.pkg")
    // Half random bytes: compresses about 2x, far from the unpack's compression-ratio limit.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8](repeating: 65, count: 4 << 20)
    for index in stride(from: 0, to: bytes.count, by: 2) {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    let chunk = Data(bytes)
    for index in 0..<24 { _ = try temp.write("Big.pkg/file\(index).bin", chunk) }
    return package
  }

  /// The progress reports seen, shared with the callback's thread.
  final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ArchiveProgress] = []
    private var cancel: (@Sendable () -> Void)?
    func add(_ progress: ArchiveProgress) {
      let cancel = lock.withLock {
        list.append(progress)
        return progress.bytesDone > 0 ? self.cancel : nil
      }
      cancel?()
    }
    var all: [ArchiveProgress] { lock.withLock { list } }

    /// Calls `cancel` from the callback's thread at the first report with bytes done (and at later
    /// ones): the cancel lands mid-way however late the test's own task runs again, which can be
    /// long on a cooperative pool kept busy by other tests' blocking calls.
    func cancelOnFirstBytes(_ cancel: @escaping @Sendable () -> Void) { lock.withLock { self.cancel = cancel } }
  }

  @Test("pack and unpack complete and report progress up to their totals", arguments: [ArchiveFormat.zip, .tarGzip])
  func completes(format: ArchiveFormat) async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let archive = FilePath(temp.appending("Big.\(format.rawValue)"))
    let packReports = Reports()
    try await ArchivePacker.pack(
      contentsOf: FilePath(package), to: archive, options: PackOptions(format: format, level: 1)
    ) { packReports.add($0) }
    #expect(packReports.all.last?.fractionDone == 1)
    let out = try temp.makeDirectory("out")
    let unpackReports = Reports()
    let report = try await ArchiveUnpacker.unpack(archive, into: FilePath(out)) { unpackReports.add($0) }
    #expect(report.created == ["Big.pkg"])
    #expect(unpackReports.all.last?.fractionDone == 1)
    #expect(unpackReports.all.last?.bytesDone == 96 << 20)
    if format == .zip {
      // A zip's central directory gives the totals from the first report on.
      let first = unpackReports.all.first
      #expect(first?.entriesTotal == 25 && first?.bytesTotal == 96 << 20, "\(String(describing: first))")
      #expect(first.map { $0.bytesDone < $0.bytesTotal } == true)
    }
  }

  @Test("cancelling the task stops a pack mid-way and leaves no archive", arguments: [ArchiveFormat.zip, .tarXz])
  func cancelledPack(format: ArchiveFormat) async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let out = try temp.makeDirectory("out")
    let reports = Reports()
    let task = Task {
      try await ArchivePacker.pack(
        contentsOf: FilePath(package), to: FilePath(out + "/Big.\(format.rawValue)"),
        options: PackOptions(format: format)
      ) { reports.add($0) }
    }
    reports.cancelOnFirstBytes { task.cancel() }
    let error = await #expect(throws: PackageError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    #expect(reports.all.allSatisfy { $0.bytesDone < 96 << 20 }, "the pack had finished before the cancel")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
  }

  @Test("cancelling the task stops an unpack mid-way and leaves nothing in the destination")
  func cancelledUnpack() async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let archive = temp.appending("Big.tar.gz")
    try await ArchivePacker.pack(
      contentsOf: FilePath(package), to: FilePath(archive), options: PackOptions(format: .tarGzip, level: 1))
    let out = try temp.makeDirectory("out")
    let reports = Reports()
    let task = Task {
      try await ArchiveUnpacker.unpack(FilePath(archive), into: FilePath(out)) { reports.add($0) }
    }
    reports.cancelOnFirstBytes { task.cancel() }
    let error = await #expect(throws: PackageError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
  }

  @Test("a task cancelled before it starts packs nothing")
  func cancelledBeforeStart() async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let out = try temp.makeDirectory("out")
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await ArchivePacker.pack(
        contentsOf: FilePath(package), to: FilePath(out + "/Big.zip"), options: PackOptions(format: .zip))
    }
    let error = await #expect(throws: PackageError.self) { try await task.value }
    #expect(error?.code == .cancelled)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
  }
}
