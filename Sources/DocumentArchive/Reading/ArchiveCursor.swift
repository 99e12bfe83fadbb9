import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One open archive shared by every node of a tree read in place, positioned at an entry.
///
/// Reading entries in archive order streams forward through one handle, so reading every file
/// of an archive costs one pass over it. Asking for an entry before the current one reopens the
/// archive and walks forward again; small entries passed over on the way are kept (up to
/// ``cacheLimit`` bytes), so that reading an archive in another order stays close to one pass.
final class ArchiveCursor {
  let path: String
  let format: ArchiveFormat
  /// A digest of each entry's name, by index in the archive, to check the archive did not change (eight bytes
  /// an entry, where the names themselves would be most of an index's memory); 0 for a header the walk passes
  /// over (the archive's root, `./`).
  private var nameDigests: [UInt64] = []
  private var reader: ArchiveReader?
  /// The index of the entry whose header was read last; -1 before the first.
  private var position = -1
  private var dataConsumed = false
  private var cache: [Int: [UInt8]] = [:]
  private var cacheBytes = 0
  /// The header scan of the reader that walked the archive, which the readers of contents take while the file is
  /// the same (``SharedHeaderScan``).
  var headerScan: SharedHeaderScan?
  /// How many times the archive was opened for reading contents (tests check it stays 1).
  private(set) var opens = 0

  /// Entries up to this size passed over on the way to another are kept in memory.
  static let cacheableSize: Int64 = 64 << 10
  /// The most bytes kept.
  static let cacheLimit = 32 << 20

  init(path: String, format: ArchiveFormat) {
    self.path = path
    self.format = format
  }

  /// Notes the name of entry `index`, as the tree was read: reading the entry later checks it still has it. The
  /// headers before it not noted yet are those the walk passed over (the archive's root, `./`): they are counted,
  /// not checked.
  func expect(_ name: String, at index: Int) {
    nameDigests += repeatElement(0, count: max(0, index - nameDigests.count))
    nameDigests.append(Self.digest(name))
  }

  /// The 64-bit FNV-1a hash of `name`'s UTF-8 bytes, never 0.
  private static func digest(_ name: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash | 1
  }

  /// Streams entry `index`'s contents (`size` bytes, holes filled with zeros) in chunks of at most `chunkSize`.
  /// - Throws: ``/DocumentPackage/PackageError`` if the archive is damaged or changed since it was read.
  func read(entry index: Int, size: Int64, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    var written: Int64 = 0
    var zeros: [UInt8] = []
    /// Hands over zeros up to `offset`.
    func fill(to offset: Int64) throws {
      if offset > written, zeros.isEmpty { zeros = [UInt8](repeating: 0, count: chunkSize) }
      while written < offset {
        let count = Int(min(offset - written, Int64(chunkSize)))
        try zeros.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        written += Int64(count)
      }
    }
    try readData(entry: index, size: size, chunkSize: chunkSize) { chunk, offset in
      try fill(to: offset)
      try body(chunk)
      written += Int64(chunk.count)
    }
    try fill(to: size)
  }

  /// Streams entry `index`'s data in chunks of at most `chunkSize` with their offsets; a sparse entry's holes
  /// are left out (they read as zeros).
  /// - Throws: ``/DocumentPackage/PackageError`` if the archive is damaged or changed since it was read.
  func readData(
    entry index: Int, size: Int64, chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void
  ) throws {
    if let cached = cache[index] {
      var offset: Int64 = 0
      try cached.withUnsafeBytes {
        try Self.chunked($0, chunkSize) { chunk in
          try body(chunk, offset)
          offset += Int64(chunk.count)
        }
      }
      return
    }
    if reader == nil || index < position || (index == position && dataConsumed) {
      reader = try ArchiveReader(path: path, format: format, previousScan: headerScan)
      opens += 1
      position = -1
    }
    // A failed read leaves libarchive's handle past an error it reports once: the next read starts over.
    do { try readFromPosition(entry: index, size: size, chunkSize: chunkSize, body) } catch {
      reader = nil
      throw error
    }
  }

  private func readFromPosition(
    entry index: Int, size: Int64, chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void
  ) throws {
    let reader = reader!
    while position < index {
      guard let header = try reader.next() else {
        throw PackageError(.changedOnDisk, "archive changed since it was opened:", path: path)
      }
      position += 1
      dataConsumed = false
      guard position < nameDigests.count,
        nameDigests[position] == 0 || Self.digest(header.displayName) == nameDigests[position]
      else {
        throw PackageError(.changedOnDisk, "archive changed since it was opened:", path: path)
      }
      if position < index, header.kind == .file, try keep(entry: position, size: header.size, from: reader) {
        dataConsumed = true
      }
    }
    dataConsumed = true
    try stream(reader, size: size, chunkSize: chunkSize, body)
  }

  /// Keeps entry `index`'s data in memory (holes as zeros), read from `reader`, which is at its header, when its
  /// `size` is at most `limit` and the kept bytes stay within ``cacheLimit``: reading the entry later reads no
  /// archive. The walk of a tar read in place keeps the one file `docpkg cat` asks for as it passes it, so that the
  /// tar is not read again up to it.
  /// - Returns: Whether it was kept (its data then read: `reader`'s other users must not read it).
  /// - Throws: ``/DocumentPackage/PackageError`` if the data cannot be read (as reading the entry would throw).
  func keep(entry index: Int, size: Int64?, limit: Int64 = cacheableSize, from reader: ArchiveReader) throws -> Bool {
    guard let size, size >= 0, size <= limit, cacheBytes + Int(size) <= Self.cacheLimit, cache[index] == nil else {
      return false
    }
    var bytes: [UInt8] = []
    try stream(reader, size: size, chunkSize: Int(Self.cacheableSize)) { chunk, offset in
      // Zeros for a hole before the block (never past the entry's size, whatever a damaged map says).
      let gap = min(Int(clamping: offset), Int(size)) - bytes.count
      bytes.append(contentsOf: repeatElement(0, count: max(0, gap)))
      bytes.append(contentsOf: chunk)
    }
    bytes.append(contentsOf: repeatElement(0, count: max(0, Int(size) - bytes.count)))
    cache[index] = bytes
    cacheBytes += bytes.count
    return true
  }

  /// Hands over the current entry's data blocks, in chunks of at most `chunkSize`, with their offsets.
  private func stream(
    _ reader: ArchiveReader, size: Int64, chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void
  ) throws {
    try reader.readData { block, offset in
      var at = offset
      try Self.chunked(block, chunkSize) { chunk in
        try body(chunk, at)
        at += Int64(chunk.count)
      }
    }
  }

  private static func chunked(
    _ bytes: UnsafeRawBufferPointer, _ chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    var start = 0
    while start < bytes.count {
      let end = min(start + chunkSize, bytes.count)
      try body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
      start = end
    }
  }
}

/// The contents of one archive entry, read through the archive's shared ``ArchiveCursor`` when asked for.
final class ArchiveEntrySource: FileContentSource {
  let cursor: ArchiveCursor
  let index: Int
  let size: Int64

  init(cursor: ArchiveCursor, index: Int, size: Int64) {
    self.cursor = cursor
    self.index = index
    self.size = size
  }

  /// libarchive checks its data at its end (a zip's CRC-32, a tar's length).
  var checksDataWhenRead: Bool { true }

  func readAll() throws -> Data {
    var data = Data()
    data.reserveCapacity(Int(min(size, 1 << 24)))  // the size comes from the archive: do not trust it for memory
    try cursor.read(entry: index, size: size, chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try cursor.read(entry: index, size: size, chunkSize: chunkSize, body)
  }

  func readData(chunkSize: Int, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
    try cursor.readData(entry: index, size: size, chunkSize: chunkSize, body)
  }
}
