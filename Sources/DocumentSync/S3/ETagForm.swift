/// How an `If-Match` condition sends the ETag it compares with.
///
/// HTTP and AWS S3 send the ETag as the server gave it, in quotes (`If-Match: "9b2c…"`). Ceph's gateway (RGW, at
/// least in 16.2) compares the header with the bare value, so the quoted form always fails there with 412 and only
/// `If-Match: 9b2c…` succeeds.
package enum ETagForm: String, Sendable, Hashable, Codable {
  /// `"9b2c…"`, as HTTP and AWS S3 expect.
  case quoted
  /// `9b2c…`, as Ceph RGW expects.
  case unquoted
  /// The quoted form first; when it fails with 412, the same ETag once more unquoted, and the form that
  /// succeeded is kept for the client's later requests. (The condition is the same value either way, so a
  /// retry never lets a write through that the server's comparison would refuse.)
  case automatic

  /// `etag` (bare) as this form sends it; `automatic` sends the quoted form.
  func header(_ etag: String) -> String { self == .unquoted ? etag : "\"\(etag)\"" }
}

/// The condition of a conditional write.
package enum WriteCondition: Sendable, Hashable {
  /// No condition: the write replaces whatever is there.
  case none
  /// `If-None-Match: *`: only if no object has the key.
  case absent
  /// `If-Match: ETAG`: only if the object's ETag is still `etag` (bare, without quotes).
  case matches(String)
}

/// The bare value of an ETag header: `"abc"` and `W/"abc"` give `abc`.
func bareETag(_ header: String) -> String {
  var value = Substring(header)
  if value.hasPrefix("W/") { value = value.dropFirst(2) }
  if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
  return String(value)
}
