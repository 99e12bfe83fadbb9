import Foundation
import PackageServer
import TestSupport

/// A server started in the test process on a location, with a known token, and requests to it through
/// ``RawHTTP`` (off the cooperative pool).
struct Served {
  let server: PackageServer
  static let token = "0123456789abcdef0123456789abcdef"

  var port: Int { server.port }

  init(
    _ location: ServedLocation, compared: [ServedLocation] = [], allowsRestore: Bool = false,
    configure: (inout PackageServer.Configuration) -> Void = { _ in }
  ) async throws {
    var configuration = PackageServer.Configuration(
      location: location, compared: compared, allowsRestore: allowsRestore, token: Self.token)
    configure(&configuration)
    server = try await PackageServer(configuration)
  }

  /// Serves `path`, with `compared` to compare with (`docpkg serve PATH --compare OTHER...`), configured further
  /// by `configure` (timeouts, limits).
  init(
    package path: String, compared: [String] = [], allowsRestore: Bool = false,
    configure: (inout PackageServer.Configuration) -> Void = { _ in }
  ) async throws {
    try await self.init(
      ServedLocation(path), compared: try compared.map(ServedLocation.init), allowsRestore: allowsRestore,
      configure: configure)
  }

  /// The target of `route` with the token and `parameters`, encoded as the page's `URLSearchParams` encodes them
  /// (`application/x-www-form-urlencoded`): letters, digits and `*-._` as they are, a space as `+`, every other
  /// byte of the UTF-8 as `%XX`.
  static func target(_ route: String, _ parameters: [String: String] = [:], token: String? = Served.token) -> String {
    var all = parameters
    if let token { all["token"] = token }
    let query = all.sorted { $0.key < $1.key }.map { key, value in formEncoded(key) + "=" + formEncoded(value) }
    return route + "?" + query.joined(separator: "&")
  }

  static func formEncoded(_ text: String) -> String {
    let kept = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._".utf8)
    var out = ""
    for byte in text.utf8 {
      if kept.contains(byte) {
        out.append(Character(UnicodeScalar(byte)))
      } else if byte == UInt8(ascii: " ") {
        out.append("+")
      } else {
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return out
  }

  func get(_ route: String, _ parameters: [String: String] = [:]) async throws -> RawReply {
    let (target, port) = (Self.target(route, parameters), port)
    return try await offThePool { try RawHTTP.get(target, port: port) }
  }

  /// A raw `GET` of `target` exactly as written.
  func getRaw(_ target: String, host: String? = nil, extra: [String] = []) async throws -> RawReply {
    let port = port
    return try await offThePool { try RawHTTP.get(target, port: port, host: host, extra: extra) }
  }

  func post(_ route: String, _ parameters: [String: String] = [:], extra: [String] = []) async throws -> RawReply {
    let (target, port) = (Self.target(route, parameters), port)
    return try await offThePool { try RawHTTP.post(target, port: port, extra: extra) }
  }

  /// The page's CSRF token, from a fresh page.
  func pageToken() async throws -> String {
    let page = try await get("/").text
    let marker = "name=\"docpkg-csrf\" content=\""
    guard let start = page.range(of: marker)?.upperBound else { return "" }
    return String(page[start...].prefix { $0 != "\"" })
  }

  func stop() async { await server.stop() }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
