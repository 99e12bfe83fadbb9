import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// The monitors of one process share one inotify instance (`fs.inotify.max_user_instances` is 128
/// for all of a user's programs): an app can watch more documents than that.
@Suite("Shared inotify instance")
struct SharedInstanceTests {
  @Test func moreWatchedDocumentsThanTheUsersInstanceLimitInOneProcess() async throws {
    let limit =
      Int(
        try String(contentsOfFile: "/proc/sys/fs/inotify/max_user_instances", encoding: .utf8)
          .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 128
    let count = min(limit, 1000) + 12
    let temp = try TemporaryDirectory("shared-instance")
    var documents: [Document] = []
    for index in 0..<count {
      try temp.write("Doc\(index).pkg/Data/a.txt", "\(index)\n")
      let document = try await Document(contentsOf: FilePath(temp.appending("Doc\(index).pkg")))
      let error = await document.watchingError
      #expect(await document.isWatching, "document \(index) of \(count): \(String(describing: error))")
      documents.append(document)
      if error != nil { break }
    }
    // Every document still hears about its own package only.
    for index in [0, count / 2, count - 1] where index < documents.count {
      try temp.write("Doc\(index).pkg/Data/a.txt", "changed \(index)\n")
      let document = documents[index]
      #expect(
        await eventually {
          await document.lastOutsideChange?.changes.contains(PackageMonitor.Change(.modified, "Data/a.txt")) == true
        }, "document \(index)")
      let text = try await document.read { String(decoding: try $0.node(at: "Data/a.txt").contents(), as: UTF8.self) }
      #expect(text == "changed \(index)\n")
    }
    #expect(await documents[1].lastOutsideChange == nil)
    for document in documents { try await document.close() }
  }
}
