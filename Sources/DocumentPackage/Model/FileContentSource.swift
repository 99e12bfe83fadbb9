#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Supplies the bytes of a regular-file node that lives somewhere other than a plain file on disk,
/// such as an entry of an archive being read in place.
///
/// Conformers read lazily: nothing is read until ``PackageNode/contents(options:)`` or
/// ``PackageNode/readContents(chunkSize:_:)`` asks.
public protocol FileContentSource: AnyObject {
  /// The size of the contents in bytes, known without reading them.
  var size: Int64 { get }
  /// Reads all the contents.
  func readAll() throws -> Data
  /// Reads the contents in order, handing `body` chunks of at most `chunkSize` bytes.
  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
  /// Whether ``read(chunkSize:_:)`` may run on several threads at once, for this source and the
  /// other sources of its tree (for example `pread`s of one shared descriptor, with no other state).
  /// A comparison then reads such files on several workers, as it does files on disk. `false` by default.
  var allowsConcurrentReads: Bool { get }
  /// Whether reading the contents to their end checks them (an archive entry's CRC-32 or length), so that a
  /// comparison reads such a file to its end even once it is known to differ: damage then fails the comparison
  /// rather than showing as a change. `false` by default.
  var checksDataWhenRead: Bool { get }
  /// Reads the contents' data in order, handing `body` chunks of at most `chunkSize` bytes with each one's
  /// offset; the bytes between them, and after the last, are zeros (a sparse file's holes, never read). By
  /// default every byte, from ``read(chunkSize:_:)``.
  func readData(chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws
}

extension FileContentSource {
  /// `false`: a source reads on one thread at a time unless it says otherwise.
  public var allowsConcurrentReads: Bool { false }

  /// `false`: reading the contents checks nothing.
  public var checksDataWhenRead: Bool { false }

  /// Every byte, from ``read(chunkSize:_:)``, with its offset.
  public func readData(chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
    var offset: Int64 = 0
    try read(chunkSize: chunkSize) { chunk in
      try body(chunk, offset)
      offset += Int64(chunk.count)
    }
  }
}
