import NIOConcurrencyHelpers

/// The open event streams (`/api/events`, server-sent events) and what is sent to them: each change the monitor
/// reports, as one `change` event. A page that connects later learns nothing old: it loads the current state.
///
/// At most ``limit`` streams are open: a stream lasts as long as its page, so without a cap of their own, streams
/// would fill the server's connections with requests that never end, and no connection would be idle to give way
/// to a new one (``ConnectionRegistry``). One stream more ends the oldest: its response ends, and its connection
/// waits for a next request like any idle one (a page still open reconnects, as `EventSource` does).
final class EventHub: Sendable {
  /// The most streams open at once.
  let limit: Int
  private let subscribers = NIOLockedValueBox<[Int: AsyncStream<String>.Continuation]>([:])
  private let nextID = NIOLockedValueBox(0)
  private let watching = NIOLockedValueBox(false)

  init(limit: Int) {
    self.limit = limit
  }

  /// How many streams are open.
  var count: Int { subscribers.withLockedValue { $0.count } }

  /// Whether the package's monitor is watching (it starts after the server listens).
  var isWatching: Bool { watching.withLockedValue { $0 } }

  /// Says on every stream that changes are followed from now on (`live`).
  func startWatching() {
    watching.withLockedValue { $0 = true }
    publish("live", data: ["live": true])
  }

  /// A new stream of events (each an SSE record, `event: ...\ndata: ...\n\n`), until `cancel` is called or
  /// ``limit`` newer streams are opened (the oldest stream ends first).
  func subscribe() -> (events: AsyncStream<String>, cancel: @Sendable () -> Void) {
    let id = nextID.withLockedValue { value in
      value += 1
      return value
    }
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
    let ended = subscribers.withLockedValue { subscribers -> [AsyncStream<String>.Continuation] in
      subscribers[id] = continuation
      var ended: [AsyncStream<String>.Continuation] = []
      // Ids grow: the smallest is the oldest. O(limit), only when one too many.
      while subscribers.count > limit, let oldest = subscribers.keys.min() {
        ended.append(subscribers.removeValue(forKey: oldest)!)
      }
      return ended
    }
    for continuation in ended { continuation.finish() }
    let cancel: @Sendable () -> Void = { [subscribers] in
      subscribers.withLockedValue { $0.removeValue(forKey: id) }?.finish()
    }
    return (stream, cancel)
  }

  /// Sends `data` (as one line of JSON) as an event named `name` to every open stream.
  func publish(_ name: String, data: some Encodable) {
    let record = "event: \(name)\ndata: " + String(decoding: HTTPResponse.encoded(data) ?? [], as: UTF8.self) + "\n\n"
    for continuation in subscribers.withLockedValue({ Array($0.values) }) { continuation.yield(record) }
  }

  /// Sends a comment line to every open stream (the page ignores it; a closed connection fails the write).
  func ping() {
    for continuation in subscribers.withLockedValue({ Array($0.values) }) { continuation.yield(": ping\n\n") }
  }

  /// Ends every stream (the server is stopping).
  func finishAll() {
    for continuation in subscribers.withLockedValue({ subscribers in
      defer { subscribers = [:] }
      return Array(subscribers.values)
    }) {
      continuation.finish()
    }
  }
}
