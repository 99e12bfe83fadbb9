import DocumentSync
import Foundation
import Testing

/// AWS's published SigV4 test vectors (Fixtures/sigv4, source in its SOURCE.md): every request is signed with
/// `SigV4Signer` and its canonical request, string to sign and signature compared with AWS's. No server needed.
@Suite struct SigningVectorTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Fixtures/sigv4")

  static var vectors: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
      .filter { !$0.hasSuffix(".md") }.sorted()
  }

  struct Context: Decodable {
    struct Credentials: Decodable {
      var access_key_id: String
      var secret_access_key: String
      var token: String?
    }
    var credentials: Credentials
    var region: String
    var service: String
    var sign_body: Bool
    var timestamp: String
  }

  /// The parts of `request.txt`: `METHOD TARGET HTTP/1.1`, header lines, a blank line, the body.
  static func parseRequest(_ text: String) -> (SigV4Signer.Request, body: Data) {
    let (head, body) =
      text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
    let first = lines.removeFirst()
    let method = String(first[..<first.firstIndex(of: " ")!])
    let target = String(first[first.index(after: first.firstIndex(of: " ")!)..<first.lastIndex(of: " ")!])
    let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    var query: [(String, String)] = []
    if pathPart.count > 1 {
      for item in pathPart[1].split(separator: "&") {
        let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        query.append(
          (String(pair[0]).removingPercentEncoding!, pair.count > 1 ? String(pair[1]).removingPercentEncoding! : ""))
      }
    }
    let headers = lines.filter { !$0.isEmpty }.map { line -> (String, String) in
      let colon = line.firstIndex(of: ":")!
      return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
    let request = SigV4Signer.Request(
      method: method, path: String(pathPart[0]), query: query, headers: headers, payloadHash: "")
    return (request, Data(body.utf8))
  }

  @Test(arguments: vectors)
  func signsAsAWSPublished(_ name: String) throws {
    let dir = Self.folder.appendingPathComponent(name)
    func file(_ file: String) throws -> String {
      try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
    }
    let context = try JSONDecoder().decode(Context.self, from: Data(try file("context.json").utf8))
    var (request, body) = Self.parseRequest(try file("request.txt"))
    let hash = SHA256Hex.of(body)
    request.payloadHash = hash
    if context.sign_body { request.headers.append(("X-Amz-Content-Sha256", hash)) }
    let date = ISO8601DateFormatter().date(from: context.timestamp)!
    let signer = SigV4Signer(
      credentials: S3Credentials(
        accessKeyID: context.credentials.access_key_id, secretAccessKey: context.credentials.secret_access_key,
        sessionToken: context.credentials.token),
      region: context.region, service: context.service)

    let stamp = SigV4Signer.timestamp(date)
    #expect(stamp == "20150830T123600Z")
    var full = request
    full.headers.append(("X-Amz-Date", stamp))
    if let token = context.credentials.token { full.headers.append(("X-Amz-Security-Token", token)) }
    let canonical = signer.canonicalRequest(full)
    #expect(canonical.text == (try file("header-canonical-request.txt")))
    let stringToSign = signer.stringToSign(canonicalRequest: canonical.text, timestamp: stamp)
    #expect(stringToSign == (try file("header-string-to-sign.txt")))
    let signature = try file("header-signature.txt").trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(signer.signature(forStringToSign: stringToSign) == signature)

    // The headers a request gets carry the same signature.
    let added = signer.signedHeaders(for: request, at: date)
    let authorization = try #require(added.first { $0.0 == "authorization" }?.1)
    #expect(authorization.hasSuffix("Signature=\(signature)"))
    #expect(authorization.contains("Credential=AKIDEXAMPLE/20150830/\(context.region)/\(context.service)/aws4_request"))
  }

  @Test func theSuiteIsThere() {
    #expect(Self.vectors.count >= 20)
  }

  @Test func credentialsAreNeverPrinted() {
    let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "very-secret", sessionToken: "tok")
    #expect(!"\(credentials)".contains("very-secret"))
    #expect(!String(reflecting: credentials).contains("very-secret"))
    var dumped = ""
    dump(credentials, to: &dumped)
    #expect(!dumped.contains("very-secret"))
  }
}
