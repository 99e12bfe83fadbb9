import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import PackageServer

/// libFuzzer's entry: the first byte picks the reader, the rest is what it reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServe(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = FuzzInput.bytes(data, size)
  guard let selector = bytes.first else { return 0 }
  let rest = Array(bytes.dropFirst())
  switch selector % 4 {
  case 0: ServeFuzz.json(rest)
  case 1: ServeFuzz.xml(rest)
  case 2: ServeFuzz.request(rest)
  default: ServeFuzz.query(rest)
  }
  return 0
}

/// What `docpkg serve` reads from outside: the files it re-indents for a preview (``PrettyPrinter``), and the
/// requests it is sent, through NIO's HTTP/1 decoder, ``RequestGuard`` and the query decoder.
enum ServeFuzz {
  /// A small output limit, so that the fuzzer reaches the cut often.
  static let limit = 4096

  /// JSON: the output is bounded, linear in the input, and keeps every byte of UTF-8 input but whitespace (a cut
  /// output, a prefix of them).
  static func json(_ bytes: [UInt8]) {
    check(PrettyPrinter.json(bytes, limit: limit), of: bytes, "JSON")
  }

  /// XML: the same promises as JSON.
  static func xml(_ bytes: [UInt8]) {
    check(PrettyPrinter.xml(bytes, limit: limit), of: bytes, "XML")
  }

  static func check(_ output: PrettyPrinter.Output?, of input: [UInt8], _ kind: String) {
    guard let output else { return }
    let written = Array(output.text.utf8)
    guard written.count <= limit else { fuzzFailure("\(kind) output of \(written.count) bytes over \(limit)") }
    // Every line adds at most a line feed and 2 × 32 spaces to what it holds.
    guard written.count <= (input.count + 1) * 66 else {
      fuzzFailure("\(kind) output of \(written.count) bytes for \(input.count): not linear")
    }
    // The text is decoded as UTF-8 (what is not becomes U+FFFD), so the bytes are compared for UTF-8 input only.
    guard String(validating: input, as: UTF8.self) != nil else { return }
    let kept = input.filter { !isSpace($0) }
    let shown = written.filter { !isSpace($0) }
    if output.truncated {
      guard kept.starts(with: shown) else { fuzzFailure("\(kind) cut output is not a prefix of \(input)") }
    } else {
      guard kept == shown else { fuzzFailure("\(kind) output changes more than whitespace: \(input)") }
    }
  }

  static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

  static let guardian = RequestGuard(token: "0123456789abcdef0123456789abcdef", allowsWrites: true)

  /// Bytes sent to the server: each request NIO's decoder makes of them passes the guard only if its route is
  /// one of the router's, its query decodes, its token is right and its entry path is safe.
  static func request(_ bytes: [UInt8]) {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
    defer { _ = try? channel.finish() }
    _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
    while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
      guard case .head(let head) = part else { continue }
      let request = HTTPRequest(
        method: head.method, target: head.uri, headers: head.headers, body: [], localPort: 8080)
      guard guardian.refusal(of: request, routes: Router.routes) == nil else { continue }
      guard Router.routes.contains(String(request.route)), let query = request.query,
        query["token"] == guardian.token, RequestGuard.isSafeEntryPath(query["path"] ?? "")
      else { fuzzFailure("a request passed the guard that should not: \(head)") }
    }
  }

  /// A query string: decoding never crashes, and what decodes, encoded as the page encodes, decodes to itself.
  static func query(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let decoded = HTTPRequest.formDecoded(Substring(text)) else { return }
    guard HTTPRequest.formDecoded(Substring(formEncoded(decoded))) == decoded else {
      fuzzFailure("\(decoded.debugDescription) does not survive encoding and decoding")
    }
  }

  /// `text` encoded as `URLSearchParams` encodes it.
  static func formEncoded(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"):
        out.append(byte)
      case UInt8(ascii: " "): out.append(UInt8(ascii: "+"))
      default: out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
