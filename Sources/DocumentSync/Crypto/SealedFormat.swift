import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The sealed object format: the body of every object of an encrypted remote (a blob, a tree, the head, a state,
// a lock), in one place.
//
//   header    "dps1" (4 bytes), then a 24-byte seed
//   segments  the plaintext cut into segments of `segmentSize` bytes (the last one shorter, possibly empty: an
//             empty object is one empty segment), each sealed with ChaCha20-Poly1305: its ciphertext (as long as
//             its plaintext), then its 16-byte tag. No length field: every segment but the last is exactly
//             `segmentSize + tagSize` bytes.
//
// The segment key is HMAC-SHA256(data key, "docpkg-sync segment key " KIND " " SEED), a key per object and kind
// (a tree's bytes cannot be opened as a head). The nonce of segment i is i as 11 big-endian bytes, then one byte:
// 1 for the last segment, 0 for the others (the STREAM construction of Hoang, Reyhanitabar, Rogaway and Vizár), so
// that segments cannot be reordered, dropped or cut off at a segment boundary without failing authentication.
//
// The seed: for a content-addressed object (blob, tree) HMAC-SHA256(seed key, KIND " " PLAIN-SHA256) cut to 24
// bytes, so the same plaintext is sealed to the same bytes (dedup, and a multipart upload resumes with the same
// parts); for the others (head, state, lock, pins: one key, many bodies) 24 random bytes, so no key and nonce is used
// twice for different plaintexts.
//
// A segment can be sealed and opened alone, so a body is sealed and opened as a stream (memory bounded by a
// segment) and a download cut short resumes at a byte offset.

/// What an object of an encrypted remote is: part of the key of its segments.
package enum SealedKind: String, Sendable, CaseIterable {
  case blob, tree, head, state, lock, pins, keyCheck = "key-check"
}

/// Why a sealed body was refused.
package enum SealedFormatError: Error, Sendable, Equatable {
  /// The body is shorter than the header, or does not start with the format's mark.
  case notSealed
  /// Segment `index` does not authenticate: changed, reordered, cut short, or sealed with another key.
  case segmentRefused(index: Int)

  /// In words, for an error message.
  var words: String {
    switch self {
    case .notSealed: "it is not a sealed object (no 'dps1' header)"
    case .segmentRefused(let index):
      "segment \(index) does not authenticate (changed, cut short, or sealed with another key)"
    }
  }
}

/// The constants and the per-segment work of the sealed object format.
package enum SealedFormat {
  /// The format's mark, the first four bytes of every sealed body.
  static let mark: [UInt8] = Array("dps1".utf8)
  /// The seed's length.
  static let seedSize = 24
  /// The header's length: the mark and the seed.
  static let headerSize = mark.count + seedSize
  /// Plaintext bytes per segment.
  package static let segmentSize = 64 << 10
  /// The AEAD tag's length.
  static let tagSize = 16
  /// A full segment as stored.
  static let sealedSegmentSize = segmentSize + tagSize

  /// The size of the sealed body of `plainSize` plaintext bytes.
  package static func sealedSize(plainSize: Int64) -> Int64 {
    let segments = max(1, (plainSize + Int64(segmentSize) - 1) / Int64(segmentSize))
    return Int64(headerSize) + plainSize + segments * Int64(tagSize)
  }

  /// The header of a body sealed with `seed`.
  static func header(seed: [UInt8]) -> [UInt8] { mark + seed }

  /// The key of the segments of an object of `kind` whose header holds `seed`.
  static func segmentKey(dataKey: SymmetricKey, kind: SealedKind, seed: some Sequence<UInt8>) -> SymmetricKey {
    var message = Array("docpkg-sync segment key \(kind.rawValue) ".utf8)
    message += seed
    return SymmetricKey(data: HMAC<Crypto.SHA256>.authenticationCode(for: message, using: dataKey))
  }

  /// The nonce of segment `index`; `last` for the object's last segment.
  static func nonce(index: UInt64, last: Bool) -> ChaChaPoly.Nonce {
    var bytes = [UInt8](repeating: 0, count: 12)
    for position in 0..<8 { bytes[3 + position] = UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64(position))) }
    bytes[11] = last ? 1 : 0
    // A 12-byte nonce is always valid.
    return try! ChaChaPoly.Nonce(data: bytes)
  }

  /// Segment `index` sealed: its ciphertext, then its tag.
  static func sealSegment(
    _ plain: some DataProtocol, key: SymmetricKey, index: UInt64, last: Bool
  ) -> [UInt8] {
    // Sealing fails only for a malformed key or nonce, which these are not.
    let box = try! ChaChaPoly.seal(plain, using: key, nonce: nonce(index: index, last: last))
    var sealed = [UInt8]()
    sealed.reserveCapacity(plain.count + tagSize)
    sealed += box.ciphertext
    sealed += box.tag
    return sealed
  }

  /// The plaintext of sealed segment `index` (ciphertext then tag).
  /// - Throws: ``SealedFormatError/segmentRefused(index:)`` if it does not authenticate.
  static func openSegment(
    _ sealed: ArraySlice<UInt8>, key: SymmetricKey, index: UInt64, last: Bool
  ) throws(SealedFormatError) -> [UInt8] {
    guard sealed.count >= tagSize,
      let box = try? ChaChaPoly.SealedBox(
        nonce: nonce(index: index, last: last), ciphertext: sealed.dropLast(tagSize), tag: sealed.suffix(tagSize)),
      let plain = try? ChaChaPoly.open(box, using: key)
    else { throw .segmentRefused(index: Int(index)) }
    return Array(plain)
  }
}

/// Seals a body as it is read, one segment at a time (memory bounded by a segment).
package struct SegmentSealer {
  private let key: SymmetricKey
  private var pending: [UInt8] = []
  private var index: UInt64 = 0
  private var finished = false
  /// The header, to be written before the first segment.
  package let header: [UInt8]

  /// A sealer of an object of `kind` with `seed` (24 bytes) under `dataKey`.
  package init(dataKey: SymmetricKey, kind: SealedKind, seed: [UInt8]) {
    precondition(seed.count == SealedFormat.seedSize)
    key = SealedFormat.segmentKey(dataKey: dataKey, kind: kind, seed: seed)
    header = SealedFormat.header(seed: seed)
  }

  /// Takes `plain` and returns the segments it completed (possibly none).
  package mutating func update(_ plain: some Sequence<UInt8>) -> [UInt8] {
    precondition(!finished)
    pending += plain
    var sealed: [UInt8] = []
    var start = 0
    // A full segment is sealed only once a byte after it arrived: until then it may be the last one.
    while pending.count - start > SealedFormat.segmentSize {
      let end = start + SealedFormat.segmentSize
      sealed += SealedFormat.sealSegment(pending[start..<end], key: key, index: index, last: false)
      index += 1
      start = end
    }
    pending.removeFirst(start)
    return sealed
  }

  /// The last segment (whatever is pending, possibly nothing).
  package mutating func finish() -> [UInt8] {
    precondition(!finished)
    finished = true
    return SealedFormat.sealSegment(pending, key: key, index: index, last: true)
  }
}

/// Opens a sealed body as it arrives, one segment at a time (memory bounded by a segment).
package struct SegmentOpener {
  private let dataKey: SymmetricKey
  private let kind: SealedKind
  private var key: SymmetricKey?
  private var pending: [UInt8] = []
  private var index: UInt64 = 0

  /// An opener of an object of `kind` under `dataKey`.
  package init(dataKey: SymmetricKey, kind: SealedKind) {
    self.dataKey = dataKey
    self.kind = kind
  }

  /// Takes `sealed` bytes and returns the plaintext of the segments they completed (possibly none).
  /// - Throws: ``SealedFormatError`` if the header or a segment is refused.
  package mutating func update(_ sealed: some Sequence<UInt8>) throws(SealedFormatError) -> [UInt8] {
    pending += sealed
    if key == nil {
      guard pending.count >= SealedFormat.headerSize else { return [] }
      guard pending.prefix(SealedFormat.mark.count).elementsEqual(SealedFormat.mark) else { throw .notSealed }
      key = SealedFormat.segmentKey(
        dataKey: dataKey, kind: kind, seed: pending[SealedFormat.mark.count..<SealedFormat.headerSize])
      pending.removeFirst(SealedFormat.headerSize)
    }
    guard let key else { return [] }
    var plain: [UInt8] = []
    var start = 0
    while pending.count - start > SealedFormat.sealedSegmentSize {
      let end = start + SealedFormat.sealedSegmentSize
      plain += try SealedFormat.openSegment(pending[start..<end], key: key, index: index, last: false)
      index += 1
      start = end
    }
    pending.removeFirst(start)
    return plain
  }

  /// The plaintext of the last segment, once every byte was given.
  /// - Throws: ``SealedFormatError`` if the body ends early (no header, or what is left does not authenticate as
  ///   the last segment: cut short, or bytes were added after it).
  package mutating func finish() throws(SealedFormatError) -> [UInt8] {
    guard let key else { throw .notSealed }
    return try SealedFormat.openSegment(pending[...], key: key, index: index, last: true)
  }
}
