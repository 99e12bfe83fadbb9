import CArchive
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// A zip read through its central directory (`ArchivePackage.zipTree`): the same tree as the
/// libarchive reader gives, and comparisons that read both sides' bytes whatever the CRC-32s say.
@Suite("zips read through their central directory")
struct ZipTreeTests {
  /// `bytes` changed in a few bits, with the same length and the same CRC-32. CRC-32 is affine over
  /// GF(2): flipping the bits of a set whose CRC contributions XOR to zero keeps the CRC. Any 33
  /// contributions (32-bit values) are linearly dependent; Gaussian elimination finds such a set.
  static func sameCRCVariant(of bytes: [UInt8]) -> [UInt8] {
    func crc(_ data: [UInt8]) -> UInt32 {
      data.withUnsafeBytes {
        UInt32(CArchive.crc32(0, $0.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt($0.count)))
      }
    }
    let zeros = [UInt8](repeating: 0, count: bytes.count)
    let base = crc(zeros)
    // The contribution of flipping bit `i`: crc(e_i) ^ crc(0).
    func contribution(_ bit: Int) -> UInt32 {
      var flipped = zeros
      flipped[bit / 8] ^= 1 << UInt8(bit % 8)
      return crc(flipped) ^ base
    }
    var basis: [Int: (value: UInt32, bits: Set<Int>)] = [:]  // by highest set bit
    for bit in 0..<(8 * bytes.count) {
      var value = contribution(bit)
      var bits: Set<Int> = [bit]
      while value != 0 {
        let top = 31 - value.leadingZeroBitCount
        guard let row = basis[top] else {
          basis[top] = (value, bits)
          break
        }
        value ^= row.value
        bits.formSymmetricDifference(row.bits)
      }
      if value == 0 {
        var variant = bytes
        for flip in bits { variant[flip / 8] ^= 1 << UInt8(flip % 8) }
        precondition(variant != bytes && crc(variant) == crc(bytes))
        return variant
      }
    }
    preconditionFailure("33 bits are always dependent")
  }

  /// A package of `count` text files, packed as a zip by `pack` (stored or deflated per file).
  private func packedPackage(_ temp: TemporaryDirectory, count: Int) throws -> (package: String, zip: FilePath) {
    for index in 0..<count {
      try temp.write("P.pkg/d\(index % 3)/f\(index).txt", String(repeating: "line \(index) of the note\n", count: 40))
    }
    let zip = FilePath(temp.appending("P.zip"))
    try ArchivePacker.pack(
      try PackageNode(contentsOf: FilePath(temp.appending("P.pkg"))), to: zip, options: PackOptions(format: .zip))
    return (temp.appending("P.pkg"), zip)
  }

  @Test("a file with the same size and CRC-32 as the zip's entry but other bytes is reported as modified")
  func sameCRCIsNotEqual() throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 12)
    let tree = try ArchivePackage.open(zip)
    #expect(try PackageNode(contentsOf: FilePath(package)).difference(from: tree).isEmpty)
    // Forge one file (the zip is unchanged): same size, same CRC-32, other bytes.
    let target = package + "/d1/f4.txt"
    let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
    let forged = Self.sameCRCVariant(of: original)
    try Data(forged).write(to: URL(fileURLWithPath: target))
    let difference = try PackageNode(contentsOf: FilePath(package)).difference(from: try ArchivePackage.open(zip))
    #expect(difference.changes.map(\.path) == ["d1/f4.txt"])
    #expect(difference.changes.first?.kind == .modified)
    #expect(difference.changes.first?.details == .contents)
    // The command agrees, both ways round.
    for arguments in [[zip.string, package], [package, zip.string]] {
      let result = try Shell.docpkg(["diff", "--name-status"] + arguments)
      #expect(result.status == 1)
      #expect(result.standardOutput == "M\td1/f4.txt\n")
    }
  }

  @Test("the tree from the central directory has the names, kinds, sizes, modes and times of the package")
  func sameTreeAsPackage() throws {
    let temp = try TemporaryDirectory()
    let (package, zip) = try packedPackage(temp, count: 30)
    try Shell.run("chmod", ["640", package + "/d2/f5.txt"])
    try Shell.run("chmod", ["750", package + "/d0"])
    // Whole seconds: a zip's extended timestamp has no fractions.
    try Shell.run("find", [package, "-exec", "touch", "-h", "-d", "@1700000000", "{}", "+"])
    try ArchivePacker.pack(try PackageNode(contentsOf: FilePath(package)), to: zip, options: PackOptions(format: .zip))
    let tree = try #require(ArchivePackage.zipTree(of: zip, unwrappingSingleDirectory: true))
    var options = PackageDifference.Options()
    options.comparesModificationTimes = true
    #expect(try PackageNode(contentsOf: FilePath(package)).difference(from: tree, options: options).isEmpty)
    #expect(try tree.node(at: "d2/f5.txt").permissions.rawValue == 0o640)
    #expect(try tree.node(at: "d0").permissions.rawValue == 0o750)
  }

  @Test("a zip whose times are only MS-DOS times is read by libarchive (it converts them through the time zone)")
  func dosTimesTakeLibarchive() throws {
    let temp = try TemporaryDirectory()
    try temp.write("Z/a.txt", "a\n")
    // `zip -X` writes no extra fields: no extended timestamp.
    try Shell.run("zip", ["-qrX", temp.appending("z.zip"), "Z"], directory: temp.path)
    #expect(ArchivePackage.zipTree(of: FilePath(temp.appending("z.zip")), unwrappingSingleDirectory: true) == nil)
    let tree = try ArchivePackage.open(FilePath(temp.appending("z.zip")))
    #expect(try tree.node(at: "a.txt").contents() == Data("a\n".utf8))
  }
}
