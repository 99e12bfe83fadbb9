import DocumentPackage
import FuzzSupport
import SystemPackage

@testable import DocumentArchive

/// libFuzzer's entry: one input, written to `input.tar`, read by every tar reading path of `docpkg`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = FuzzInput.bytes(data, size)
  TarFuzz.names(Array(bytes.prefix(1024)))
  TarFuzz.run(FilePath(FuzzInput.file(bytes, named: "input.tar")))
  return 0
}

/// The tar readers on one input, as `docpkg` runs them (libarchive reads the headers; the walk judges them):
///
/// - `TarHeaderScan`, our own reading of the pax headers libarchive hides;
/// - `inspect` of a refused archive (`ArchiveListing`);
/// - `inspect`, `diff`, `pack` (`PackageNode.open(location:)`), every file read: when the tree is built, the
///   listing refuses no entry but links (links are judged at unpack, and by the listing);
/// - the names' decoding (`EntryName`), on the input's first bytes as a name: raw bytes survive decoding.
enum TarFuzz {
  static func run(_ path: FilePath) {
    _ = TarHeaderScan.scan(path: path.string)
    let listed = try? ArchiveListing.entries(of: path)
    guard let tree = try? PackageNode.open(location: path.string) else { return }
    var budget = FuzzRead.budget
    _ = try? WalkedTree(tree, budget: &budget)
    guard let listed else { fuzzFailure("the tree was built, but the listing throws") }
    for entry in listed where entry.refused != nil && entry.kind != .symlink {
      fuzzFailure("the tree was built, but the listing refuses \(entry.path) (\(entry.kind)): \(entry.refused!)")
    }
  }

  /// A tar name's bytes come back from its decoded form, unless they spell the raw-byte scalars themselves
  /// (such a name is refused); a zip name decodes to some string.
  static func names(_ bytes: [UInt8]) {
    let decoded = EntryName.decodeBytes(bytes)
    let spellsRawByte = String(decoding: bytes, as: UTF8.self).unicodeScalars.contains(where: EntryName.isRawByte)
    if !spellsRawByte, EntryName.rawBytes(decoded) != bytes {
      fuzzFailure("name bytes \(bytes) decode to \(decoded.debugDescription), which is \(EntryName.rawBytes(decoded))")
    }
    _ = EntryName.decodeZip(bytes, madeOnUnix: bytes.first.map { $0 & 1 == 0 } ?? false)
  }
}
