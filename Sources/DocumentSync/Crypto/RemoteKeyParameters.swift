import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key-parameters object of an encrypted remote (`key` under its prefix): not secret. It holds how a
/// passphrase becomes the key-encryption key (scrypt, its salt and costs) and the remote's master key sealed with
/// that key, so that a wrong passphrase is known at once (the master key does not open) and every device that knows
/// the passphrase gets the same master key. The passphrase and the keys are never written to the server.
///
/// JSON: `{"format": 1, "kdf": "scrypt", "logN": 15, "r": 8, "p": 1, "salt": BASE64, "sealedKey": BASE64}`;
/// `sealedKey` is a 12-byte nonce, the 32-byte master key encrypted with ChaCha20-Poly1305, and its 16-byte tag.
package struct RemoteKeyParameters: Codable, Sendable, Hashable {
  /// The object's format.
  var format = 1
  /// The key derivation: always `scrypt`.
  var kdf = "scrypt"
  /// scrypt's cost N as a power of two.
  var logN: Int
  /// scrypt's block size r.
  var r: Int
  /// scrypt's parallelism p.
  var p: Int
  /// The salt, 16 random bytes.
  var salt: Data
  /// The master key sealed with the passphrase's key.
  var sealedKey: Data

  /// The costs of new remotes: N = 2^15, r = 8 (32 MiB of memory, about 0.1 s on a laptop), as restic's
  /// defaults; p = 1.
  package static let defaultCosts = (logN: 15, r: 8, p: 1)
  /// The name of the object under the remote's prefix.
  package static let objectName = "key"
  /// The key of the object under `location`'s prefix: what every reader and writer of it names.
  package static func key(in location: S3Location) -> String { location.key(objectName) }
  /// Authenticated with the sealed master key: what it is.
  private static let label = Array("docpkg-sync master key 1".utf8)

  private init(logN: Int, r: Int, p: Int, salt: Data, sealedKey: Data) {
    (self.logN, self.r, self.p, self.salt, self.sealedKey) = (logN, r, p, salt, sealedKey)
  }

  /// New parameters for a new master key, sealed with `passphrase`.
  /// - Returns: The parameters and the master key.
  package static func make(passphrase: String) throws -> (RemoteKeyParameters, SymmetricKey) {
    let master = SymmetricKey(size: .bits256)
    return (try make(passphrase: passphrase, masterKey: master), master)
  }

  /// New parameters (a new salt, today's costs) for `master`, sealed with `passphrase`: a change of passphrase.
  package static func make(passphrase: String, masterKey master: SymmetricKey) throws -> RemoteKeyParameters {
    let salt = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
    var parameters = RemoteKeyParameters(
      logN: defaultCosts.logN, r: defaultCosts.r, p: defaultCosts.p, salt: salt, sealedKey: Data())
    let box = try ChaChaPoly.seal(
      master.withUnsafeBytes { Array($0) }, using: try parameters.passphraseKey(passphrase), authenticating: label)
    parameters.sealedKey = box.combined
    return parameters
  }

  /// The scrypt costs a device accepts: N from 2^10 to 2^20, r from 1 to 16, p from 1 to 4, and at most 1 GiB of
  /// memory (128 × r × N bytes). A server could ask for any cost; more than this is refused before deriving anything.
  package static let acceptedCosts = (logN: 10...20, r: 1...16, p: 1...4, memory: 1 << 30)

  /// Reads the object's bytes.
  /// - Throws: ``SyncError`` with code `corrupt` naming `key` if they are not key parameters this release reads:
  ///   not JSON of this shape, another format or key derivation, or scrypt costs outside ``acceptedCosts``.
  package init(decoding data: Data, key: String) throws {
    guard let parameters = try? JSONDecoder().decode(Self.self, from: data) else {
      throw SyncError(.corrupt, "malformed key-parameters object", key: key)
    }
    guard parameters.format == 1, parameters.kdf == "scrypt" else {
      throw SyncError(
        .corrupt,
        "the key parameters are format \(parameters.format) with \(parameters.kdf), not format 1 with scrypt (written by a newer client?):",
        key: key)
    }
    let accepted = Self.acceptedCosts
    guard accepted.logN.contains(parameters.logN), accepted.r.contains(parameters.r), accepted.p.contains(parameters.p),
      128 * parameters.r << parameters.logN <= accepted.memory
    else {
      throw SyncError(
        .corrupt,
        "the key parameters ask for scrypt costs \(parameters.costs), outside what this release accepts (N from 2^\(accepted.logN.lowerBound) to 2^\(accepted.logN.upperBound), r from \(accepted.r.lowerBound) to \(accepted.r.upperBound), p from \(accepted.p.lowerBound) to \(accepted.p.upperBound), at most \(accepted.memory >> 20) MiB): raised on the server, or written by a newer client; nothing was derived:",
        key: key)
    }
    guard parameters.salt.count >= 16 else {
      throw SyncError(.corrupt, "the key parameters' salt is shorter than 16 bytes:", key: key)
    }
    self = parameters
  }

  /// The costs as said in messages: `N=2^15, r=8, p=1`.
  var costs: String { "N=2^\(logN), r=\(r), p=\(p)" }

  /// The object's bytes.
  package func encoded() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // Encoding integers, strings and data cannot fail.
    return try! encoder.encode(self)
  }

  /// The master key, opened with `passphrase`.
  /// - Throws: ``SyncError`` with code `passphrase` naming `key` if the passphrase is not this remote's.
  package func masterKey(passphrase: String, key: String) throws -> SymmetricKey {
    guard let box = try? ChaChaPoly.SealedBox(combined: sealedKey),
      let master = try? ChaChaPoly.open(box, using: try passphraseKey(passphrase), authenticating: Self.label),
      master.count == 32
    else {
      let defaults = Self.defaultCosts
      guard (logN, r, p) == (defaults.logN, defaults.r, defaults.p) else {
        // Changed costs derive another key: the passphrase may be right, and the parameters changed on the server.
        let written = RemoteKeyParameters(
          logN: defaults.logN, r: defaults.r, p: defaults.p, salt: Data(), sealedKey: Data()
        ).costs
        throw SyncError(
          .passphrase,
          "the encrypted remote's key does not open: a wrong passphrase, or key parameters changed on the server (their scrypt costs \(costs) are not the \(written) this release writes; a newer client's change of passphrase may have raised them):",
          key: key)
      }
      throw SyncError(.passphrase, "wrong passphrase for the encrypted remote (its key does not open):", key: key)
    }
    return SymmetricKey(data: master)
  }

  /// The key-encryption key scrypt derives from `passphrase` with these parameters.
  private func passphraseKey(_ passphrase: String) throws -> SymmetricKey {
    try KDF.Scrypt.deriveKey(
      from: Array(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r, parallelism: p)
  }
}
