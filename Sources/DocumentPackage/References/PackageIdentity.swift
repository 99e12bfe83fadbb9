import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The identity a ``PackageReference`` gives a package: a random identifier kept in the extended
/// attribute `user.docpkg.identity` of the package's root directory, together with the device
/// and inode of the directory it was written on (the *binding*).
///
/// The value is one line of text: `1 IDENTIFIER DEVICE INODE` (format 1, a UUID, two decimals).
///
/// A directory whose own device and inode are the binding's is the package itself (*bound*). A
/// copy that kept the attribute (`cp -a`, `rsync -X`, `tar --xattrs`) lives in another inode, so
/// its attribute is *unbound*: it names the package it was copied from and is not that package.
/// Our saves that replace the root directory write the attribute on the new root bound to its new
/// inode (``Saver`` through ``TreeBuilder``), so the identity survives any number of saves.
struct PackageIdentity: Equatable, Sendable {
  /// The attribute's name (`user.` names need no privilege on Linux; macOS takes any name).
  static let attributeName = "user.docpkg.identity"

  var identifier: UUID
  var device: UInt64
  var inode: UInt64

  /// Whether the directory with `status` is the one this identity was written for (not a copy).
  func isBound(to status: FileStatus) -> Bool { status.device == device && status.inode == inode }

  /// The same identity bound to the directory with `status`.
  func rebound(to status: FileStatus) -> PackageIdentity {
    PackageIdentity(identifier: identifier, device: status.device, inode: status.inode)
  }

  var attributeValue: [UInt8] { Array("1 \(identifier.uuidString) \(device) \(inode)".utf8) }

  /// Parses an attribute value; nil for another format or garbage.
  init?(attributeValue bytes: [UInt8]) {
    let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
    guard parts.count == 4, parts[0] == "1", let identifier = UUID(uuidString: String(parts[1])),
      let device = UInt64(parts[2]), let inode = UInt64(parts[3])
    else { return nil }
    self.init(identifier: identifier, device: device, inode: inode)
  }

  init(identifier: UUID, device: UInt64, inode: UInt64) {
    self.identifier = identifier
    self.device = device
    self.inode = inode
  }

  /// The identity recorded on the directory at `path` (a link is not followed), or nil when it
  /// has none or its file system keeps no attributes.
  static func read(at path: FilePath) -> PackageIdentity? {
    guard let bytes = try? Syscalls.readAttribute(path, attributeName) else { return nil }
    return PackageIdentity(attributeValue: bytes)
  }

  /// ``read(at:)`` for a path given as raw bytes.
  static func read(at path: RawName) -> PackageIdentity? {
    guard let bytes = try? Syscalls.readAttribute(path, attributeName) else { return nil }
    return PackageIdentity(attributeValue: bytes)
  }

  /// The identity recorded on the open directory `fd`.
  static func read(_ fd: CInt) throws(Errno) -> PackageIdentity? {
    guard let bytes = try Syscalls.readAttribute(fd, attributeName) else { return nil }
    return PackageIdentity(attributeValue: bytes)
  }

  /// Writes this identity on the open directory `fd`, replacing one that is there.
  func write(_ fd: CInt) throws(Errno) {
    do { try Syscalls.writeAttribute(fd, Self.attributeName, attributeValue, mode: .create) } catch .fileExists {
      try Syscalls.writeAttribute(fd, Self.attributeName, attributeValue, mode: .replace)
    }
  }

  /// For a save that builds a new root for the package at `target`: what the new root must carry.
  ///
  /// A bound identity is rebound to the new root (the package stays itself); an unbound one (a
  /// copy's) is carried as it is, still unbound. Nil when the package has none.
  static func carried(from target: FilePath) -> ((FileStatus) -> PackageIdentity)? {
    guard let identity = read(at: target), let status = try? Syscalls.statusNoFollow(target) else { return nil }
    let bound = identity.isBound(to: status)
    return { newRoot in bound ? identity.rebound(to: newRoot) : identity }
  }
}
