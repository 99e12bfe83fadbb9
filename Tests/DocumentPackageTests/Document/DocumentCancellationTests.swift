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
}
