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
}
