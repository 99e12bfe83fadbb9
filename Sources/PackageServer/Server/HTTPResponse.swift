import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response: a status, headers, and a body in memory or streamed (a zip download, the event stream). Every
/// response carries the headers of ``HTTPResponse/securityHeaders``.
struct HTTPResponse: Sendable {
  /// Writes a streamed body's chunks, waiting for each to be written (so a slow client slows the producer);
  /// `write` returns `false` once the client is gone. The producer returns whether the body it wrote is whole:
  /// `false` (a download whose packer failed half-way) ends the connection without HTTP's last chunk, so that the
  /// client sees a failed transfer rather than a short body that looks complete.
  typealias Producer = @Sendable (_ write: @escaping @Sendable ([UInt8]) async -> Bool) async -> Bool

  enum Body: Sendable {
    case bytes([UInt8])
    /// Chunks as the producer writes them: with HTTP/1.1 chunked encoding when `length` is `nil`, else with a
    /// `Content-Length` of `length` (the producer writes exactly that many bytes, or says the body is not whole).
    case stream(Producer, length: Int64? = nil)
  }

  var status: HTTPResponseStatus
  var headers: HTTPHeaders
  var body: Body
  /// Whether the connection closes once this response ends, whatever the request asked: an event stream's
  /// client (`EventSource`, or any reader of the stream) learns that its stream was ended only when the
  /// connection closes, since it never sends a next request.
  var closesConnection = false

  /// The page's policy: scripts and styles from this server only (no inline script, no `eval`), images from it
  /// (package images through `/api/raw`), requests to it; no frames, no forms, no plugins.
  static let pagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  /// The policy of bytes from the package (`/api/raw`): a sandbox, so that an SVG opened on its own runs no
  /// script and has no origin; it loads nothing.
  static let contentPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

  /// Sent with every response: no type sniffing, no referrer (the URL holds the token), no caching, no framing.
  static let securityHeaders: [(String, String)] = [
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
  ]

  init(status: HTTPResponseStatus, contentType: String, body: Body, policy: String = Self.pagePolicy) {
    self.status = status
    var headers = HTTPHeaders(Self.securityHeaders)
    headers.add(name: "Content-Type", value: contentType)
    headers.add(name: "Content-Security-Policy", value: policy)
    self.headers = headers
    self.body = body
  }

  /// `value` as JSON, with `status`.
  static func json(_ value: some Encodable, status: HTTPResponseStatus = .ok) -> HTTPResponse {
    guard let bytes = encoded(value) else {
      return HTTPResponse(status: .internalServerError, contentType: "text/plain", body: .bytes([]))
    }
    return HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: .bytes(bytes))
  }

  /// `value` as JSON on one line (sorted keys, slashes as they are), as every answer and event is sent.
  static func encoded(_ value: some Encodable) -> [UInt8]? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map(Array.init)
  }

  /// A refusal or failure: `{"error": MESSAGE}`, one line, with `status`.
  static func failure(_ status: HTTPResponseStatus, _ message: String) -> HTTPResponse {
    json(["error": message], status: status)
  }

  /// Writes the response on `channel`, then closes the connection unless it is kept alive.
  func write(to channel: any Channel, version: HTTPVersion, keepAlive askedKeepAlive: Bool) async {
    let keepAlive = askedKeepAlive && !closesConnection
    var headers = headers
    headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
    switch body {
    case .bytes(let bytes):
      headers.replaceOrAdd(name: "Content-Length", value: String(bytes.count))
      channel.write(
        HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: status, headers: headers)), promise: nil)
      // The response ends only once the socket has taken its body: NIO's pipelining handler starts the next
      // request on this connection when the end is written, so a client that sends many requests and reads
      // nothing holds one answer, not all of them (issue 38: 51,000 pipelined previews took 3.5 GB). Not awaited
      // here: the bytes are NIO's now (counted by `ConnectionRegistry` until the client takes them), and this
      // response, which holds them too, is let go at once.
      let taken = channel.eventLoop.makePromise(of: Void.self)
      channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))), promise: taken)
      taken.futureResult.whenComplete { result in
        guard case .success = result else {
          channel.close(promise: nil)
          return
        }
        let ended = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: ended)
        if !keepAlive { ended.futureResult.whenComplete { _ in channel.close(promise: nil) } }
      }
      return
    case .stream(let produce, let length):
      // Without a length, HTTP/1.1 chunked encoding (NIO's encoder adds it). The head is sent at once: a client
      // sees its download start while the producer prepares the first chunk.
      if let length { headers.replaceOrAdd(name: "Content-Length", value: String(length)) }
      channel.writeAndFlush(
        HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: status, headers: headers)), promise: nil)
      // The producer runs in a task of its own, cancelled as soon as the connection closes (the client left, or
      // `ConnectionDeadline` closed it): a producer waiting for its next chunk stops then, not at its next write.
      let producing = Task {
        await produce { chunk in
          do {
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: chunk)))).get()
            return true
          } catch {
            return false
          }
        }
      }
      channel.closeFuture.whenComplete { _ in producing.cancel() }
      let whole = await producing.value
      guard whole else {
        _ = try? await channel.close()
        return
      }
      _ = try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
    }
    if !keepAlive { _ = try? await channel.close() }
  }
}
