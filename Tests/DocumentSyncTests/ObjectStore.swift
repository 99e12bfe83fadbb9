import DocumentSync
import Foundation
import Testing

/// The real object store the server tests run against: the one `Scripts/objectstore.sh start` prints
/// (`make sync-test` starts it and sets the variables). Without `DOCPKG_S3_ENDPOINT` the server suites are
/// skipped, and say so.
enum ObjectStore {
  static let environment = ProcessInfo.processInfo.environment

  /// Whether an endpoint is configured.
  static var isConfigured: Bool { environment["DOCPKG_S3_ENDPOINT"].map { !$0.isEmpty } ?? false }

  static let skipReason: Comment =
    "no object store: DOCPKG_S3_ENDPOINT is not set (run `make sync-test`, or `eval $(Scripts/objectstore.sh start)`)"

  static var endpointURL: String { environment["DOCPKG_S3_ENDPOINT"] ?? "" }

  /// The port of the endpoint (what a forwarding server relays to).
  static var port: Int { URLComponents(string: endpointURL)?.port ?? 80 }

  /// A fresh bucket with a unique name, and a client of it.
  static func freshBucket(etagForm: ETagForm = .automatic, multipartThreshold: Int = 16 << 20) async throws
    -> S3Client
  {
    let name = "docpkg-test-" + UUID().uuidString.prefix(12).lowercased()
    let client = S3Client(
      endpoint: try S3Endpoint(url: endpointURL), bucket: name,
      credentials: try S3Credentials.fromEnvironment(environment), region: S3Credentials.region(environment),
      etagForm: etagForm, multipartThreshold: multipartThreshold, partSize: 5 << 20)
    try await client.createBucket()
    return client
  }

  /// Another client of the same bucket (a second device).
  static func client(of bucket: String, etagForm: ETagForm = .automatic) throws -> S3Client {
    S3Client(
      endpoint: try S3Endpoint(url: endpointURL), bucket: bucket,
      credentials: try S3Credentials.fromEnvironment(environment), region: S3Credentials.region(environment),
      etagForm: etagForm)
  }
}
