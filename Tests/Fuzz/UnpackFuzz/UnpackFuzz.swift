import DocumentArchive
import DocumentPackage
import FuzzSupport
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libFuzzer's entry: one input, written to `input.tar` (a zip or compressed tar is known by its first bytes),
/// unpacked as `docpkg unpack` does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUnpack(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  UnpackFuzz.run(FilePath(FuzzInput.file(FuzzInput.bytes(data, size), named: "input.tar")))
  return 0
}

/// `ArchiveUnpacker` on one input, into a fresh folder beside the input: whatever the archive holds, nothing is
/// written outside the destination.
enum UnpackFuzz {
  nonisolated(unsafe) static var runs = 0

  static func run(_ archive: FilePath) {
    runs += 1
    let folder = archive.removingLastComponent()
    let sandbox = folder.appending("sandbox-\(runs)")
    let destination = sandbox.appending("destination")
    let manager = FileManager.default
    defer { try? manager.removeItem(atPath: sandbox.string) }
    guard (try? manager.createDirectory(atPath: destination.string, withIntermediateDirectories: true)) != nil
    else { fuzzFailure("cannot make \(destination)") }
    let before = (try? manager.contentsOfDirectory(atPath: folder.string)) ?? []
    let limits = UnpackLimits(maxTotalSize: 64 << 20, maxEntryCount: 10_000)
    _ = try? ArchiveUnpacker.unpack(archive, into: destination, options: UnpackOptions(limits: limits))
    let inSandbox = (try? manager.contentsOfDirectory(atPath: sandbox.string)) ?? []
    let after = (try? manager.contentsOfDirectory(atPath: folder.string)) ?? []
    if inSandbox != ["destination"] || Set(after) != Set(before) {
      fuzzFailure("the unpack wrote outside its destination: beside it \(inSandbox), beside the archive \(after)")
    }
  }
}
