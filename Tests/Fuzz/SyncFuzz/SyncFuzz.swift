import FuzzSupport

@testable import DocumentSync

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libFuzzer's entry: the first byte picks the reader, the rest is what it reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSync(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = FuzzInput.bytes(data, size)
  guard let selector = bytes.first else { return 0 }
  let rest = Data(bytes.dropFirst())
  switch (0xF0...0xF2).contains(selector) ? selector : selector % 4 {
  case 0xF0: SyncFuzz.sealedBody(rest)
  case 0xF1: SyncFuzz.keyParameters(rest)
  case 0xF2: SyncFuzz.pins(rest)
  case 0: SyncFuzz.serverAnswer(rest)
  case 1: SyncFuzz.head(rest)
  case 2: SyncFuzz.credentials(rest)
  default: SyncFuzz.remotes(rest)
  }
  return 0
}

/// What sync reads from the object store and from the user's configuration: an S3 answer (XML), the remote's
/// head object, a device's pins, an AWS credentials or config file, the package's list of remotes; and an encrypted
/// remote's sealed object bodies and key-parameters object.
enum SyncFuzz {
  /// The keys of the sealed bodies: the master key of SealedFormatTests' known answers (bytes 0 to 31).
  static let cipher = RemoteCipher(masterKeyBytes: Array(0..<32))

  /// A sealed body, opened as each kind whole and in pieces (the sizes taken from the input): both ways give the
  /// same plaintext or both refuse it; and the input as a plaintext, sealed, opens to itself.
  static func sealedBody(_ data: Data) {
    let piece = 1 + Int(data.first ?? 0) * 263
    for kind in SealedKind.allCases {
      let whole = try? cipher.open(data, kind: kind, key: "k")
      var opener = cipher.opener(kind: kind)
      var streamed: [UInt8]? = []
      var start = data.startIndex
      while start < data.endIndex, streamed != nil {
        let end = min(data.endIndex, start + piece)
        do { streamed! += try opener.update(data[start..<end]) } catch { streamed = nil }
        start = end
      }
      if streamed != nil {
        do { streamed! += try opener.finish() } catch { streamed = nil }
      }
      if whole.map({ Array($0) }) != streamed {
        fuzzFailure("a \(kind) body opens otherwise in pieces of \(piece) bytes: \(Array(data))")
      }
    }
    let sealed = cipher.seal(data, kind: .blob, contentHash: "x")
    guard (try? cipher.open(sealed, kind: .blob, key: "k")) == data else {
      fuzzFailure("\(Array(data)), sealed, does not open to itself")
    }
  }

  /// A key-parameters object: what reads, written again, reads the same (scrypt is not run: its cost is bounded by
  /// the reader, and a run would take the fuzzer's time).
  static func keyParameters(_ data: Data) {
    guard let parameters = try? RemoteKeyParameters(decoding: data, key: "key") else { return }
    guard let again = try? RemoteKeyParameters(decoding: parameters.encoded(), key: "key"), again == parameters else {
      fuzzFailure("key parameters read from \(Array(data)) change when written and read again")
    }
  }

  /// An S3 answer, read as the client reads each kind (a listing page, an error, a multipart answer); and any
  /// text, escaped for a request body, decodes back to itself.
  static func serverAnswer(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    let whole = Substring(text)
    for block in XMLText.blocks("Contents", in: whole) {
      _ = (XMLText.value("Key", in: block), XMLText.value("Size", in: block), XMLText.value("ETag", in: block))
    }
    _ = (XMLText.value("IsTruncated", in: whole), XMLText.value("NextContinuationToken", in: whole))
    _ = XMLText.value("Code", in: XMLText.blocks("Error", in: whole).first ?? "")
    _ = (XMLText.value("Message", in: whole), XMLText.value("UploadId", in: whole))
    let escaped = XMLText.escape(text)
    if XMLText.decode(Substring(escaped)) != text {
      fuzzFailure("the text \(text.debugDescription), escaped as \(escaped.debugDescription), decodes otherwise")
    }
  }

  /// A head object: what reads, written again, reads as the same head.
  static func head(_ data: Data) {
    guard let head = try? RemoteHead(decoding: data, key: "head") else { return }
    let written = head.encoded()
    guard let again = try? RemoteHead(decoding: written, key: "head") else {
      fuzzFailure("a head read from \(Array(data)) is written as \(Array(written)), which does not read")
    }
    if again.tree != head.tree || again.parent != head.parent || again.encoded() != written {
      fuzzFailure("a head changes when written and read again: \(Array(data))")
    }
  }

  /// A device's pin object (`pins/DEVICE`): what reads, written again, reads as the same pins.
  static func pins(_ data: Data) {
    guard let pins = RemotePins(data: data) else { return }
    guard RemotePins(data: pins.encoded()) == pins else {
      fuzzFailure("pins read from \(Array(data)) change when written and read again")
    }
  }

  /// `~/.aws/credentials` and `~/.aws/config`: the default profile and a named one.
  static func credentials(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    _ = S3Credentials.parseProfile(text, profile: "default")
    _ = S3Credentials.configRegion(text, profile: "work")
  }

  /// The sync folder's `remotes.json`: what reads, written again, reads as the same remotes.
  static func remotes(_ data: Data) {
    guard let remotes = try? JSONDecoder().decode([Remote].self, from: data) else { return }
    guard let written = try? JSONEncoder().encode(remotes),
      let again = try? JSONDecoder().decode([Remote].self, from: written)
    else { fuzzFailure("remotes read from \(Array(data)) cannot be written and read again") }
    if again != remotes { fuzzFailure("remotes change when written and read again: \(Array(data))") }
  }
}
