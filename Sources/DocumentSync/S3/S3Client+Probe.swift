#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client {
  /// Finds how this server compares `If-Match` ETags (see ``ETagForm``): writes the object `key`, rewrites it on
  /// the condition of its ETag in the quoted form, then (on 412) in the bare form, and deletes it.
  /// - Returns: `.quoted` or `.unquoted`.
  /// - Throws: ``SyncError`` with code `server` if neither form succeeds (the server has no conditional writes,
  ///   which sync needs), or as ``put(_:data:condition:)``.
  package func probeETagForm(key: String) async throws -> ETagForm {
    defer { Task.detached { [self] in try? await delete(key) } }
    let etag = try await put(key, data: Data("docpkg probe".utf8))
    for form in [ETagForm.quoted, .unquoted] {
      let probe = S3Client(
        endpoint: endpoint, bucket: bucket, credentials: signer.credentials, region: signer.region, etagForm: form,
        timeouts: timeouts, caBundle: caBundle, retryPolicy: retryPolicy)
      do {
        _ = try await probe.put(key, data: Data("docpkg probe".utf8), condition: .matches(etag))
        return form
      } catch let error as SyncError where error.code == .preconditionFailed {
        continue
      }
    }
    throw SyncError(
      .server, "the server refuses If-Match in both ETag forms, so pushes could overwrite each other; probed with",
      key: key)
  }
}
