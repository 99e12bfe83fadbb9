import Foundation
import TestSupport

/// SHA-256 in lower-case hex, for the tests' expectations: computed by coreutils' `sha256sum`, not by the
/// library under test.
enum SHA256Hex {
  static func of(_ data: Data) -> String {
    let output = (try? Shell.run("sha256sum", [], input: data).standardOutput) ?? ""
    return String(output.prefix(64))
  }
}
