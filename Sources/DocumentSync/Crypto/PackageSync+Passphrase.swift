import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A change of an encrypted remote's passphrase, as restic's `key passwd`: the master key stays (no object is
// sealed again), and the key-parameters object is rewritten with a new salt and the master key sealed with the new
// passphrase's key — conditionally on the object read, so that of two devices changing it at once one is told.

extension PackageSync {
  /// Makes `newPassphrase` the one that opens this encrypted remote, in place of the current one (given as for any
  /// operation: `DOCPKG_SYNC_PASSPHRASE`). Every device needs the new passphrase from its next operation on; nothing
  /// else on the remote changes.
  /// - Throws: ``SyncError`` with code `remote` for a remote that is not encrypted, `invalidArgument` for an empty
  ///   passphrase, `passphrase` if the current one is missing or wrong, `preconditionFailed` when the key object
  ///   changed since it was read (another device changed the passphrase: nothing was written), `corrupt` if it is
  ///   missing or malformed; the client's errors.
  public func changePassphrase(to newPassphrase: String) async throws {
    let key = keyParametersKey
    guard remote.encrypted == true else {
      throw SyncError(.remote, "the remote is not encrypted: it has no passphrase;", key: remote.name)
    }
    guard !newPassphrase.isEmpty else { throw SyncError(.invalidArgument, "the new passphrase is empty;", key: key) }
    guard let passphrase else { throw Self.missingPassphrase(key: key) }
    let data: Data
    let etag: String
    do { (data, etag) = try await client.get(key, limit: 1 << 14) } catch let error as SyncError
      where error.code == .noSuchKey
    {
      throw SyncError(
        .corrupt, "the encrypted remote has no key-parameters object (deleted on the server?):", key: key)
    }
    let parameters = try RemoteKeyParameters(decoding: data, key: key)
    // scrypt twice: off the cooperative pool.
    let resealed = try await BlockingIO.run {
      let master = try parameters.masterKey(passphrase: passphrase, key: key)
      return try RemoteKeyParameters.make(passphrase: newPassphrase, masterKey: master)
    }
    do { _ = try await client.put(key, data: resealed.encoded(), condition: .matches(etag)) } catch let error
      as SyncError where error.code == .preconditionFailed
    {
      throw SyncError(
        .preconditionFailed,
        "the remote's key parameters changed since they were read (another device changed the passphrase?); nothing was written:",
        key: key)
    }
  }
}
