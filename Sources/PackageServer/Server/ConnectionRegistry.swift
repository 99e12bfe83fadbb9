import NIOConcurrencyHelpers
import NIOCore

/// The server's open connections, at most ``limit`` (issue 38: 20,000 connections that sent nothing used up the
/// descriptors, and a real request timed out).
///
/// A connection is either *waiting* (for a request, since some moment) or *busy* (a request is being answered).
/// When a new connection would be one too many, the connection that has waited longest is closed to make room: an
/// idle or stalled connection gives way to a new one, so the page's next request is answered however many idle
/// connections are open. Only when every connection is busy is the new one closed at once. Each connection tells
/// the registry when it changes state (``ConnectionDeadline``) and leaves it when it closes.
final class ConnectionRegistry: Sendable {
  /// The most connections open at once.
  let limit: Int
  private let state = NIOLockedValueBox(State())

  private struct State {
    /// Each open connection, and the order in which it started waiting (`nil` while busy).
    var open: [ObjectIdentifier: (channel: any Channel, waitingSince: UInt64?)] = [:]
    var clock: UInt64 = 0
  }

  init(limit: Int) {
    self.limit = limit
  }

  /// How many connections are open.
  var count: Int { state.withLockedValue { $0.open.count } }

  /// Admits `channel` (waiting for its first request), closing the connection that has waited longest if there
  /// is no room; `false` when there is no room and no connection waits (the caller closes `channel`).
  func admit(_ channel: any Channel) -> Bool {
    let (admitted, evicted) = state.withLockedValue { state -> (Bool, (any Channel)?) in
      var evicted: (any Channel)?
      if state.open.count >= limit {
        // O(limit), only when full.
        guard
          let oldest = state.open.filter({ $0.value.waitingSince != nil })
            .min(by: { $0.value.waitingSince! < $1.value.waitingSince! })
        else { return (false, nil) }
        state.open[oldest.key] = nil
        evicted = oldest.value.channel
      }
      state.clock += 1
      state.open[ObjectIdentifier(channel)] = (channel, state.clock)
      return (true, evicted)
    }
    evicted?.close(promise: nil)
    if admitted {
      channel.closeFuture.whenComplete { [weak self] _ in self?.remove(channel) }
    }
    return admitted
  }

  /// Marks `channel` as waiting for a request (from now) or as busy answering one.
  func mark(_ channel: any Channel, waiting: Bool) {
    state.withLockedValue { state in
      let id = ObjectIdentifier(channel)
      guard state.open[id] != nil else { return }
      state.clock += 1
      state.open[id]?.waitingSince = waiting ? state.clock : nil
    }
  }

  private func remove(_ channel: any Channel) {
    state.withLockedValue { state in
      let id = ObjectIdentifier(channel)
      // Only this channel's entry: an identifier can be reused once the channel is gone.
      if let entry = state.open[id], entry.channel === channel { state.open[id] = nil }
    }
  }
}
