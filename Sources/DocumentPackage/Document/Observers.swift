/// The observers of one kind of value a document streams (its ``DocumentState``, its
/// ``DocumentUpdate``s): each gets the current value when it subscribes, then every new value
/// that differs from the last one it got, until the document closes.
///
/// Owned by the document actor; an observer that stops listening is removed through `remove`,
/// which hops back onto the actor.
struct Observers<Value: Equatable & Sendable> {
  private var observers: [Int: (continuation: AsyncStream<Value>.Continuation, last: Value)] = [:]
  private var nextID = 0
  private let buffered: Int

  /// - Parameter buffered: How many values a slow observer keeps (the newest).
  init(buffered: Int) { self.buffered = buffered }

  /// A stream that starts with `current` and, unless `closed`, goes on with later values.
  /// - Parameter remove: Called with the observer's id when it stops listening; it should call
  ///   ``remove(_:)`` on the actor that owns these observers.
  mutating func subscribe(
    current: Value, closed: Bool, remove: @escaping @Sendable (Int) -> Void
  ) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(buffered))
    continuation.yield(current)
    guard !closed else {
      continuation.finish()
      return stream
    }
    let id = nextID
    nextID += 1
    observers[id] = (continuation, current)
    continuation.onTermination = { _ in remove(id) }
    return stream
  }

  mutating func remove(_ id: Int) { observers[id] = nil }

  /// Whether anyone listens (so the value need not be computed otherwise).
  var isEmpty: Bool { observers.isEmpty }

  /// Sends `value` to every observer whose last value differs.
  mutating func publish(_ value: Value) {
    for (id, observer) in observers where observer.last != value {
      observer.continuation.yield(value)
      observers[id]?.last = value
    }
  }

  /// Ends every stream (the document closed).
  mutating func finish() {
    for observer in observers.values { observer.continuation.finish() }
    observers = [:]
  }
}
