import Foundation
import Testing

@testable import DocumentPackage

/// SHA-256 and HMAC-SHA256 from the system's library give the published answers: FIPS 180-4's examples
/// (NIST CSRC, "SHA256.pdf" and the long message of the Secure Hash Standard validation system) and
/// RFC 4231's HMAC test cases.
@Suite("SHA-256")
struct SHA256Tests {
  static let vectors: [(message: String, digest: String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ]

  @Test("the FIPS 180-4 examples", arguments: 0..<4)
  func examples(_ index: Int) {
    let vector = Self.vectors[index]
    #expect(ContentHash.hex(SHA256.hash(data: Array(vector.message.utf8))) == vector.digest)
  }

  @Test("a million 'a's, fed in uneven pieces, and a copy of a hasher part way is independent of it")
  func millionAs() {
    let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    var hasher = SHA256()
    var position = 0
    var size = 1
    var copy: SHA256?
    while position < bytes.count {
      let end = min(bytes.count, position + size)
      bytes[position..<end].withUnsafeBytes { hasher.update(bufferPointer: $0) }
      position = end
      size = size * 3 % 7919 + 1
      if copy == nil, position > 500_000 { copy = hasher }
    }
    #expect(ContentHash.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    // finalize leaves the hasher as it was; the copy went on from where it was taken.
    #expect(hasher.finalize() == hasher.finalize())
    #expect(copy!.finalize() != hasher.finalize())
  }

  @Test("HMAC-SHA256: RFC 4231 test cases 1 and 2")
  func hmac() {
    let one = HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))
    #expect(ContentHash.hex(one) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    let two = HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
    #expect(ContentHash.hex(two) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }
}
