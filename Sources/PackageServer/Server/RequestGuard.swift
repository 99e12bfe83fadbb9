import NIOConcurrencyHelpers
import NIOHTTP1

/// The checks every request passes before it is routed, in order; the first that fails answers it:
///
/// 1. **Host**: the `Host` header must name this server by its loopback address (`127.0.0.1:PORT`, or
///    `localhost:PORT`): a page of another site whose name an attacker rebinds to 127.0.0.1 (DNS rebinding) sends
///    its own name and is refused (403).
/// 2. **Route**: the target's path must be one of the server's fixed routes, spelled exactly: no file is found
///    by URL path, so `..`, `%2e%2e`, `%2f` or a backslash in it are refused (400) before anything is looked up.
/// 3. **Token**: the query's `token` must be the random token printed in the URL (compared in constant time);
///    without it, 403.
/// 4. **Entry paths** in the query (`path`) are decoded once (form-decoding, ``HTTPRequest/query``: a malformed
///    escape or bytes that are not UTF-8 are refused with 400) and must be relative, without `.` or `..`
///    components, empty components or NUL (400); the model then looks each name up among the entries it listed,
///    and never follows a symbolic link (a link is an entry, not a way out).
/// 5. **Methods**: `POST` for the one route that writes (restore), `GET` for every other (else 405).
/// 6. **State-changing requests** (`POST`) need `--allow-restore` (else 403), an `Origin` (when sent) of this
///    server, and the page's CSRF token in `X-Docpkg-CSRF` (a custom header, so another origin cannot send it
///    without a preflight this server never allows).
struct RequestGuard: Sendable {
  /// The token of the URL.
  let token: String
  /// Whether `--allow-restore` was given.
  let allowsWrites: Bool
  /// The one route that changes something (`POST` only; every other route is `GET` only).
  static let writingRoute = "/api/restore"
  /// The CSRF tokens of the pages served last, oldest first: at most ``keptPageTokens``.
  let pageTokens = NIOLockedValueBox<[String]>([])
  /// How many pages' CSRF tokens stay valid: a page older than the last 64 served must be reloaded before it
  /// restores, so that a server left running does not collect a token for every page load.
  static let keptPageTokens = 64

  /// The `Host` values that name this server on `port`.
  static func acceptedHosts(port: Int) -> [String] { ["127.0.0.1:\(port)", "localhost:\(port)"] }

  /// The refusal of `request`, or `nil` when it passes every check up to the route's own.
  func refusal(of request: HTTPRequest, routes: Set<String>) -> HTTPResponse? {
    let acceptedHosts = Self.acceptedHosts(port: request.localPort)
    let hosts = request.headers["Host"]
    guard hosts.count == 1, acceptedHosts.contains(hosts[0].lowercased()) else {
      return .failure(.forbidden, "this server answers only requests to \(acceptedHosts[0])")
    }
    let route = String(request.route)
    guard route.hasPrefix("/"), !route.contains(".."), !route.contains("%"), !route.contains("\\") else {
      return .failure(.badRequest, "invalid request path")
    }
    guard let query = request.query else { return .failure(.badRequest, "malformed query") }
    guard !request.bodyTooLarge else { return .failure(.payloadTooLarge, "request body too large") }
    guard let given = query["token"], Self.sameBytes(given, token) else {
      return .failure(.forbidden, "missing or wrong token (use the URL docpkg serve printed)")
    }
    guard routes.contains(route) else { return .failure(.notFound, "no such page") }
    if let path = query["path"], !Self.isSafeEntryPath(path) {
      return .failure(.badRequest, "invalid entry path")
    }
    let writes = route == Self.writingRoute
    guard request.method == (writes ? .POST : .GET) else {
      return .failure(.methodNotAllowed, "method not allowed: \(request.method) \(route)")
    }
    if writes {
      guard allowsWrites else { return .failure(.forbidden, "read-only: start docpkg serve with --allow-restore") }
      let origins = request.headers["Origin"]
      guard origins.allSatisfy({ origin in acceptedHosts.contains { "http://" + $0 == origin.lowercased() } }) else {
        return .failure(.forbidden, "cross-origin request refused")
      }
      let sent = request.headers["X-Docpkg-CSRF"]
      guard sent.count == 1, pageTokens.withLockedValue({ $0.contains(sent[0]) }) else {
        return .failure(.forbidden, "missing or wrong page token (reload the page)")
      }
    }
    return nil
  }

  /// Remembers the CSRF token of a page just served, forgetting the oldest beyond ``keptPageTokens``.
  func issuePageToken(_ value: String) {
    pageTokens.withLockedValue { tokens in
      tokens.append(value)
      if tokens.count > Self.keptPageTokens { tokens.removeFirst(tokens.count - Self.keptPageTokens) }
    }
  }

  /// Whether `path` names an entry below the root without leaving it: relative, no `.`, `..` or empty
  /// components, no NUL, at most 4,096 bytes. The empty path is the root.
  static func isSafeEntryPath(_ path: String) -> Bool {
    guard !path.isEmpty else { return true }
    guard path.utf8.count <= 4096, !path.utf8.contains(0) else { return false }
    return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
      $0 != "" && $0 != "." && $0 != ".."
    }
  }

  /// Whether `a` and `b` hold the same bytes, in a time that does not depend on where they first differ.
  static func sameBytes(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }
}
