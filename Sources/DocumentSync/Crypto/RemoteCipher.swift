import Crypto
import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keys of an encrypted remote, derived from its master key, and what they do: object names a server cannot
/// link to a known file, and sealed bodies (``SealedFormat``).
///
/// Three keys come from the master key, each an HMAC-SHA256 of a label under it: the name key (an object's name is
/// the HMAC of its plain SHA-256 under it, so that the same bytes get the same name on every device and push, and
/// only holders of the key can compute it), the data key (the segments' keys) and the seed key (the seeds of
/// content-addressed objects).
package final class RemoteCipher: Sendable {
  private let nameKey: SymmetricKey
  private let dataKey: SymmetricKey
  private let seedKey: SymmetricKey

  /// The keys derived from `masterKey` (32 bytes).
  package init(masterKey: SymmetricKey) {
    func derive(_ label: String) -> SymmetricKey {
      SymmetricKey(data: HMAC<Crypto.SHA256>.authenticationCode(for: Array(label.utf8), using: masterKey))
    }
    nameKey = derive("docpkg-sync name key")
    dataKey = derive("docpkg-sync data key")
    seedKey = derive("docpkg-sync seed key")
  }

  /// The keys derived from the master key `bytes` (32 bytes), for callers that do not import Crypto.
  package convenience init(masterKeyBytes bytes: [UInt8]) {
    self.init(masterKey: SymmetricKey(data: bytes))
  }

  /// The name on the remote of the object whose plain SHA-256 is `hash`: 64 hex digits.
  package func name(_ hash: String) -> String {
    ContentHash.hex(HMAC<Crypto.SHA256>.authenticationCode(for: Array(hash.utf8), using: nameKey))
  }

  /// The seed of a body: derived from the plaintext's hash for a content-addressed object (the same bytes are
  /// sealed alike), random for the others.
  private func seed(kind: SealedKind, contentHash: String?) -> [UInt8] {
    guard let contentHash else {
      var generator = SystemRandomNumberGenerator()
      return (0..<SealedFormat.seedSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
    let code = HMAC<Crypto.SHA256>.authenticationCode(
      for: Array("\(kind.rawValue) \(contentHash)".utf8), using: seedKey)
    return Array(Array(code).prefix(SealedFormat.seedSize))
  }

  /// A sealer of an object of `kind`; `contentHash` (its plain SHA-256) for a blob or a tree.
  package func sealer(kind: SealedKind, contentHash: String?) -> SegmentSealer {
    SegmentSealer(dataKey: dataKey, kind: kind, seed: seed(kind: kind, contentHash: contentHash))
  }

  /// An opener of an object of `kind`.
  package func opener(kind: SealedKind) -> SegmentOpener { SegmentOpener(dataKey: dataKey, kind: kind) }

  /// `plain` sealed as an object of `kind`; `contentHash` (its plain SHA-256) for a blob or a tree.
  package func seal(_ plain: Data, kind: SealedKind, contentHash: String? = nil) -> Data {
    var sealer = sealer(kind: kind, contentHash: contentHash)
    var body = Data(sealer.header)
    body.append(contentsOf: sealer.update(plain))
    body.append(contentsOf: sealer.finish())
    return body
  }

  /// The plaintext of `sealed`, an object of `kind` fetched from `key`.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if it does not open.
  package func open(_ sealed: Data, kind: SealedKind, key: String) throws -> Data {
    var opener = opener(kind: kind)
    do throws(SealedFormatError) {
      var plain = try opener.update(sealed)
      plain += try opener.finish()
      return Data(plain)
    } catch {
      throw Self.refused(error, key: key)
    }
  }

  /// The error for a body that does not open.
  static func refused(_ error: SealedFormatError, key: String) -> SyncError {
    SyncError(.corrupt, "refused a tampered or foreign object: \(error.words);", key: key)
  }
}
