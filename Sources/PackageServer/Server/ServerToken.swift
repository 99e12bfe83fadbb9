/// Random tokens: the URL's (who may use the server at all) and each page's (CSRF).
enum ServerToken {
  /// 32 hex digits (128 bits) from the system's cryptographic generator (`getrandom`).
  static func random() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return bytes.hexDigits
  }
}
