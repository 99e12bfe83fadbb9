import NIOConcurrencyHelpers

/// Objects and bytes done so far, shared by concurrent transfers.
final class TransferCounter: Sendable {
  private let state = NIOLockedValueBox((0, Int64(0)))
  /// The bytes so far.
  var bytes: Int64 { state.withLockedValue { $0.1 } }
  func add(objects: Int, bytes: Int64) -> (Int, Int64) {
    state.withLockedValue {
      $0.0 += objects
      $0.1 += bytes
      return $0
    }
  }
}
