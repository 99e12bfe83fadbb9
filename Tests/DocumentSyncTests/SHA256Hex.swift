import Crypto
import Foundation

/// SHA-256 in lower-case hex, for the tests' expectations.
enum SHA256Hex {
  static func of(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
  }
}
