#if canImport(CryptoKit)
import CryptoKit
#else
import CLibCrypto
#endif

/// SHA-256 (FIPS 180-4), incremental, with value semantics: the system's own implementation (libcrypto on
/// Linux, CryptoKit on Apple platforms), so that DocumentPackage compiles no cryptographic library of its own.
///
///     var hasher = SHA256()
///     hasher.update(bufferPointer: chunk)
///     let digest = hasher.finalize()     // 32 bytes; `SHA256.hash(data:)` in one call
///
/// The one place the library's hashes are computed: version blobs, the hash cache, diffs, and DocumentSync's
/// object keys and request signatures (with ``HMACSHA256``).
package struct SHA256 {
  /// A finished hash: 32 bytes.
  package struct Digest: Sequence, Equatable, Sendable {
    package let bytes: [UInt8]
    package func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
  }

  #if canImport(CryptoKit)
  private var state = CryptoKit.SHA256()

  package init() {}

  package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) { state.update(bufferPointer: bytes) }

  package func finalize() -> Digest { Digest(bytes: Array(state.finalize())) }
  #else
  private var context: Context

  package init() { context = Context() }

  /// Adds `bytes` to what is hashed.
  package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
    if !isKnownUniquelyReferenced(&context) { context = context.copy() }
    guard let base = bytes.baseAddress else { return }
    _ = EVP_DigestUpdate(context.pointer, base, bytes.count)
  }

  /// The hash of everything added so far; the hasher stays as it is.
  package func finalize() -> Digest {
    let finished = context.copy()
    var bytes = [UInt8](repeating: 0, count: 32)
    var count: UInt32 = 0
    _ = EVP_DigestFinal_ex(finished.pointer, &bytes, &count)
    return Digest(bytes: bytes)
  }

  /// One libcrypto digest context, freed with its last hasher.
  private final class Context {
    let pointer: OpaquePointer

    init() {
      pointer = EVP_MD_CTX_new()
      _ = EVP_DigestInit_ex(pointer, EVP_sha256(), nil)
    }

    private init(copying other: Context) {
      pointer = EVP_MD_CTX_new()
      _ = EVP_MD_CTX_copy_ex(pointer, other.pointer)
    }

    func copy() -> Context { Context(copying: self) }

    deinit { EVP_MD_CTX_free(pointer) }
  }
  #endif

  /// Adds `bytes` to what is hashed.
  package mutating func update<Bytes: Sequence>(data bytes: Bytes) where Bytes.Element == UInt8 {
    let done: Void? = bytes.withContiguousStorageIfAvailable { update(bufferPointer: UnsafeRawBufferPointer($0)) }
    if done == nil { Array(bytes).withUnsafeBytes { update(bufferPointer: $0) } }
  }

  /// The hash of `bytes`.
  package static func hash<Bytes: Sequence>(data bytes: Bytes) -> Digest where Bytes.Element == UInt8 {
    var hasher = SHA256()
    hasher.update(data: bytes)
    return hasher.finalize()
  }
}

/// HMAC-SHA256 (RFC 2104), as AWS Signature Version 4 chains it.
package enum HMACSHA256 {
  /// The 32-byte authentication code of `message` under `key`.
  package static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
    #if canImport(CryptoKit)
    return Array(HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    #else
    var code = [UInt8](repeating: 0, count: 32)
    var count: UInt32 = 0
    _ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &code, &count)
    return code
    #endif
  }
}
