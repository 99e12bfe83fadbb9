import Crypto
import DocumentSync
import Foundation
import Testing

/// The sealed object format of encrypted remotes against known answers computed independently (Python's
/// `cryptography`: HMAC-SHA256, ChaCha20-Poly1305, scrypt), and its refusals. No server needed.
@Suite struct SealedFormatTests {
  /// The master key of every known answer: the bytes 0 to 31.
  static let cipher = RemoteCipher(masterKey: SymmetricKey(data: Array(UInt8(0)..<32)))

  static func sha256(_ data: some DataProtocol) -> String {
    Crypto.SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
  }

  static func bytes(hex: String) -> Data {
    var data = Data()
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      data.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return data
  }

  /// 2 segments and 10 bytes: `i * 7 % 251` for each byte index i.
  static let big: Data = {
    let count: Int = 2 * 65_536 + 10
    return Data((0..<count).map { (index: Int) -> UInt8 in UInt8(index * 7 % 251) })
  }()

  @Test func objectNamesAreKeyedHashes() {
    let hash = Self.sha256(Data("hello\n".utf8))
    #expect(hash == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03")
    #expect(Self.cipher.name(hash) == "d38d1c7436b6ac3ac59ece06780f47a9e2d686d6302e6a141fc620bd974d26ff")
  }

  @Test func contentAddressedBodiesMatchKnownAnswers() throws {
    let hello = Data("hello\n".utf8)
    let tree = Self.cipher.seal(hello, kind: .tree, contentHash: Self.sha256(hello))
    #expect(
      tree
        == Self.bytes(
          hex:
            "64707331d5d8d5443cbf5e280caa30be46185a543d1e91e1954f3ecae3e4f556b92e62666d6bb8170261bf9abb49a0051b67"))
    let empty = Self.cipher.seal(Data(), kind: .blob, contentHash: Self.sha256(Data()))
    #expect(
      empty
        == Self.bytes(
          hex: "647073316f7351b786c12957ea146c680ae5ad3ce6c411cd337e392d8188a84870d8344645a5cadc0f5ff2d4"))
    let big = Self.cipher.seal(Self.big, kind: .blob, contentHash: Self.sha256(Self.big))
    #expect(big.count == 131_158)
    #expect(Int64(big.count) == SealedFormat.sealedSize(plainSize: Int64(Self.big.count)))
    #expect(Self.sha256(big) == "7ac43cd8d178cbe2c0e83b5339543ff8fb50e15e50122de20e8b60f99ffbda15")
    // Exactly one segment: one full last segment, no empty one after it.
    let exact = Data((0..<65536).map { UInt8($0 % 256) })
    let sealedExact = Self.cipher.seal(exact, kind: .blob, contentHash: Self.sha256(exact))
    #expect(sealedExact.count == 65_580)
    #expect(Self.sha256(sealedExact) == "501bae03c68eb187043286fbbc99228bcbe47be06ea7c11fa81c162995bfcd43")
    #expect(try Self.cipher.open(big, kind: .blob, key: "b") == Self.big)
    #expect(try Self.cipher.open(sealedExact, kind: .blob, key: "b") == exact)
    #expect(try Self.cipher.open(empty, kind: .blob, key: "b") == Data())
  }

  @Test func otherBodiesTakeARandomSeed() throws {
    let head = Data("docpkg-sync-head 2\n".utf8)
    let one = Self.cipher.seal(head, kind: .head)
    let two = Self.cipher.seal(head, kind: .head)
    #expect(one != two)
    #expect(try Self.cipher.open(one, kind: .head, key: "head") == head)
    #expect(try Self.cipher.open(two, kind: .head, key: "head") == head)
    // A known answer with the seed 24 × 0x09.
    let known = Self.bytes(
      hex:
        "647073310909090909090909090909090909090909090909090909094b863087e60f53ffec62092dd548a207f131e4523cc1c7f27ec9fb7576ed1f59fac92d"
    )
    #expect(try Self.cipher.open(known, kind: .head, key: "head") == head)
  }

  @Test func streamingInPiecesOpensTheSame() throws {
    let sealed = Self.cipher.seal(Self.big, kind: .blob, contentHash: Self.sha256(Self.big))
    for piece in [1, 1000, 65_552, 65_553, 200_000] {
      var opener = Self.cipher.opener(kind: .blob)
      var plain: [UInt8] = []
      var start = 0
      while start < sealed.count {
        let end = min(sealed.count, start + piece)
        plain += try opener.update(sealed[start..<end])
        start = end
      }
      plain += try opener.finish()
      #expect(Data(plain) == Self.big, "pieces of \(piece) bytes")
    }
  }

  /// Every change an untrusted server could make is refused, naming the key.
  @Test func changedBodiesAreRefused() throws {
    let sealed = Self.cipher.seal(Self.big, kind: .blob, contentHash: Self.sha256(Self.big))
    var variants: [(String, Data)] = []
    for offset in [0, 4, 27, 28, 100, 65_580, 131_157] {
      var flipped = sealed
      flipped[offset] ^= 0x01
      variants.append(("byte \(offset) flipped", flipped))
    }
    variants.append(("last segment dropped", Data(sealed.prefix(28 + 131_104))))
    variants.append(("last byte dropped", Data(sealed.dropLast())))
    variants.append(("a byte appended", sealed + Data([0])))
    variants.append(("header only", Data(sealed.prefix(28))))
    variants.append(("empty", Data()))
    let segment: Int = 65_552
    let first: Int = 28
    let second: Int = first + segment
    let third: Int = second + segment
    var swapped = Data(sealed.prefix(first))
    swapped.append(sealed[second..<third])
    swapped.append(sealed[first..<second])
    swapped.append(sealed[third...])
    variants.append(("segments swapped", swapped))
    for (change, body) in variants {
      let error = #expect(throws: SyncError.self, "\(change)") {
        try Self.cipher.open(body, kind: .blob, key: "bucket/blobs/x")
      }
      #expect(error?.code == .corrupt, "\(change)")
      #expect(error?.key == "bucket/blobs/x", "\(change)")
    }
    // Another kind, another key: a tree's bytes do not open as a head.
    let tree = Self.cipher.seal(Data("x".utf8), kind: .tree, contentHash: "x")
    #expect(throws: SyncError.self) { try Self.cipher.open(tree, kind: .head, key: "head") }
    // Another master key.
    let other = RemoteCipher(masterKey: SymmetricKey(data: [UInt8](repeating: 1, count: 32)))
    #expect(throws: SyncError.self) { try other.open(sealed, kind: .blob, key: "b") }
  }

  /// Key parameters written by another implementation (Python, scrypt N = 2^10) open with the passphrase.
  static let parameters = Data(
    #"{"format": 1, "kdf": "scrypt", "logN": 10, "p": 1, "r": 8, "salt": "AAECAwQFBgcICQoLDA0ODw==", "sealedKey": "BwcHBwcHBwcHBwcHGtYgLlxbXA11jc24HMtfCx01jhkZV3MKRkcdWjjJDwHtBF1V4h7AzlOHesQgNMZx"}"#
      .utf8)

  @Test func keyParametersOpenWithThePassphraseOnly() throws {
    let parameters = try RemoteKeyParameters(decoding: Self.parameters, key: "p/key")
    let master = try parameters.masterKey(passphrase: "correct horse battery staple", key: "p/key")
    #expect(master.withUnsafeBytes { Array($0) } == Array(0..<32))
    let error = #expect(throws: SyncError.self) {
      try parameters.masterKey(passphrase: "correct horse battery stapler", key: "p/key")
    }
    #expect(error?.code == .passphrase)
    #expect(error?.description.contains("wrong passphrase") == true)
  }

  /// A key object whose scrypt costs were raised on the server (by an attacker, or a newer client) does not open
  /// with the right passphrase: said as such, with the costs, not as a wrong passphrase alone.
  @Test func raisedCostsAreSaidAsSuch() throws {
    let raised = try RemoteKeyParameters(
      decoding: Data(
        String(decoding: Self.parameters, as: UTF8.self).replacing(#""logN": 10"#, with: #""logN": 11"#).utf8),
      key: "p/key")
    let error = #expect(throws: SyncError.self) {
      try raised.masterKey(passphrase: "correct horse battery staple", key: "p/key")
    }
    #expect(error?.code == .passphrase)
    #expect(
      error?.description
        == "the encrypted remote's key does not open: a wrong passphrase, or key parameters changed on the server (their scrypt costs N=2^11, r=8, p=1 are not the N=2^15, r=8, p=1 this release writes; a newer client's change of passphrase may have raised them): 'p/key'"
    )
    // Costs beyond what a device gives are refused before deriving anything, naming them and the bounds.
    let beyond = String(decoding: Self.parameters, as: UTF8.self).replacing(#""logN": 10"#, with: #""logN": 24"#)
    let refused = #expect(throws: SyncError.self) {
      try RemoteKeyParameters(decoding: Data(beyond.utf8), key: "p/key")
    }
    #expect(refused?.code == .corrupt)
    #expect(
      refused?.description
        == "the key parameters ask for scrypt costs N=2^24, r=8, p=1, outside what this release accepts (N from 2^10 to 2^20, r from 1 to 16, p from 1 to 4, at most 1024 MiB): raised on the server, or written by a newer client; nothing was derived: 'p/key'"
    )
  }

  @Test func newKeyParametersRoundTrip() throws {
    let (parameters, master) = try RemoteKeyParameters.make(passphrase: "pass")
    let read = try RemoteKeyParameters(decoding: parameters.encoded(), key: "k")
    let opened = try read.masterKey(passphrase: "pass", key: "k")
    #expect(opened.withUnsafeBytes { Array($0) } == master.withUnsafeBytes { Array($0) })
    #expect(throws: SyncError.self) { try read.masterKey(passphrase: "Pass", key: "k") }
  }

  @Test(arguments: [
    #"{"format": 1, "kdf": "scrypt", "logN": 30, "p": 1, "r": 8, "salt": "AAECAwQFBgcICQoLDA0ODw==", "sealedKey": ""}"#,
    #"{"format": 2, "kdf": "scrypt", "logN": 15, "p": 1, "r": 8, "salt": "AAECAwQFBgcICQoLDA0ODw==", "sealedKey": ""}"#,
    #"{"format": 1, "kdf": "argon2", "logN": 15, "p": 1, "r": 8, "salt": "AAECAwQFBgcICQoLDA0ODw==", "sealedKey": ""}"#,
    "not json",
  ])
  func foreignKeyParametersAreRefused(_ text: String) {
    let error = #expect(throws: SyncError.self) { try RemoteKeyParameters(decoding: Data(text.utf8), key: "k") }
    #expect(error?.code == .corrupt)
  }
}
