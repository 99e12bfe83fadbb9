import Foundation

/// A folder of a test's own on the sshfs share that `Scripts/filesystems.sh` mounts (issue 24):
/// `DOCPKG_FS_SSHFS` is the mount (the client side), `DOCPKG_FS_SSHFS_SOURCE` the folder its server
/// serves (the server side, where changes happen without the client's kernel seeing them).
///
/// Others use the share at the same time: the folder has a unique name, is made on the server side,
/// and is removed (it and only what the test made in it) when the value is dropped.
public final class SshfsFolder: @unchecked Sendable {
  /// Whether the share is mounted (both variables set): tests that need it are enabled on this.
  public static var isAvailable: Bool { mount != nil && source != nil }

  private static var mount: String? { nonEmpty(ProcessInfo.processInfo.environment["DOCPKG_FS_SSHFS"]) }
  private static var source: String? { nonEmpty(ProcessInfo.processInfo.environment["DOCPKG_FS_SSHFS_SOURCE"]) }
  private static func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }

  /// The folder through the mount.
  public let mounted: String
  /// The same folder on the server side.
  public let served: String

  /// Makes a new folder `docpkg-LABEL-XXXXXXXX` on the server side of the share.
  public init(_ label: String) throws {
    guard let mount = Self.mount, let source = Self.source else {
      throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "DOCPKG_FS_SSHFS is not set"])
    }
    let name = "docpkg-\(label)-\(UUID().uuidString.prefix(8))"
    mounted = mount + "/" + name
    served = source + "/" + name
    try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: false)
  }

  deinit { try? FileManager.default.removeItem(atPath: served) }

  /// Writes `contents` at `path` inside the folder on the server side (in place if the file exists),
  /// making directories on the way.
  public func writeOnServer(_ path: String, _ contents: String) throws {
    let full = served + "/" + path
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: URL(fileURLWithPath: full))
  }

  /// Removes the entry at `path` inside the folder, on the server side.
  public func removeOnServer(_ path: String) throws {
    try FileManager.default.removeItem(atPath: served + "/" + path)
  }
}
