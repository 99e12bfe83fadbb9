import SystemPackage

/// Reads file contents for a comparison: equality with early exit, whole contents for patches and
/// similarity, SHA-256 digests. Keeps one scratch buffer across files instead of allocating per file.
struct ContentReader {
  /// Files up to this size are compared by reading the old one into memory, then streaming the
  /// new one against it; larger files are compared chunk by chunk.
  static let wholeFileLimit: Int64 = 8 << 20
  static let chunkSize = 1 << 20

  private var scratch: [UInt8] = []
  private let oldDisk = DiskFileReader()
  private let newDisk = DiskFileReader()

  /// Stops a streaming read at the first difference.
  private struct Mismatch: Error {}

  /// The chunk size for reading a file of `size` bytes in one go when it is small.
  private static func chunk(for size: Int64) -> Int { Int(min(max(size, 1), Int64(chunkSize))) }

  /// Makes room to read files on disk of up to `size` bytes whole (at most ``wholeFileLimit``): one
  /// buffer for a series of files instead of a larger one each time a file is larger than the last.
  func reserve(_ size: Int64) {
    let size = min(size, Self.wholeFileLimit)
    oldDisk.reserve(size)
  }

  /// Whether two files of the same size have the same bytes.
  mutating func equalContents(_ old: PackageNode, _ new: PackageNode) throws -> Bool {
    let size = old.size
    if size <= Self.wholeFileLimit {
      // The old file in memory (straight from disk when it can be), then the new one against it:
      // from disk too, or streamed (an archive entry), stopping at the first difference.
      let fromDisk = oldDisk.read(old)
      if fromDisk == nil {
        scratch.removeAll(keepingCapacity: true)
        try old.readContents(chunkSize: Self.chunk(for: size)) { scratch.append(contentsOf: $0) }
      }
      return try scratch.withUnsafeBytes { loaded in
        let held = fromDisk ?? loaded
        if let other = newDisk.read(new) { return Syscalls.bytesEqual(held, other) }
        // An archive entry is read to its end even once it differs: its data is checked there (a zip's CRC-32),
        // and a damaged entry must fail the comparison, not pass as modified.
        let drains = new.checksDataWhenRead
        var offset = 0
        var differs = false
        do {
          try new.readContents(chunkSize: Self.chunk(for: size)) { chunk in
            if !differs {
              differs =
                offset + chunk.count > held.count
                || !Syscalls.bytesEqual(UnsafeRawBufferPointer(rebasing: held[offset..<offset + chunk.count]), chunk)
              if differs, !drains { throw Mismatch() }
            }
            offset += chunk.count
          }
        } catch is Mismatch {
          return false
        }
        return !differs && offset == held.count
      }
    }
    if old.isBackedByDisk, new.isBackedByDisk {
      return try Self.streamCompare(old, new)
    }
    return try Self.dataDigest(of: old) == Self.dataDigest(of: new)
  }

  /// A digest of a file's contents that reads only its data: SHA-256 over each block of ``chunkSize`` bytes
  /// (at offsets that are multiples of it) that is not all zeros, with the block's index. Equal contents give
  /// equal digests whatever holes each copy has, and a sparse file costs its data, not its size: a sparse tar
  /// entry of 1 TiB with a few blocks of data is compared with its unpacked copy in milliseconds.
  static func dataDigest(of node: PackageNode) throws -> SHA256.Digest {
    var hasher = SHA256()
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: Syscalls.readBufferAlignment)
    let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: Syscalls.readBufferAlignment)
    zeros.initializeMemory(as: UInt8.self, repeating: 0)
    defer {
      block.deallocate()
      zeros.deallocate()
    }
    let size = node.size
    var current: Int64 = -1  // the index of the block in `block`
    func flush() {
      guard current >= 0 else { return }
      let count = Int(min(Int64(chunkSize), size - current * Int64(chunkSize)))
      guard count > 0 else { return }
      let bytes = UnsafeRawBufferPointer(rebasing: block[..<count])
      if Syscalls.bytesEqual(bytes, UnsafeRawBufferPointer(rebasing: zeros[..<count])) { return }
      withUnsafeBytes(of: current.littleEndian) { hasher.update(bufferPointer: $0) }
      hasher.update(bufferPointer: bytes)
    }
    try node.readData(chunkSize: chunkSize) { chunk, offset in
      var position = offset
      var rest = chunk
      while !rest.isEmpty {
        let index = position / Int64(chunkSize)
        if index != current {
          flush()
          current = index
          block.copyMemory(from: UnsafeRawBufferPointer(zeros))
        }
        let within = Int(position % Int64(chunkSize))
        let count = min(rest.count, chunkSize - within)
        UnsafeMutableRawBufferPointer(rebasing: block[within..<(within + count)])
          .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<count]))
        position += Int64(count)
        rest = UnsafeRawBufferPointer(rebasing: rest[count...])
      }
    }
    flush()
    withUnsafeBytes(of: size.littleEndian) { hasher.update(bufferPointer: $0) }
    return hasher.finalize()
  }

  /// All of a file's bytes, read without keeping them in the node (unlike ``PackageNode/contents(options:)``).
  func load(_ node: PackageNode) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(node.size))
    try node.readContents(chunkSize: Self.chunk(for: node.size)) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// The SHA-256 of a file's contents, streamed, as lowercase hex.
  static func sha256(of node: PackageNode) throws -> String {
    var hasher = SHA256()
    try node.readContents(chunkSize: chunkSize) { hasher.update(bufferPointer: $0) }
    return hex(hasher.finalize())
  }

  /// The SHA-256 of bytes in memory, as lowercase hex.
  static func sha256(of bytes: [UInt8]) -> String {
    hex(SHA256.hash(data: bytes))
  }

  static func hex(_ digest: SHA256.Digest) -> String { HexDigits.encode(digest) }

  /// Git's rule for text: no NUL byte in the first 8,000 bytes.
  static func looksLikeText(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBufferPointer { !$0.prefix(8000).contains(0) }
  }

  /// Compares two files on disk chunk by chunk, reading both descriptors in step.
  private static func streamCompare(_ old: PackageNode, _ new: PackageNode) throws -> Bool {
    let a = try old.openForReading()
    defer { try? a.close() }
    let b = try new.openForReading()
    defer { try? b.close() }
    let bufferA = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: Syscalls.readBufferAlignment)
    defer { bufferA.deallocate() }
    let bufferB = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: Syscalls.readBufferAlignment)
    defer { bufferB.deallocate() }
    let pathA = old.diskLocation?.string ?? old.path, pathB = new.diskLocation?.string ?? new.path
    while true {
      let countA = try fill(bufferA, from: a, path: pathA)
      let countB = try fill(bufferB, from: b, path: pathB)
      guard countA == countB,
        Syscalls.bytesEqual(
          UnsafeRawBufferPointer(rebasing: bufferA[..<countA]), UnsafeRawBufferPointer(rebasing: bufferB[..<countB]))
      else { return false }
      if countA < chunkSize { return true }
    }
  }

  /// Reads until `buffer` is full or the file ends; returns how many bytes were read.
  private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from fd: FileDescriptor, path: String) throws -> Int
  {
    var filled = 0
    while filled < buffer.count {
      let count: Int
      do { count = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) } catch let error
        as Errno
      {
        throw PackageError.io(error, "cannot read", path: path)
      }
      if count == 0 { break }
      filled += count
    }
    return filled
  }
}
