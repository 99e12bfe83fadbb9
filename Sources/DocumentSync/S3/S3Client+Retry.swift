import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SystemPackage

// Which failures are retried, and for how long.
//
// A failure that the next attempt may not meet is retried with a bounded backoff: a 500, 502, 503 or 504 answer,
// a 429 or `SlowDown`, a connection closed or reset while a request was sent or its answer read, a read timeout.
// The delays double from half a second (0.5, 1, 2, 4 s by default: at most 7.5 s of waiting in all for one request)
// and the count is `DOCPKG_SYNC_RETRIES` (default 4, `0` retries nothing).
//
// A failure the next attempt would meet again fails at once, with one line saying what is wrong: a connection
// refused, a host name that does not resolve, a TLS refusal (see `S3Client+TLS.swift`), any 4xx answer (a missing
// bucket, a refused signature, a missing key: the caller decides what a missing key means). The connection pool
// does not retry opening connections itself (async-http-client would until the request's deadline, 120 s: that
// was the 90 s a refused connection took to fail). A connection that does not open within
// `RetryPolicy.connectTimeout` (a busy server's full backlog drops the attempt, as does a host that drops every
// packet) is retried like a reset: a few attempts of 5 s.
//
// Conditional writes (`If-Match`, `If-None-Match`) and POSTs are sent once: a second attempt of a write that
// landed would be refused (412) or act twice, and their callers look at the outcome themselves (a push reads the
// head again).

/// How many times, and after which delays, a request that failed for a transient reason is sent again.
package struct RetryPolicy: Sendable, Hashable {
  /// How many times a request is sent again after a transient failure (0: never).
  package var retries: Int
  /// The delay before the first retry; each next one doubles, up to ``maximumDelay``.
  package var firstDelay: Duration
  /// The longest delay between two attempts.
  package var maximumDelay: Duration

  /// The environment variable that sets ``retries``.
  package static let environmentVariable = "DOCPKG_SYNC_RETRIES"
  /// How long a connection may take to open before the request fails.
  static let connectTimeout: TimeAmount = .seconds(5)

  /// A policy.
  package init(retries: Int = 4, firstDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8)) {
    self.retries = max(0, retries)
    self.firstDelay = firstDelay
    self.maximumDelay = maximumDelay
  }

  /// The default policy, with the retry count of `DOCPKG_SYNC_RETRIES` in `environment` when it is a number.
  package init(environment: [String: String]) {
    self.init()
    if let text = environment[Self.environmentVariable], let count = Int(text), count >= 0 { retries = count }
  }

  /// The delay before retry number `retry` (1 for the first).
  func delay(beforeRetry retry: Int) -> Duration {
    var delay = firstDelay
    for _ in 1..<max(1, retry) {
      delay = delay * 2
      if delay >= maximumDelay { return maximumDelay }
    }
    return min(delay, maximumDelay)
  }

  /// The most time all delays of one request add up to.
  package var totalDelay: Duration {
    (0..<retries).reduce(Duration.zero) { $0 + delay(beforeRetry: $1 + 1) }
  }
}

extension S3Client {
  /// Runs `attempt` until it succeeds, fails for a reason a retry would meet again, or ``retryPolicy`` runs out;
  /// waits the policy's delay between attempts. `attempt` gets the number of the attempt (0 for the first).
  /// - Throws: The last attempt's error; ``SyncError`` with code `cancelled` if the task is cancelled while waiting.
  func retrying<T>(
    _ method: HTTPMethod, key: String, retryable: Bool = true, _ attempt: (Int) async throws -> T
  ) async throws -> T {
    var number = 0
    var timeouts = 0
    while true {
      do {
        return try await attempt(number)
      } catch let error as SyncError
        where retryable && number < retryPolicy.retries && error.isTransient
        && (error.code != .timeout || timeouts == 0)
      {
        // A request that timed out is sent once more, not as often as others: a server silent twice is not a hiccup.
        if error.code == .timeout { timeouts += 1 }
        number += 1
        do { try await Task.sleep(for: retryPolicy.delay(beforeRetry: number)) } catch {
          throw SyncError(.cancelled, "\(method.rawValue) cancelled", key: key)
        }
      }
    }
  }

  /// The ``SyncError`` for a request to `key` that got no answer because of `error`.
  func transportFailure(_ error: any Error, _ method: HTTPMethod, key: String) -> SyncError {
    if let refusal = Self.tlsRefusal(error, endpoint: endpoint, caBundle: caBundle) { return refusal }
    let unreachable = "cannot connect to \(endpoint) to \(method.rawValue)"
    let hint = "(is the server running, is the endpoint right?)"
    if let connection = error as? NIOConnectionError {
      if connection.dnsAError != nil || connection.dnsAAAAError != nil {
        return SyncError(
          .unreachable, unreachable, key: key,
          serverMessage: "the host name '\(connection.host)' does not resolve \(hint)")
      }
      let reasons = Set(connection.connectionErrors.map { Self.words(for: $0.error) })
      let reason = reasons.isEmpty ? "no address to connect to" : reasons.sorted().joined(separator: ", ")
      return SyncError(.unreachable, unreachable, key: key, serverMessage: "\(reason) \(hint)")
    }
    if let client = error as? HTTPClientError, client == .connectTimeout {
      return SyncError(.transport, unreachable, key: key, serverMessage: "\(Self.words(for: client)) \(hint)")
    }
    if let unknown = error as? SocketAddressError.UnknownHost {
      return SyncError(
        .unreachable, unreachable, key: key, serverMessage: "the host name '\(unknown.host)' does not resolve \(hint)")
    }
    if let io = error as? IOError, Errno(rawValue: io.errnoCode) == .connectionRefused {
      return SyncError(.unreachable, unreachable, key: key, serverMessage: "connection refused \(hint)")
    }
    return SyncError(.transport, "\(method.rawValue) to \(endpoint) failed", key: key, serverMessage: "\(error)")
  }

  /// Which timeout fired (``SyncTimeouts``), and after how long.
  enum Timeout {
    /// No answer began within the first-byte timeout.
    case firstByte(Duration)
    /// No byte arrived within the idle-read timeout: before the answer began (`started` false) or in its body.
    case idleRead(Duration, started: Bool)
  }

  /// The ``SyncError`` (code `timeout`) for a request to `key` that `timeout` ended: one line naming the endpoint,
  /// the timeout and the variable that sets it.
  func timedOut(_ timeout: Timeout, _ method: HTTPMethod, key: String) -> SyncError {
    switch timeout {
    case .firstByte(let limit):
      return SyncError(
        .timeout,
        "no answer from \(endpoint) within \(limit.inWords) (the first-byte timeout, \(SyncTimeouts.firstByteVariable)) to \(method.rawValue)",
        key: key)
    case .idleRead(let limit, started: false):
      return SyncError(
        .timeout,
        "no answer from \(endpoint) within \(limit.inWords) of sending the request (the idle-read timeout, \(SyncTimeouts.idleReadVariable)) to \(method.rawValue)",
        key: key)
    case .idleRead(let limit, started: true):
      return SyncError(
        .timeout,
        "the answer from \(endpoint) stopped for \(limit.inWords) (the idle-read timeout, \(SyncTimeouts.idleReadVariable)) during \(method.rawValue)",
        key: key)
    }
  }

  /// The error for `error`, thrown while the body of the answer to `method` on `key` arrived: a timeout said as
  /// such (``timedOut(_:_:key:)``), anything else a transport failure described by `what`.
  func bodyFailure(_ error: any Error, _ method: HTTPMethod, key: String, _ what: String) -> SyncError {
    if let client = error as? HTTPClientError, client == .readTimeout {
      return timedOut(.idleRead(timeouts.idleRead, started: true), method, key: key)
    }
    return SyncError(.transport, what, key: key, serverMessage: "\(error)")
  }

  /// A connection error in words (`connection refused`).
  private static func words(for error: any Error) -> String {
    if let io = error as? IOError {
      switch Errno(rawValue: io.errnoCode) {
      case .connectionRefused: return "connection refused"
      case .networkUnreachable: return "network unreachable"
      case .noRouteToHost: return "no route to host"
      case .timedOut: return "timed out"
      default: return "\(io)"
      }
    }
    if let client = error as? HTTPClientError, client == .connectTimeout {
      return "no answer within \(RetryPolicy.connectTimeout.seconds) s"
    }
    return "\(error)"
  }
}

extension TimeAmount {
  /// Whole seconds.
  var seconds: Int64 { nanoseconds / 1_000_000_000 }
}

extension SyncError {
  /// Whether another attempt may succeed: a 5xx the server says is passing (500, 502, 503, 504), 429 and
  /// `SlowDown`, a connection that closed or reset mid-request (code `transport`).
  var isTransient: Bool {
    if code == .transport || code == .timeout { return true }
    guard code == .server, let status else { return false }
    return [429, 500, 502, 503, 504].contains(status) || serverCode == "SlowDown"
  }
}
