import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Codable` form: `{"version":1,"path":"/home/ann/Trip.mydoc","device":2049,"inode":1234,
/// "identifier":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}`. A path that is not valid UTF-8 is kept
/// exactly as `pathBytes` (base64) instead of `path`; `identifier` is absent where the file system
/// keeps no identity. Decoding refuses a `version` newer than ``PackageReference/formatVersion``.
extension PackageReference: Codable {
  private enum CodingKeys: String, CodingKey {
    case version, path, pathBytes, device, inode, identifier
  }

  /// Decodes a reference written by this or an earlier version of the library.
  /// - Throws: `DecodingError` for a newer format or a missing field.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .version)
    guard (1...Self.formatVersion).contains(version) else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: container,
        debugDescription: "package reference format \(version) is newer than this library's (\(Self.formatVersion))")
    }
    let path: FilePath
    if let text = try container.decodeIfPresent(String.self, forKey: .path) {
      path = FilePath(text)
    } else {
      var bytes = try container.decode(Data.self, forKey: .pathBytes).map { CChar(bitPattern: $0) }
      bytes.append(0)
      path = bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }
    self.init(
      path: path, device: try container.decode(UInt64.self, forKey: .device),
      inode: try container.decode(UInt64.self, forKey: .inode),
      identifier: try container.decodeIfPresent(UUID.self, forKey: .identifier))
  }

  /// Encodes the reference (see the extension's documentation for the form).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Self.formatVersion, forKey: .version)
    if FilePath(path.string) == path {
      try container.encode(path.string, forKey: .path)
    } else {
      let bytes = RawName(path: path).bytes.dropLast()  // without the NUL
      try container.encode(Data(bytes.map { UInt8(bitPattern: $0) }), forKey: .pathBytes)
    }
    try container.encode(device, forKey: .device)
    try container.encode(inode, forKey: .inode)
    try container.encodeIfPresent(identifier, forKey: .identifier)
  }
}
