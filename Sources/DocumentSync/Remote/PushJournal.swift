import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sync folder's `pushing/NAME`: the objects a push to remote NAME sent, one hash a line, appended as each
/// upload is answered, and removed once the push moved the head (then the synced head's trees say what the remote
/// has). A push killed at any moment leaves it behind, and the next push skips what it lists; a line lost to the
/// kill only costs sending that object again (keys are content hashes, so a second PUT writes the same bytes).
final class PushJournal: Sendable {
  let path: FilePath
  /// The objects an interrupted push sent.
  let sent: Set<String>
  /// Whether a push to this remote was interrupted (the journal was there).
  let wasInterrupted: Bool
  private let file: NIOLockedValueBox<FileDescriptor?>

  /// Opens (creating) the journal at `path`, reading what it lists.
  init(path: FilePath) {
    self.path = path
    let data = FileManager.default.contents(atPath: path.string)
    wasInterrupted = data != nil
    sent = Set(
      String(decoding: data ?? Data(), as: UTF8.self).split(separator: "\n").filter { $0.utf8.count == 64 }.map(
        String.init))
    try? FileManager.default.createDirectory(
      atPath: path.removingLastComponent().string, withIntermediateDirectories: true)
    file = NIOLockedValueBox(
      try? FileDescriptor.open(
        path, .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead]))
  }

  deinit { close() }

  private func close() {
    file.withLockedValue {
      try? $0?.close()
      $0 = nil
    }
  }

  /// Notes that the object `hash` arrived (one `write` with `O_APPEND`: lines of concurrent uploads never mix).
  func note(_ hash: String) async {
    let file = self.file
    _ = try? await BlockingIO.run { try file.withLockedValue { _ = try $0?.writeAll(Array("\(hash)\n".utf8)) } }
  }

  /// Removes the journal: the push is complete.
  func finish() {
    close()
    try? FileManager.default.removeItem(atPath: path.string)
  }
}
