/// What a text file is made of, for estimating how similar two files are: git's rule
/// (`diffcore-delta.c`) in short.
///
/// The bytes are cut into pieces that end after a line feed or at 64 bytes, whichever comes first
/// (a carriage return before a line feed is left out). Each piece is hashed, and the fingerprint
/// keeps, per hash, how many bytes such pieces hold.
struct TextFingerprint {
  private(set) var bytesByPiece: [UInt64: Int] = [:]
  /// The file's size in bytes.
  let size: Int

  init(_ bytes: [UInt8]) {
    size = bytes.count
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var length = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte == 0x0D, index < bytes.count, bytes[index] == 0x0A { continue }
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
      length += 1
      if byte == 0x0A || length == 64 {
        bytesByPiece[hash, default: 0] += length
        hash = 0xcbf2_9ce4_8422_2325
        length = 0
      }
    }
    if length > 0 { bytesByPiece[hash, default: 0] += length }
  }

  /// The similarity of two files in percent: the bytes of the pieces they have in common (each
  /// piece counted at most as often as the file with fewer copies has it), over the larger size.
  /// Files whose sizes alone rule out `threshold` score 0 without comparing pieces.
  func similarity(to other: TextFingerprint, threshold: Int) -> Int {
    let larger = max(size, other.size)
    guard larger > 0 else { return 100 }
    let delta = abs(size - other.size)
    if larger * (100 - threshold) < delta * 100 { return 0 }
    let (small, big) = bytesByPiece.count <= other.bytesByPiece.count ? (self, other) : (other, self)
    var common = 0
    for (piece, bytes) in small.bytesByPiece {
      if let others = big.bytesByPiece[piece] { common += min(bytes, others) }
    }
    return common * 100 / larger
  }
}
