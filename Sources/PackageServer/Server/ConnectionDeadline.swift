import NIOCore
import NIOHTTP1

/// Closes a connection that keeps the server waiting (issue 38: connections that sent nothing, or a header line
/// every 10 s, stayed open forever). In each connection's pipeline after NIO's HTTP/1 handlers, before
/// ``HTTPChannelHandler``, it sees each request arrive and each response end:
///
/// - **Header timeout**: a new connection must send a whole request (head and body) within `headerTimeout`, or
///   it is closed; a head trickled a line at a time does not reset it.
/// - **Idle timeout**: after a response ends, the next request must arrive whole within `idleTimeout`.
/// - **Stalled writes**: while a response is sent, a client that takes nothing for `idleTimeout` (a body written
///   stays in NIO's hands, not taken by the socket) is closed, which ends the response's producer (a zip
///   download, an event stream) and frees what it holds (a download's slot). This goes by the writes themselves,
///   not by the channel's writability: a producer that writes a chunk at a time and waits for each never fills
///   NIO past its high-water mark, so the channel stays writable however long the client stalls (issue 38: four
///   downloads whose clients stopped reading held every download slot for 210 s).
///
/// No timer runs while a response is being written and the client takes it: a download or an event stream may
/// last as long as its client reads. Each state change is told to the ``ConnectionRegistry``, which may close a
/// waiting connection to make room for a new one, and so is each body written, until the client has taken it (the
/// registry closes the connections holding bytes longest when all together hold too many).
final class ConnectionDeadline: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundIn = HTTPServerResponsePart
  typealias OutboundOut = HTTPServerResponsePart

  private let headerTimeout: TimeAmount
  private let idleTimeout: TimeAmount
  private let registry: ConnectionRegistry
  private var timer: Scheduled<Void>?
  /// Whether a request arrived whose response has not ended.
  private var busy = false
  /// Bodies written and not yet taken by the socket.
  private var pendingWrites = 0

  init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, registry: ConnectionRegistry) {
    self.headerTimeout = headerTimeout
    self.idleTimeout = idleTimeout
    self.registry = registry
  }

  func handlerAdded(context: ChannelHandlerContext) {
    arm(context, after: headerTimeout)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .end = unwrapInboundIn(data) {
      busy = true
      timer?.cancel()
      timer = nil
      registry.mark(context.channel, waiting: false)
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .end:
      busy = false
      registry.mark(context.channel, waiting: true)
      arm(context, after: idleTimeout)
    case .body(let body):
      // Held from now until the client has taken them (or the connection closes).
      let (count, registry, channel) = (body.readableBytes, registry, context.channel)
      registry.buffer(channel, bytes: count)
      // The client has `idleTimeout` to take something, from the moment a body waits for it.
      pendingWrites += 1
      if pendingWrites == 1 { arm(context, after: idleTimeout) }
      let written = promise ?? context.eventLoop.makePromise()
      let (handler, loopContext) = (
        NIOLoopBound(self, eventLoop: context.eventLoop), NIOLoopBound(context, eventLoop: context.eventLoop)
      )
      written.futureResult.whenComplete { _ in
        registry.buffer(channel, bytes: -count)
        handler.value.taken(loopContext.value)
      }
      context.write(data, promise: written)
      return
    case .head:
      break
    }
    context.write(data, promise: promise)
  }

  /// A body was taken by the socket (or the connection closed): the client made progress, so the stall timer
  /// starts again for what is still pending; with nothing pending, the response waits for its producer, not
  /// for the client, and no timer runs.
  private func taken(_ context: ChannelHandlerContext) {
    pendingWrites -= 1
    guard busy, context.channel.isActive else { return }
    if pendingWrites > 0 {
      arm(context, after: idleTimeout)
    } else {
      timer?.cancel()
      timer = nil
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
    context.fireChannelInactive()
  }

  /// Closes the connection after `delay`, unless the timer is cancelled or armed again first.
  private func arm(_ context: ChannelHandlerContext, after delay: TimeAmount) {
    timer?.cancel()
    let channel = context.channel
    timer = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
  }
}
