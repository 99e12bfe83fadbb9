import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, read whole (for `docpkg put PACKAGE ENTRY -`).
enum StandardInput {
  static func readAll() throws -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw PackageError(.io, "cannot read", path: "standard input", context: "", errno: .init(rawValue: errno))
      }
      if count == 0 { return data }
      data.append(contentsOf: buffer[..<count])
    }
  }
}
