import Dispatch
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// Counts hooks that have started, and releases them.
private final class Gate: @unchecked Sendable {
  private let lock = NSLock()
  private var entered = 0
  let release = DispatchSemaphore(value: 0)

  /// Counts one more entry; true for the `count`th.
  func enter(of count: Int) -> Bool {
    lock.withLock {
      entered += 1
      return entered == count
    }
  }
}

@Suite("Document executor")
struct DocumentExecutorTests {
  /// As many documents as the cooperative pool has threads save at once, each blocked inside its
  /// save (a test hook standing for a long fsync) until a new task releases them. If saves ran
  /// on the cooperative pool they would hold every one of its threads and the releasing task
  /// could never run: each hook would time out and the saves fail.
  @Test func otherTasksRunWhileSavesAreInFlight() async throws {
    let temp = try TemporaryDirectory()
    let count = max(2, ProcessInfo.processInfo.activeProcessorCount)
    let gate = Gate()
    var documents: [Document] = []
    for index in 0..<count {
      _ = try temp.write("Doc\(index).pkg/Text.txt", "old\n")
      let document = try await Document(contentsOf: FilePath(temp.appending("Doc\(index).pkg")))
      await document.setVersionPolicy(.none)
      let key = DispatchSpecificKey<Int>()
      document.executor.queue.setSpecific(key: key, value: index)
      await document.setWillReplacePreviousState { _ in
        if DispatchQueue.getSpecific(key: key) != index {  // the save's I/O runs on the document's own queue
          throw PackageError(.io, "the save ran outside the document's queue", path: "test hook")
        }
        if gate.enter(of: count) {
          Task { for _ in 0..<count { gate.release.signal() } }  // needs a cooperative thread to run
        }
        if gate.release.wait(timeout: .now() + .seconds(30)) == .timedOut {
          throw PackageError(.io, "no other task ran while the saves were in flight", path: "test hook")
        }
      }
      try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("new\n".utf8)) }
      documents.append(document)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for document in documents { group.addTask { try await document.save() } }
      try await group.waitForAll()
    }
    for index in 0..<count {
      #expect(try String(contentsOfFile: temp.appending("Doc\(index).pkg/Text.txt"), encoding: .utf8) == "new\n")
    }
  }
}
