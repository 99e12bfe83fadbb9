import NIOConcurrencyHelpers

/// The open event streams (`/api/events`, server-sent events) and what is sent to them: each change the monitor
/// reports, as one `change` event. A page that connects later learns nothing old: it loads the current state.
final class EventHub: Sendable {
  private let subscribers = NIOLockedValueBox<[Int: AsyncStream<String>.Continuation]>([:])
  private let nextID = NIOLockedValueBox(0)
  private let watching = NIOLockedValueBox(false)

  /// Whether the package's monitor is watching (it starts after the server listens).
  var isWatching: Bool { watching.withLockedValue { $0 } }

  /// Says on every stream that changes are followed from now on (`live`).
  func startWatching() {
    watching.withLockedValue { $0 = true }
    publish("live", data: ["live": true])
  }

  /// A new stream of events (each an SSE record, `event: ...\ndata: ...\n\n`), until `cancel` is called.
  func subscribe() -> (events: AsyncStream<String>, cancel: @Sendable () -> Void) {
    let id = nextID.withLockedValue { value in
      value += 1
      return value
    }
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
    subscribers.withLockedValue { $0[id] = continuation }
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
