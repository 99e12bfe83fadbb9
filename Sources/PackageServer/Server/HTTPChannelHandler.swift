import NIOCore
import NIOHTTP1

/// The end of each connection's pipeline (after NIO's HTTP/1 decoder, encoder and pipelining handler): collects
/// a request, hands it to the router in a task, and writes what the router answers. Requests on one connection
/// are answered in order (the pipelining handler holds the next one back until a response ends).
final class HTTPChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  /// The largest body read (a restore's is a few bytes); a larger one is dropped and refused.
  static let bodyLimit = 16 << 10

  private let respond: @Sendable (HTTPRequest) async -> HTTPResponse
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []
  private var bodyTooLarge = false
  /// The task answering the last request (requests on a connection are answered one at a time).
  private var answering: Task<Void, Never>?

  init(respond: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
    self.respond = respond
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      body = []
      bodyTooLarge = false
    case .body(var buffer):
      if body.count + buffer.readableBytes > Self.bodyLimit {
        bodyTooLarge = true
      } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
        body += bytes
      }
    case .end:
      guard let head else { return }
      self.head = nil
      let request = HTTPRequest(
        method: head.method, target: head.uri, headers: head.headers, body: body, bodyTooLarge: bodyTooLarge,
        localPort: context.channel.localAddress?.port ?? 0)
      let channel = context.channel
      let respond = respond
      answering = Task {
        let response = await respond(request)
        await response.write(to: channel, version: head.version, keepAlive: head.isKeepAlive)
      }
    }
  }

  /// A client that leaves while its answer is made cancels the making: NIO sees the socket's end even while it
  /// reads no further request (`EPOLLRDHUP`), and closes the connection. A preview or a comparison then stops at
  /// its next check and frees its place (``PreviewPool``, ``PackageBrowser``).
  func channelInactive(context: ChannelHandlerContext) {
    answering?.cancel()
    answering = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
