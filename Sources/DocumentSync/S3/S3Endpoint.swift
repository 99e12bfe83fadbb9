/// Where an object store answers: `http://127.0.0.1:7480`, `https://s3.eu-west-1.amazonaws.com`, a MinIO server.
/// Requests use path-style addressing (`/BUCKET/KEY`), which AWS S3, MinIO and Ceph RGW all serve.
package struct S3Endpoint: Sendable, Hashable, CustomStringConvertible {
  /// `http` or `https`.
  package var scheme: String
  /// The host name or address.
  package var host: String
  /// The port, if not the scheme's default.
  package var port: Int?

  /// Parses `http[s]://HOST[:PORT][/]`.
  /// - Throws: ``SyncError`` with code `invalidArgument` naming the URL if it is not of that form.
  package init(url: String) throws {
    let parts = url.split(separator: "://", maxSplits: 1)
    guard parts.count == 2, parts[0] == "http" || parts[0] == "https" else {
      throw SyncError(.invalidArgument, "not an http or https endpoint URL", key: url)
    }
    scheme = String(parts[0])
    let authority = parts[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
    if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
      guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
        throw SyncError(.invalidArgument, "bad port in endpoint URL", key: url)
      }
      host = String(authority[..<colon])
      port = number
    } else {
      host = String(authority)
      port = nil
    }
    guard !host.isEmpty else { throw SyncError(.invalidArgument, "no host in endpoint URL", key: url) }
  }

  /// The `Host` header: the host, and the port when it is not the scheme's default.
  package var hostHeader: String {
    guard let port, port != (scheme == "https" ? 443 : 80) else { return host }
    return "\(host):\(port)"
  }

  /// `scheme://host[:port]`.
  package var description: String { "\(scheme)://\(hostHeader)" }
}

/// A bucket and a key prefix: the place a remote keeps its objects, written `s3://BUCKET/PREFIX`.
package struct S3Location: Sendable, Hashable, CustomStringConvertible {
  /// The bucket.
  package var bucket: String
  /// The key prefix, without leading or trailing `/` (may be empty).
  package var prefix: String

  /// A bucket and prefix.
  package init(bucket: String, prefix: String) {
    self.bucket = bucket
    self.prefix = prefix.split(separator: "/").joined(separator: "/")
  }

  /// Parses `s3://BUCKET[/PREFIX]`.
  /// - Throws: ``SyncError`` with code `invalidArgument` naming the URL if it is not of that form.
  package init(url: String) throws {
    guard url.hasPrefix("s3://") else {
      throw SyncError(.invalidArgument, "not an s3://BUCKET/PREFIX URL", key: url)
    }
    let rest = url.dropFirst(5).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard let bucket = rest.first, !bucket.isEmpty else {
      throw SyncError(.invalidArgument, "no bucket in", key: url)
    }
    self.init(bucket: String(bucket), prefix: rest.count > 1 ? String(rest[1]) : "")
  }

  /// The key of `name` under the prefix.
  package func key(_ name: String) -> String { prefix.isEmpty ? name : "\(prefix)/\(name)" }

  /// `s3://bucket/prefix`.
  package var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }
}
