import DocumentArchive
import DocumentPackage

/// Ctrl-C (SIGINT), `kill` (SIGTERM) and a closed terminal (SIGHUP) during `pack` or `unpack`:
/// the command cancels the operation, which removes what it wrote, then ends by that signal.
/// A second signal ends it at once. (The library never handles signals: the tool does, here.)
enum Interruption {
  /// Runs `body` with a cancellation that the termination signals trigger.
  static func cancellingOnSignals<T>(_ body: (ArchiveCancellation) throws -> T) throws -> T {
    let cancellation = ArchiveCancellation()
    let received = SignalBox()
    TerminationSignals.handle { signalNumber in
      received.set(signalNumber)
      cancellation.cancel()
    }
    do {
      return try body(cancellation)
    } catch {
      if let signalNumber = received.value { TerminationSignals.endProcess(by: signalNumber) }
      throw error
    }
  }
}

/// The signal received, set on the signal queue and read on the main thread.
private final class SignalBox: Sendable {
  private let lock = SystemLock()
  nonisolated(unsafe) private var number: CInt?

  func set(_ value: CInt) { lock.withLock { if number == nil { number = value } } }
  var value: CInt? { lock.withLock { number } }
}
