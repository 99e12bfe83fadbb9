import AsyncHTTPClient
import DocumentPackage
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client of one bucket of an S3-compatible object store (AWS S3, MinIO, Ceph RGW): objects are read,
/// written (conditionally too), listed and deleted with SigV4-signed requests over async-http-client.
///
/// Every method is `async`, honours task cancellation (the request is cancelled), and throws a ``SyncError``
/// naming the key and carrying the server's status, error code and message.
///
/// Memory stays bounded: a file above ``multipartThreshold`` is uploaded in parts of ``partSize`` bytes, at most
/// ``partParallelism`` of them in memory (and in flight) at a time, and downloads to a file are written as they
/// arrive.
package final class S3Client: Sendable {
  /// The server.
  package let endpoint: S3Endpoint
  /// The bucket every key is in.
  package let bucket: String
  /// Files larger than this are uploaded with a multipart upload (default 16 MiB).
  package let multipartThreshold: Int
  /// The size of each part of a multipart upload (default 8 MiB; S3 needs at least 5 MiB but for the last).
  package let partSize: Int
  /// How long a request waits for its answer to start and between two of its bytes, and an operation in all.
  package let timeouts: SyncTimeouts
  /// How many parts of one multipart upload are sent at once (and held in memory; default 4).
  package let partParallelism: Int
  /// How often a request that failed for a transient reason is sent again (see ``RetryPolicy``).
  package let retryPolicy: RetryPolicy

  let signer: SigV4Signer
  /// The PEM file of authorities trusted besides the system's, if any.
  let caBundle: String?
  let http: HTTPClient
  /// The client of the TLS check (see `S3Client+TLS.swift`), and the check once started.
  let checkHTTP: HTTPClient
  let tlsCheck = NIOLockedValueBox<Task<Void, any Error>?>(nil)
  private let learnedForm: NIOLockedValueBox<ETagForm>

  /// A client of `bucket` at `endpoint`.
  /// - Parameters:
  ///   - endpoint: The server.
  ///   - bucket: The bucket every key is in.
  ///   - credentials: The keys requests are signed with.
  ///   - region: The region requests are signed for.
  ///   - etagForm: How `If-Match` sends an ETag (see ``ETagForm``); `.automatic` learns it from the server.
  ///   - multipartThreshold: Files bigger than this many bytes go up as multipart uploads.
  ///   - partSize: The size of one part of a multipart upload (at least 5 MiB, S3's minimum).
  ///   - timeouts: How long a request waits for its answer to start and between two of its bytes (see
  ///     ``SyncTimeouts``).
  ///   - partParallelism: How many parts of one multipart upload are in flight (and in memory) at once.
  ///   - caBundle: A PEM file of authorities trusted besides the system's (a private CA's certificate).
  ///   - retryPolicy: How often a request that failed for a transient reason is sent again.
  package init(
    endpoint: S3Endpoint, bucket: String, credentials: S3Credentials, region: String = "us-east-1",
    etagForm: ETagForm = .automatic, multipartThreshold: Int = 16 << 20, partSize: Int = 8 << 20,
    timeouts: SyncTimeouts = SyncTimeouts(), partParallelism: Int = 4, caBundle: String? = nil,
    retryPolicy: RetryPolicy = RetryPolicy()
  ) {
    self.retryPolicy = retryPolicy
    self.partParallelism = max(1, partParallelism)
    self.endpoint = endpoint
    self.bucket = bucket
    self.caBundle = caBundle
    self.signer = SigV4Signer(credentials: credentials, region: region)
    self.learnedForm = NIOLockedValueBox(etagForm)
    self.multipartThreshold = multipartThreshold
    self.partSize = max(partSize, 5 << 20)
    self.timeouts = timeouts
    let clients = Self.httpClients(caBundle: caBundle, idleRead: timeouts.idleRead)
    self.http = clients.requests
    self.checkHTTP = clients.check
  }

  /// The ETag form `If-Match` uses now: the one given, or the one learned when it was `.automatic`.
  package var etagForm: ETagForm { learnedForm.withLockedValue { $0 } }

  func learn(_ form: ETagForm) { learnedForm.withLockedValue { $0 = form } }

  // MARK: Requests

  /// A response whose status was 2xx (or one of `accepting`).
  struct Response {
    var status: Int
    var headers: HTTPHeaders
    var body: HTTPClientResponse.Body

    /// The bare ETag the server sent.
    var etag: String? { headers.first(name: "etag").map(bareETag) }

    /// The whole body (up to `limit` bytes).
    func data(limit: Int = 64 << 20) async throws -> Data {
      var buffer = try await body.collect(upTo: limit)
      return Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }
  }

  /// The whole body of `response`, the answer to `method` on `key` (up to `limit` bytes).
  /// - Throws: ``SyncError``: `timeout` when the body paused longer than the idle-read timeout, `transport` when
  ///   the connection failed meanwhile (both transient: the caller's `retrying` may ask again).
  func body(of response: Response, _ method: HTTPMethod, key: String, limit: Int = 64 << 20) async throws -> Data {
    do { return try await response.data(limit: limit) } catch {
      throw bodyFailure(error, method, key: key, "\(method.rawValue) failed while reading the body of")
    }
  }

  /// Sends one signed request and returns a 2xx response (or one whose status is in `accepting`), sending it
  /// again after a transient failure as ``retryPolicy`` says (never a conditional write or a POST).
  /// - Throws: ``SyncError``: `noSuchKey` (404 but for a missing bucket), `noSuchBucket`, `preconditionFailed`
  ///   (412), `server` (other statuses), `transport`, `unreachable`, `tls`, `cancelled`.
  func send(
    _ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
    body: ByteBuffer? = nil, payloadHash: String = SigV4Signer.emptyPayloadHash,
    accepting: Set<Int> = []
  ) async throws -> Response {
    let conditional = headers.contains { ["if-match", "if-none-match"].contains($0.0.lowercased()) }
    return try await retrying(method, key: key ?? bucket, retryable: !conditional && method != .POST) { _ in
      try await sendOnce(
        method, key: key, query: query, headers: headers, body: body, payloadHash: payloadHash, accepting: accepting)
    }
  }

  /// One attempt of ``send(_:key:query:headers:body:payloadHash:accepting:)``, not retried.
  func sendOnce(
    _ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
    body: ByteBuffer? = nil, payloadHash: String = SigV4Signer.emptyPayloadHash,
    accepting: Set<Int> = []
  ) async throws -> Response {
    let path = "/" + bucket + (key.map { "/" + $0 } ?? "")
    var allHeaders = headers + [("host", endpoint.hostHeader), ("x-amz-content-sha256", payloadHash)]
    allHeaders += signer.signedHeaders(
      for: .init(method: method.rawValue, path: path, query: query, headers: allHeaders, payloadHash: payloadHash),
      at: Date())
    var url = endpoint.description + SigV4Signer.encode(path, keepingSlash: true)
    if !query.isEmpty {
      url +=
        "?"
        + query.map {
          "\(SigV4Signer.encode($0.0, keepingSlash: false))=\(SigV4Signer.encode($0.1, keepingSlash: false))"
        }
        .joined(separator: "&")
    }
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in allHeaders { request.headers.add(name: name, value: value) }
    request.body = body.map { .bytes($0) }
    let shownKey = key ?? bucket
    let firstByte = body.map { timeouts.firstByte(afterSending: $0.readableBytes) } ?? timeouts.firstByte
    let response: HTTPClientResponse
    do {
      try Task.checkCancellation()
      try await checkTLS()
      response = try await http.execute(request, timeout: TimeAmount(firstByte))
    } catch is CancellationError {
      throw SyncError(.cancelled, "\(method.rawValue) cancelled", key: shownKey)
    } catch let error as HTTPClientError where error == .cancelled {
      throw SyncError(.cancelled, "\(method.rawValue) cancelled", key: shownKey)
    } catch let error as HTTPClientError where error == .deadlineExceeded {
      throw timedOut(.firstByte(firstByte), method, key: shownKey)
    } catch let error as HTTPClientError where error == .readTimeout {
      // Armed once the request was sent: the answer did not start within the idle-read timeout.
      throw timedOut(.idleRead(timeouts.idleRead, started: false), method, key: shownKey)
    } catch let error as SyncError {
      throw error
    } catch {
      throw transportFailure(error, method, key: shownKey)
    }
    let status = Int(response.status.code)
    if (200..<300).contains(status) || accepting.contains(status) {
      return Response(status: status, headers: response.headers, body: response.body)
    }
    var text = ""
    if method != .HEAD, let buffer = try? await response.body.collect(upTo: 64 << 10) {
      text = String(buffer: buffer)
    }
    let serverCode = XMLText.value("Code", in: Substring(text))
    if status == 404, serverCode == "NoSuchBucket" {
      throw SyncError(
        .noSuchBucket, "no such bucket on \(endpoint) (deleted, or a wrong name in the remote's URL):", key: bucket,
        status: status, serverCode: serverCode)
    }
    if status == 404, method != .HEAD, serverCode == nil {
      // An S3 server names what is missing (NoSuchKey, NoSuchBucket): a bare 404 is some other server's answer, and
      // taken for a missing object it would read as a head deleted on the server.
      throw SyncError(
        .server,
        "\(endpoint) answered 404 without an S3 error (not an S3 server, or a wrong endpoint?) to \(method.rawValue)",
        key: shownKey, status: status)
    }
    let code: SyncError.Code =
      switch status {
      case 404: .noSuchKey
      case 412: .preconditionFailed
      default: .server
      }
    throw SyncError(
      code, "\(method.rawValue) failed", key: shownKey, status: status,
      serverCode: serverCode ?? response.status.reasonPhrase,
      serverMessage: XMLText.value("Message", in: Substring(text)))
  }
}
