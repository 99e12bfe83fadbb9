import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// AWS Signature Version 4 request signing (header form), as S3 and every S3-compatible store expect.
///
/// The signature is `HMAC-SHA256(signingKey, stringToSign)`, where the signing key is derived from the secret key by
/// four HMACs over the date, region, service and `aws4_request`, and the string to sign names the algorithm, time,
/// credential scope and the SHA-256 of the *canonical request*: method, URI-encoded path (S3 form: each byte but the
/// unreserved ones and `/` encoded once, no `.`/`..` removal), sorted encoded query, lower-cased sorted headers
/// with trimmed values, the signed header names, and the payload's SHA-256 in hex.
///
/// Verified against AWS's published test vectors (`Tests/DocumentSyncTests/Fixtures/sigv4`).
package struct SigV4Signer: Sendable {
  /// The keys requests are signed with.
  package var credentials: S3Credentials
  /// The region in the credential scope (`us-east-1` for most S3-compatible stores).
  package var region: String
  /// The service in the credential scope: `s3`.
  package var service: String

  /// A signer for `service` in `region` with `credentials`.
  package init(credentials: S3Credentials, region: String, service: String = "s3") {
    self.credentials = credentials
    self.region = region
    self.service = service
  }

  /// The SHA-256 of an empty payload, in hex.
  package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  /// The request parts a signature covers.
  package struct Request: Sendable {
    /// `GET`, `PUT`, ...
    package var method: String
    /// The path, not encoded (`/bucket/a b.txt`); encoded here as S3 expects.
    package var path: String
    /// The query items, not encoded; a key without value is `("uploads", "")`.
    package var query: [(String, String)]
    /// The headers to sign, `host` among them; a name given twice is signed as one comma-joined value.
    package var headers: [(String, String)]
    /// The payload's SHA-256 in hex, or `UNSIGNED-PAYLOAD`.
    package var payloadHash: String

    /// A request to sign.
    package init(
      method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
      payloadHash: String
    ) {
      self.method = method
      self.path = path
      self.query = query
      self.headers = headers
      self.payloadHash = payloadHash
    }
  }

  /// The headers to add to `request` to sign it at `date`: `x-amz-date`, `x-amz-security-token` when the
  /// credentials have a session token, and `authorization`. (`x-amz-content-sha256`, which S3 requires, is the
  /// caller's: put it in `request.headers` so that it is signed.)
  package func signedHeaders(for request: Request, at date: Date) -> [(String, String)] {
    let stamp = Self.timestamp(date)
    var request = request
    var added = [("x-amz-date", stamp)]
    if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
    request.headers += added
    let canonical = canonicalRequest(request)
    let signature = signature(forStringToSign: stringToSign(canonicalRequest: canonical.text, timestamp: stamp))
    let authorization =
      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(timestamp: stamp)), "
      + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
    return added + [("authorization", authorization)]
  }

  /// The canonical request's text and its `;`-joined signed header names.
  package func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
    var merged: [String: [String]] = [:]
    for (name, value) in request.headers {
      merged[name.lowercased(), default: []].append(Self.trimmed(value))
    }
    let names = merged.keys.sorted()
    let headerLines = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
    let query = request.query
      .map { (Self.encode($0.0, keepingSlash: false), Self.encode($0.1, keepingSlash: false)) }
      .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
      .map { "\($0.0)=\($0.1)" }
      .joined(separator: "&")
    let signed = names.joined(separator: ";")
    let text = [
      request.method, Self.encode(request.path, keepingSlash: true), query, headerLines, signed,
      request.payloadHash,
    ].joined(separator: "\n")
    return (text, signed)
  }

  /// The string to sign for a canonical request made at `timestamp` (`20150830T123600Z`).
  package func stringToSign(canonicalRequest: String, timestamp: String) -> String {
    let hash = SHA256.hash(data: Data(canonicalRequest.utf8)).hexString
    return ["AWS4-HMAC-SHA256", timestamp, scope(timestamp: timestamp), hash].joined(separator: "\n")
  }

  /// The hex signature of `stringToSign` (its timestamp's date picks the signing key).
  package func signature(forStringToSign stringToSign: String) -> String {
    let timestamp = stringToSign.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first ?? ""
    let key = signingKey(date: String(timestamp.prefix(8)))
    return HMACSHA256.authenticationCode(for: Array(stringToSign.utf8), key: key).hexString
  }

  func scope(timestamp: String) -> String {
    "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
  }

  func signingKey(date: String) -> [UInt8] {
    var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
    for part in [date, region, service, "aws4_request"] {
      key = HMACSHA256.authenticationCode(for: Array(part.utf8), key: key)
    }
    return key
  }

  /// `20150830T123600Z` for `date` (UTC).
  package static func timestamp(_ date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let rest = seconds - days * 86_400
    let (year, month, day) = CivilDate.of(daysSince1970: Int64(days))
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(year)\(two(Int(month)))\(two(Int(day)))T\(two(rest / 3600))\(two(rest / 60 % 60))\(two(rest % 60))Z"
  }

  /// Trims a header value and folds runs of spaces into one, as the canonical form requires.
  static func trimmed(_ value: String) -> String {
    value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
  }

  /// Percent-encodes every byte of `text` but `A-Z a-z 0-9 - . _ ~` (and `/` when `keepingSlash`), upper-case hex.
  package static func encode(_ text: String, keepingSlash: Bool) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: "/") where keepingSlash:
        out.append("/")
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
      }
    }
    return out
  }
}

extension Sequence where Element == UInt8 {
  /// Lower-case hex.
  var hexString: String { ContentHash.hex(self) }
}
