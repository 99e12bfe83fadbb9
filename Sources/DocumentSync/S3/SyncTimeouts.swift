#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// How long a request, and a whole command, may wait on the server.
//
// Three limits, each naming itself when it fires (`SyncError` with code `timeout`, naming the endpoint):
// - first byte: a request without a body (GET, HEAD, DELETE, a listing) must get the start of its answer within
//   this long of being sent, connecting included. A request with a body (a PUT of an object or of a part) gets this
//   long plus one second per 256 KiB of its body to send it and have the answer start.
// - idle read: once a request was sent, no byte of its answer for this long fails it (async-http-client's read
//   timeout: armed when the request's last byte is sent, reset by every byte that arrives).
// - total: the deadline of one operation of `PackageSync` (a push, a pull, a clone, a prune, a fetch, a sync):
//   reached, the operation is cancelled (it stops at the next object, consistent, as for a cancelled task).
//
// A request that timed out is sent once more (after the retry policy's first delay), not as often as other
// transient failures: a server silent twice in a row is not a passing hiccup. So a server that accepts connections
// and never answers fails a command within 2 × first byte + 0.5 s (50.5 s by default).

/// How long a sync waits on the server: for the start of an answer, between two bytes of it, and for a whole
/// operation. Set them in the library with ``PackageSync/init(packageAt:remote:credentials:environment:parallelism:timeouts:)``,
/// and for `docpkg` with the environment variables ``firstByteVariable``, ``idleReadVariable`` and
/// ``totalVariable`` (seconds; decimals allowed).
public struct SyncTimeouts: Sendable, Hashable {
  /// How long a request waits for the first byte of its answer (default 25 s).
  public var firstByte: Duration
  /// How long a request's answer may pause between two bytes (default 25 s).
  public var idleRead: Duration
  /// The deadline of one whole operation (default nil: none).
  public var total: Duration?

  /// `DOCPKG_SYNC_FIRST_BYTE_TIMEOUT`: ``firstByte`` in seconds.
  public static let firstByteVariable = "DOCPKG_SYNC_FIRST_BYTE_TIMEOUT"
  /// `DOCPKG_SYNC_IDLE_TIMEOUT`: ``idleRead`` in seconds.
  public static let idleReadVariable = "DOCPKG_SYNC_IDLE_TIMEOUT"
  /// `DOCPKG_SYNC_DEADLINE`: ``total`` in seconds (`0`: none).
  public static let totalVariable = "DOCPKG_SYNC_DEADLINE"

  /// Timeouts.
  /// - Parameters:
  ///   - firstByte: How long a request waits for the first byte of its answer.
  ///   - idleRead: How long an answer may pause between two bytes.
  ///   - total: The deadline of one whole operation (nil: none).
  public init(firstByte: Duration = .seconds(25), idleRead: Duration = .seconds(25), total: Duration? = nil) {
    self.firstByte = firstByte
    self.idleRead = idleRead
    self.total = total
  }

  /// The defaults, changed by those of ``firstByteVariable``, ``idleReadVariable`` and ``totalVariable`` that
  /// `environment` sets to a number of seconds (others are ignored).
  public init(environment: [String: String]) {
    self.init()
    if let seconds = Self.seconds(environment[Self.firstByteVariable]), seconds > .zero { firstByte = seconds }
    if let seconds = Self.seconds(environment[Self.idleReadVariable]), seconds > .zero { idleRead = seconds }
    if let seconds = Self.seconds(environment[Self.totalVariable]) { total = seconds > .zero ? seconds : nil }
  }

  private static func seconds(_ text: String?) -> Duration? {
    guard let text, let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return .milliseconds(Int64(value * 1000))
  }

  /// How long a request with a body of `bytes` bytes may take to be sent and have its answer start.
  func firstByte(afterSending bytes: Int) -> Duration {
    firstByte + .seconds(bytes / (256 << 10))
  }
}

extension Duration {
  /// The duration in words for a message: `20 s`, `0.5 s`.
  var inWords: String {
    let (seconds, attoseconds) = components
    if attoseconds == 0 { return "\(seconds) s" }
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return "\((value * 1000).rounded() / 1000) s"
  }
}
