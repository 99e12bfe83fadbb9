import NIOHTTP1

/// A request as the router sees it: the method, the route (the target's path, which must be one of the
/// server's fixed routes), the query decoded once, the headers and a small body.
struct HTTPRequest: Sendable {
  /// `GET`, `POST`, ...
  var method: HTTPMethod
  /// The request target as sent, undecoded.
  var target: String
  /// The headers.
  var headers: HTTPHeaders
  /// The body (only `POST` has one, and a small one).
  var body: [UInt8]
  /// Whether the body was over ``HTTPChannelHandler/bodyLimit`` (and dropped).
  var bodyTooLarge = false
  /// The port the request came in on (the server's), which its `Host` header must name.
  var localPort: Int

  /// The target's path, before `?`.
  var route: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] }

  /// The query's parameters, form-decoded once (``formDecoded(_:)``); `nil` when an escape is malformed or the
  /// bytes are not UTF-8 (the guard answers 400). This is the server's one query decoder; the page's one encoder is
  /// its `api()` function (`URLSearchParams`, the same form encoding).
  var query: [String: String]? {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return [:] }
    var result: [String: String] = [:]
    for pair in parts[1].split(separator: "&") {
      let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.formDecoded(halves[0]),
        let value = halves.count == 2 ? Self.formDecoded(halves[1]) : ""
      else { return nil }
      result[name] = value
    }
    return result
  }

  /// `text` decoded as `application/x-www-form-urlencoded` (what the page's `URLSearchParams` writes): `+` is a
  /// space, each `%XX` is its byte, and the bytes are UTF-8; `nil` for a malformed escape or bytes that are not
  /// UTF-8. A literal `+` arrives as `%2B`, so `x y.txt` and `x+y.txt` stay two names.
  static func formDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        continue
      }
      guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
