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
///
/// The registry also bounds the memory responses hold (issue 38: 60 clients that asked for previews and read
/// nothing took the server from 54 to 588 MiB). A response's bytes are held by NIO from the moment they are
/// written until the client has taken them; each connection tells the registry how many it holds. When all
/// connections together hold more than ``bufferLimit``, the connections that have held bytes longest — clients
/// that stopped reading — are closed, which frees what they held, until the rest fits. A connection holds at most
/// one response at a time (requests on a connection are answered in order), and a streamed one a chunk at a time.
final class ConnectionRegistry: Sendable {
  /// The most connections open at once.
  let limit: Int
  /// The most bytes of responses all connections together hold before some are closed.
  let bufferLimit: Int
  private let state = NIOLockedValueBox(State())

  private struct Connection {
    var channel: any Channel
    /// The order in which it started waiting (`nil` while busy).
    var waitingSince: UInt64?
    /// The bytes of responses written to it and not yet taken by its client.
    var buffered = 0
    /// The order in which it started holding bytes (`nil` when it holds none).
    var bufferedSince: UInt64?
  }

  private struct State {
    /// Each open connection.
    var open: [ObjectIdentifier: Connection] = [:]
    var clock: UInt64 = 0
    /// The sum of every connection's `buffered`.
    var buffered = 0
  }

  init(limit: Int, bufferLimit: Int) {
    self.limit = limit
    self.bufferLimit = bufferLimit
  }

  /// How many bytes of responses the connections hold.
  var bufferedBytes: Int { state.withLockedValue { $0.buffered } }

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
        state.buffered -= oldest.value.buffered
        state.open[oldest.key] = nil
        evicted = oldest.value.channel
      }
      state.clock += 1
      state.open[ObjectIdentifier(channel)] = Connection(channel: channel, waitingSince: state.clock)
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

  /// Adds `delta` (negative when the client took them) to the bytes `channel` holds; when all connections hold
  /// more than ``bufferLimit``, closes the others that have held bytes longest until the rest fits.
  func buffer(_ channel: any Channel, bytes delta: Int) {
    let evicted = state.withLockedValue { state -> [any Channel] in
      let id = ObjectIdentifier(channel)
      // A connection closed to make room has left `open` with its bytes: what it gives back later is not counted.
      guard var connection = state.open[id], connection.channel === channel else { return [] }
      let change = max(delta, -connection.buffered)
      connection.buffered += change
      state.buffered += change
      if connection.buffered == 0 {
        connection.bufferedSince = nil
      } else if connection.bufferedSince == nil {
        state.clock += 1
        connection.bufferedSince = state.clock
      }
      state.open[id] = connection
      guard delta > 0, state.buffered > bufferLimit else { return [] }
      // O(open connections log open connections), only when over the limit.
      let holding = state.open.filter { $0.key != id && $0.value.bufferedSince != nil }
        .sorted { $0.value.bufferedSince! < $1.value.bufferedSince! }
      var evicted: [any Channel] = []
      for (key, other) in holding where state.buffered > bufferLimit {
        state.buffered -= other.buffered
        state.open[key] = nil
        evicted.append(other.channel)
      }
      return evicted
    }
    for channel in evicted { channel.close(promise: nil) }
  }

  private func remove(_ channel: any Channel) {
    state.withLockedValue { state in
      let id = ObjectIdentifier(channel)
      // Only this channel's entry: an identifier can be reused once the channel is gone.
      if let entry = state.open[id], entry.channel === channel {
        state.buffered -= entry.buffered
        state.open[id] = nil
      }
    }
  }
}
