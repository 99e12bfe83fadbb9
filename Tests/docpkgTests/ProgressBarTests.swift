import Foundation
import TestSupport
import Testing

/// Issue 15: under a terminal, `pack` redraws its bar by time (not every 64 entries: a one-file
/// pack to tar.xz drew nothing until the end), and `unpack`'s bar has a total: it fills, with a
/// percent, bytes and the time left.
@Suite("progress bars in a terminal", .enabled(if: Shell.has("python3")))
struct ProgressBarTests {
  /// A package holding one file of `mebibytes` MiB, half random bytes.
  func makePackage(in temp: TemporaryDirectory, mebibytes: Int) throws -> String {
    let package = try temp.makeDirectory("Big.pkg")
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    var bytes = [UInt8](repeating: 32, count: mebibytes << 20)
    for index in stride(from: 0, to: bytes.count, by: 2) {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    _ = try temp.write("Big.pkg/big.bin", Data(bytes))
    return package
  }

  /// The bar's frames that show a percent strictly between 0 and 100.
  func framesMidWay(_ terminal: String) -> [String] {
    terminal.split(separator: "\r").map(String.init).filter { frame in
      guard let percent = frame.firstMatch(of: /(\d+)%/).flatMap({ Int($0.1) }) else { return false }
      return percent > 0 && percent < 100
    }
  }

  @Test("pack to tar.xz draws a filling bar with a percent and the time left while the one big file is packed")
  func packBarByTime() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp, mebibytes: 8)
    let result = try Shell.docpkgInTerminal(["pack", package, "-o", temp.appending("Big.tar.xz")])
    #expect(result.status == 0, "\(result.standardOutput)")
    let frames = framesMidWay(result.standardOutput)
    #expect(!frames.isEmpty, "\(result.standardOutput)")
    #expect(frames.contains { $0.contains("packing [#") && $0.contains("MiB of 8 MiB") && $0.contains(" left") })
  }

  @Test("unpack draws a bar that fills, from the archive's size, with bytes and the time left")
  func unpackBarHasTotal() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp, mebibytes: 24)
    let archive = temp.appending("Big.tar.bz2")
    try Shell.run(Shell.docpkgPath, ["pack", package, "-o", archive, "--level", "1"])
    let out = try temp.makeDirectory("out")
    let result = try Shell.docpkgInTerminal(["unpack", archive, "-o", out])
    #expect(result.status == 0, "\(result.standardOutput)")
    let frames = framesMidWay(result.standardOutput)
    #expect(!frames.isEmpty, "\(result.standardOutput)")
    #expect(frames.contains { $0.contains("unpacking [#") && $0.contains(" MiB") && $0.contains(" left") })
  }
}
