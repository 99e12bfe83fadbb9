import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

// TLS: which authorities are trusted, and why a refused certificate fails in seconds rather than minutes.
//
// Before its first request to an https endpoint a client opens one connection through a second client (a HEAD of
// `/`, whose status does not matter), so that a refused certificate is told apart from a request's failure. A
// certificate refused there throws a ``SyncError`` with code `tls` at once and is never retried; any other failure
// of that check is left to the request itself (see `S3Client+Retry.swift` for what is retried).

extension S3Client {
  /// The two HTTP clients of one set of trust roots: one for requests, one for the TLS check.
  struct HTTPClients: Sendable {
    /// The requests' client (a connection that fails to open fails the request; `send` retries what is transient).
    var requests: HTTPClient
    /// Does not retry; connects within a few seconds.
    var check: HTTPClient
  }

  /// The clients of the process, by CA bundle ("" for the system's trust roots only) and idle-read timeout (a
  /// client's configuration holds it): never shut down, like
  /// `HTTPClient.shared`, whose configuration they take, with up to 32 connections per host (downloads run 16 at
  /// once, and the default pool of 8 per host would queue half of them).
  private static let clientsByBundle = NIOLockedValueBox<[String: HTTPClients]>([:])

  /// The clients that trust the system's roots and those of the PEM file `caBundle`, whose requests fail when
  /// their answer pauses for `idleRead` (``SyncTimeouts/idleRead``).
  static func httpClients(caBundle: String?, idleRead: Duration) -> HTTPClients {
    let name = "\(idleRead.components.seconds).\(idleRead.components.attoseconds) \(caBundle ?? "")"
    return clientsByBundle.withLockedValue { all in
      if let found = all[name] { return found }
      var tls = TLSConfiguration.makeClientConfiguration()
      if let caBundle { tls.additionalTrustRoots = [.file(caBundle)] }
      var configuration = HTTPClient.Configuration.singletonConfiguration
      configuration.tlsConfiguration = tls
      configuration.connectionPool = .init(idleTimeout: .seconds(600), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
      // A connection that does not open fails the request at once: `send` decides what is retried (RetryPolicy).
      configuration.connectionPool.retryConnectionEstablishment = false
      configuration.timeout.connect = RetryPolicy.connectTimeout
      configuration.timeout.read = TimeAmount(idleRead)
      var checking = configuration
      checking.connectionPool.retryConnectionEstablishment = false
      checking.timeout.connect = .seconds(4)
      let clients = HTTPClients(
        requests: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration),
        check: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: checking))
      all[name] = clients
      return clients
    }
  }

  /// Throws at once if the endpoint is https and its certificate is refused; checks once per client.
  /// - Throws: ``SyncError`` with code `tls`.
  func checkTLS() async throws {
    guard endpoint.scheme == "https" else { return }
    let check = tlsCheck.withLockedValue { running in
      if let running { return running }
      let (endpoint, client, caBundle) = (endpoint, checkHTTP, caBundle)
      let task = Task {
        var request = HTTPClientRequest(url: endpoint.description + "/")
        request.method = .HEAD
        do { _ = try await client.execute(request, timeout: .seconds(5)) } catch {
          if let refusal = Self.tlsRefusal(error, endpoint: endpoint, caBundle: caBundle) { throw refusal }
        }
      }
      running = task
      return task
    }
    try await check.value
  }

  /// A ``SyncError`` with code `tls` saying in words why the TLS connection to `endpoint` failed, or nil if `error`
  /// is not a refused certificate or a failed handshake. Without `caBundle`, the words say how to trust a private
  /// authority; with it, that its authorities were trusted too.
  static func tlsRefusal(_ error: any Error, endpoint: S3Endpoint, caBundle: String?) -> SyncError? {
    let hint =
      caBundle.map { "the system's authorities and those of '\($0)' were trusted" }
      ?? "to trust a private authority, give its certificate with --ca-bundle FILE or AWS_CA_BUNDLE"
    if let error = error as? NIOSSLExtraError,
      error == .failedToValidateHostname || error == .serverHostnameImpossibleToMatch
    {
      return SyncError(
        .tls, "cannot trust the server", key: endpoint.description,
        serverMessage: "its certificate is for another host name than '\(endpoint.host)'")
    }
    guard let error = error as? NIOSSLError, case .handshakeFailed(let cause) = error else { return nil }
    let text = "\(cause)"
    let reason = text.split(separator: "OPENSSL_internal:").dropFirst().first.map {
      String($0.prefix { $0.isUppercase || $0.isNumber || $0 == "_" })
    }
    switch reason {
    case "CERTIFICATE_VERIFY_FAILED"?:
      return SyncError(
        .tls, "cannot trust the server", key: endpoint.description,
        serverMessage:
          "its certificate is signed by an authority not trusted here, or has expired or is not yet valid; \(hint)")
    case "WRONG_VERSION_NUMBER"?:
      return SyncError(
        .tls, "TLS handshake failed with", key: endpoint.description,
        serverMessage: "the server does not speak TLS on this port (is it an http:// endpoint?)")
    default:
      return SyncError(
        .tls, "TLS handshake failed with", key: endpoint.description,
        serverMessage: "the server and this client agreed on no way to talk TLS (\(reason ?? text))")
    }
  }
}
