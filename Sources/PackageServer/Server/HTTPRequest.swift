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

  /// The query's parameters, each percent-decoded once into UTF-8; `nil` when an escape is malformed or the bytes
  /// are not UTF-8. A `+` stays a `+` (the page encodes with `encodeURIComponent`).
  var query: [String: String]? {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return [:] }
    var result: [String: String] = [:]
    for pair in parts[1].split(separator: "&") {
      let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.percentDecoded(halves[0]),
        let value = halves.count == 2 ? Self.percentDecoded(halves[1]) : ""
      else { return nil }
      result[name] = value
    }
    return result
  }

  /// `text` with each `%XX` replaced by its byte, as UTF-8; `nil` for a malformed escape or bytes that are not
  /// UTF-8.
  static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
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
