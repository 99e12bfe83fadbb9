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
  switch selector % 4 {
  case 0: SyncFuzz.serverAnswer(rest)
  case 1: SyncFuzz.head(rest)
  case 2: SyncFuzz.credentials(rest)
  default: SyncFuzz.remotes(rest)
  }
  return 0
}

/// What sync reads from the object store and from the user's configuration: an S3 answer (XML), the remote's
/// head object, an AWS credentials or config file, the package's list of remotes.
enum SyncFuzz {
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
