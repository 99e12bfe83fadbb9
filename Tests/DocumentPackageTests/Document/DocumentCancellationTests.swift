import Dispatch
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Lets a test act while a save is held at its last step before the commit point.
private final class SaveHold: @unchecked Sendable {
  let reached = DispatchSemaphore(value: 0)
  let release = DispatchSemaphore(value: 0)
}

/// A file an app supplies from elsewhere (a ``FileContentSource``), whose first read waits until
/// the test lets it go: the save is then in the middle of building the new state.
private final class HeldSource: FileContentSource, @unchecked Sendable {
  let hold = SaveHold()
  let bytes = Data("from the app\n".utf8)
  private let lock = NSLock()
  private var released = false

  var size: Int64 { Int64(bytes.count) }

  func readAll() throws -> Data {
    waitTheFirstTime()
    return bytes
  }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    waitTheFirstTime()
    try bytes.withUnsafeBytes { try body($0) }
  }

  private func waitTheFirstTime() {
    let first = lock.withLock {
      defer { released = true }
      return !released
    }
    guard first else { return }
    hold.reached.signal()
    _ = hold.release.wait(timeout: .now() + .seconds(30))
  }
}

/// An app cancels the task running a save: honoured up to the commit point.
@Suite("Document save cancellation")
struct DocumentCancellationTests {
  @Test func aSaveCancelledBeforeItsCommitPointLeavesThePackageAndTheDocumentAsTheyWere() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let before = try String(contentsOfFile: path + "/Text.txt", encoding: .utf8)
    let document = try await Document(contentsOf: FilePath(path))
    let hold = SaveHold()
    // The new state is built and durable; the save waits here while the app cancels it.
    await document.setWillReplacePreviousState { _ in
      hold.reached.signal()
      _ = hold.release.wait(timeout: .now() + .seconds(30))
    }
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("unsaved".utf8)) }
    let saving = Task { try await document.save() }
    try await offThePool { _ = hold.reached.wait(timeout: .now() + .seconds(30)) }
    saving.cancel()
    hold.release.signal()
    await #expect(throws: CancellationError.self) { try await saving.value }
    #expect(try String(contentsOfFile: path + "/Text.txt", encoding: .utf8) == before)
    #expect(await document.hasUnsavedChanges)
    #expect(await document.state == .normal)  // a cancelled save is no saving error
    #expect(await document.lastError == nil)
    #expect(try await document.versions().isEmpty)  // no version of a state that was not replaced
    // The next save saves.
    await document.setWillReplacePreviousState(nil)
    try await document.save()
    #expect(try String(contentsOfFile: path + "/Text.txt", encoding: .utf8) == "unsaved")
    #expect(await !document.hasUnsavedChanges)
    try await document.close()
  }

  @Test func aSaveWhoseTaskIsCancelledAlreadyChangesNothing() async throws {
    let temp = try TemporaryDirectory()
    let path = try Fixtures.copy("Notes.mydoc", into: temp)
    let before = try String(contentsOfFile: path + "/Text.txt", encoding: .utf8)
    let document = try await Document(contentsOf: FilePath(path))
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("unsaved".utf8)) }
    let saving = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await document.save()
    }
    await #expect(throws: CancellationError.self) { try await saving.value }
    #expect(try String(contentsOfFile: path + "/Text.txt", encoding: .utf8) == before)
    #expect(await document.hasUnsavedChanges)
    #expect(await document.state == .normal)
    try await document.close()
  }

  @Test func aSaveOfALargePackageCancelledWhileBuildingLeavesThePackageAndNothingBesideIt() async throws {
    let temp = try TemporaryDirectory()
    for index in 0..<300 { try temp.write("P.pkg/Many/f\(index).txt", "\(index)\n") }
    try temp.write("P.pkg/Old.txt", "old\n")
    let path = temp.appending("P.pkg")
    let document = try await Document(contentsOf: FilePath(path))
    let source = HeldSource()
    // Two root entries change: the save builds a new root, hard-linking every file of Many/.
    try await document.edit(named: "Import") { root in
      try root.removeNode(at: "Old.txt")
      try root.setNode(PackageNode(regularFileWithSource: source), at: "Imported.bin")
    }
    let saving = Task { try await document.save() }
    try await offThePool { _ = source.hold.reached.wait(timeout: .now() + .seconds(30)) }
    saving.cancel()
    source.hold.release.signal()
    await #expect(throws: CancellationError.self) { try await saving.value }
    #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0.contains("docpkg-tmp") } == [])
    #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["Many", "Old.txt"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/Many").count == 300)
    #expect(await document.hasUnsavedChanges)
    #expect(await document.state == .normal)
    #expect(try await document.versions().isEmpty)
    // The next save saves.
    try await document.save()
    #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["Imported.bin", "Many"])
    #expect(try String(contentsOfFile: path + "/Imported.bin", encoding: .utf8) == "from the app\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/Many").count == 300)
    try await document.close()
  }
}
