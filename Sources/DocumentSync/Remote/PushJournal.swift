import DocumentPackage
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sync folder's `pushing/NAME`: the objects a push to remote NAME sent, one hash a line, appended as each
/// upload is answered, and removed once the push moved the head (then the synced head's trees say what the remote
/// has). A push killed at any moment, or one that lost the race for the head, leaves it behind. The next push does
/// not take its word: no state names those objects, so a prune that ran in between (on any device) may have
/// deleted them; it asks the remote (a HEAD each, or one listing when many), under its lock, and sends what is
/// missing.
final class PushJournal: Sendable {
  let path: FilePath
  /// The objects an interrupted push sent.
  let sent: Set<String>
  /// Whether a push to this remote was interrupted (the journal was there).
  let wasInterrupted: Bool
  /// The journal, open for appending (nil if it cannot be: then nothing is noted, and an interrupted push
  /// sends again what it had sent).
  private let file: NIOLockedValueBox<CInt?>

  /// Opens (creating) the journal at `path`, reading what it lists (blocking).
  init(path: FilePath) {
    self.path = path
    let data = (try? LocalFiles.read(path)) ?? nil
    wasInterrupted = data != nil
    sent = Set(
      String(decoding: data ?? Data(), as: UTF8.self).split(separator: "\n").filter { $0.utf8.count == 64 }.map(
        String.init))
    file = NIOLockedValueBox(try? LocalFiles.openForAppending(path))
  }

  deinit { close() }

  private func close() {
    file.withLockedValue {
      if let fd = $0 { Syscalls.closeFile(fd) }
      $0 = nil
    }
  }

  /// Notes that the object `hash` arrived (one `write` with `O_APPEND`: lines of concurrent uploads never mix).
  func note(_ hash: String) async {
    let (file, path) = (self.file, self.path)
    _ = try? await BlockingIO.run {
      try file.withLockedValue { fd in
        if let fd { try LocalFiles.append(Data("\(hash)\n".utf8), to: fd, path: path) }
      }
    }
  }

  /// Removes the journal: the push is complete (blocking).
  func finish() {
    close()
    try? LocalFiles.remove(path)
  }
}
