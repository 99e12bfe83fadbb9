import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which package a ``VersionStore`` belongs to: the device and inode of the package's root
/// directory, plus the pending root of a save under way (recorded before the swap, so that a
/// kill right after it still finds the store the package's).
struct StoreIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
  var pending: (device: UInt64, inode: UInt64)?

  init(device: UInt64, inode: UInt64, pending: (device: UInt64, inode: UInt64)? = nil) {
    self.device = device
    self.inode = inode
    self.pending = pending
  }

  static func == (a: StoreIdentity, b: StoreIdentity) -> Bool {
    a.device == b.device && a.inode == b.inode && a.pending?.device == b.pending?.device
      && a.pending?.inode == b.pending?.inode
  }

  func matches(_ status: FileStatus) -> Bool {
    (status.device == device && status.inode == inode)
      || (pending.map { status.device == $0.device && status.inode == $0.inode } ?? false)
  }

  static func read(from store: FilePath) -> StoreIdentity? {
    guard let data = try? StoreFiles.read(store.appending("identity")) else { return nil }
    var identity: StoreIdentity?
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      if parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) {
        identity = StoreIdentity(device: device, inode: inode)
      } else if parts.count == 3, parts[0] == "pending", let device = UInt64(parts[1]), let inode = UInt64(parts[2]) {
        identity?.pending = (device, inode)
      }
    }
    return identity
  }

  func write(to store: FilePath) throws {
    var text = "\(device) \(inode)\n"
    if let pending { text += "pending \(pending.device) \(pending.inode)\n" }
    let temporary = store.appending("tmp")
    do { try StoreFiles.makeDirectory(temporary) } catch {
      throw PackageError.io(error, "cannot create", path: temporary.string)
    }
    try StoreFiles.writeAtomically(Data(text.utf8), to: store.appending("identity"), temporary: temporary)
  }
}

extension VersionStore {
  /// Fails if the store beside the package was recorded for another package.
  func checkIdentity() throws {
    guard exists, let identity = StoreIdentity.read(from: path),
      let status = try? Syscalls.statusNoFollow(packagePath)
    else { return }
    if !identity.matches(status) {
      throw PackageError(
        .conflict, "version store belongs to another package (the package was replaced or is a new one):",
        path: path.string,
        context: "(run `docpkg versions adopt \(packagePath.string)` if it is the same document, or remove the store)")
    }
  }

  /// Records the package's root as it is now (after a save), dropping the pending one.
  func recordIdentity() throws {
    guard let status = try? Syscalls.statusNoFollow(packagePath) else { return }
    let identity = StoreIdentity(device: status.device, inode: status.inode)
    if StoreIdentity.read(from: path) != identity { try identity.write(to: path) }
  }

  /// Before a save's swap: the root now, and `pending` (the new root) if the save replaces the root.
  /// `root`: the root the save loaded and holds, if known (else the one at the package's path).
  func recordPendingIdentity(_ pending: FileStatus?, root: FileStatus? = nil) throws {
    guard let status = root ?? (try? Syscalls.statusNoFollow(packagePath)) else { return }
    var identity = StoreIdentity(device: status.device, inode: status.inode)
    if let pending, pending.kind == .directory { identity.pending = (pending.device, pending.inode) }
    if StoreIdentity.read(from: path) != identity { try identity.write(to: path) }
  }

  /// When the package has no store under its name: a sibling store whose identity is this
  /// package's root is a moved package's store; rename it to this package's name.
  static func findMovedStore(for packagePath: FilePath, names: SiblingNames, lockHeld: Bool) throws {
    guard let status = try? Syscalls.statusNoFollow(packagePath),
      let siblings = try? StoreFiles.names(in: names.parent)
    else { return }
    for name in siblings where name.hasPrefix(".") && name.hasSuffix(".docpkg-versions") {
      let candidate = names.parent.appending(name)
      guard let identity = StoreIdentity.read(from: candidate), identity.matches(status) else { continue }
      let oldPackage = String(name.dropFirst().dropLast(".docpkg-versions".count))
      if let other = try? Syscalls.statusNoFollow(names.parent.appending(oldPackage)), identity.matches(other) {
        continue  // a hard-linked or bind-mounted twin still has it
      }
      let lock = lockHeld ? nil : try PackageLock(forPackageAt: packagePath)
      defer { withExtendedLifetime(lock) {} }
      do {
        try Syscalls.rename(
          from: currentDirectory, RawName(path: candidate), to: currentDirectory,
          RawName(path: names.path(names.versions)),
          flags: Syscalls.renameNoReplace)
      } catch .fileExists {
        return  // another process moved it meanwhile
      } catch {
        throw PackageError.io(error, "cannot move version store", path: candidate.string)
      }
      return
    }
  }
}
