import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentArchive
@testable import DocumentPackage

/// Reading entries of a zip through its central directory (`ZipEntryReading`): deflated entries
/// inflated whole or streamed, stored entries in blocks, local headers longer than the first read
/// expects, and damage found whichever path reads the entry.
@Suite("zip entries read in place")
struct ZipEntryReadingTests {
  static let names = [
    "small.txt", "big.txt", "raw.bin", "long-extra.txt", "tiny-long-extra.txt", "stored-long-extra.bin",
  ]

  /// A zip made by `make-zip-entries.py` and the directory of its entries' expected bytes.
  private func makeZip(_ temp: TemporaryDirectory, damaging name: String? = nil) throws -> (
    zip: FilePath, expected: String
  ) {
    let zip = temp.appending("entries.zip")
    let expected = temp.appending("expected")
    try Shell.run(
      "python3", [Fixtures.script("make-zip-entries.py"), zip, expected] + (name.map { ["--damage", $0] } ?? []))
    return (FilePath(zip), expected)
  }

  @Test("every entry reads back its bytes, whole or in chunks of any size")
  func entriesReadBack() throws {
    let temp = try TemporaryDirectory()
    let (zip, expected) = try makeZip(temp)
    // The central-directory reader takes this zip (not libarchive).
    let tree = try #require(ArchivePackage.zipTree(of: zip, unwrappingSingleDirectory: true))
    for name in Self.names {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: expected + "/" + name))
      let node = try tree.node(at: name)
      #expect(try node.contents() == bytes, "\(name)")
      for chunk in [1000, 65_536, 1 << 20] {
        var read = Data()
        var largest = 0
        try node.readContents(chunkSize: chunk) {
          largest = max(largest, $0.count)
          read.append(contentsOf: $0)
        }
        #expect(read == bytes, "\(name) in chunks of \(chunk)")
        #expect(largest <= chunk, "\(name) in chunks of \(chunk)")
      }
    }
    // A diff against the same bytes on disk reads every pair in full: no difference.
    #expect(try PackageNode(contentsOf: FilePath(expected)).difference(from: tree).isEmpty)
  }

  @Test("entries are read on several threads at once with the archive's shared buffers")
  func concurrentReads() throws {
    let temp = try TemporaryDirectory()
    let (zip, expected) = try makeZip(temp)
    let tree = try #require(ArchivePackage.zipTree(of: zip, unwrappingSingleDirectory: true))
    let sources = try Self.names.map { name -> (any FileContentSource, Data) in
      guard case .source(let source) = try tree.node(at: name).fileBody else {
        throw PackageError(.corrupt, "not a source", path: name)
      }
      return (source, try Data(contentsOf: URL(fileURLWithPath: expected + "/" + name)))
    }
    let shared = UncheckedBox(sources)
    let failures = UncheckedBox(UnsafeMutableBufferPointer<Int>.allocate(capacity: 8))
    failures.value.initialize(repeating: 0)
    defer { failures.value.deallocate() }
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for round in 0..<6 {
        let (source, bytes) = shared.value[(worker + round) % shared.value.count]
        if (try? source.readAll()) != bytes { failures.value[worker] += 1 }
      }
    }
    #expect(Array(failures.value) == [Int](repeating: 0, count: 8))
  }

  @Test("a damaged entry fails with an error naming it, on each reading path", arguments: names)
  func damagedEntry(name: String) throws {
    let temp = try TemporaryDirectory()
    let (zip, expected) = try makeZip(temp, damaging: name)
    let tree = try #require(ArchivePackage.zipTree(of: zip, unwrappingSingleDirectory: true))
    #expect {
      try tree.node(at: name).contents()
    } throws: { error in
      "\(error)".contains("pkg/\(name)") && "\(error)".contains("entries.zip")
    }
    // The other entries still read.
    for other in Self.names where other != name {
      #expect(try tree.node(at: other).contents() == Data(contentsOf: URL(fileURLWithPath: expected + "/" + other)))
    }
    // diff never finds the damaged entry equal to the intact bytes: it reports an error (the data
    // cannot be read, or its CRC-32 does not match) or, if it stopped at the first changed byte, a change.
    let result = try Shell.docpkg(["diff", "--name-status", expected, zip.string])
    #expect(result.status == 2 || result.standardOutput == "M\t\(name)\n", "\(result.standardOutput)")
    #expect(result.status != 2 || result.standardError.contains(name), "\(result.standardError)")
  }
}

/// A value shared by the threads of `concurrentPerform`, each touching its own part of it.
private final class UncheckedBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}
