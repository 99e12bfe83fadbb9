import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which package a ``VersionStore`` belongs to: the package's root directory (``RootIdentity``:
/// device, inode and, where the file system records one, birth time), plus the pending root of a
/// save under way (recorded before the swap, so that a kill right after it still finds the store
/// the package's).
///
/// The `identity` file holds `DEVICE INODE`, then `pending DEVICE INODE` for a pending root; the
/// birth times are lines of their own (`birth SECONDS NANOSECONDS`, `pending-birth …`), which
/// readers that predate them skip: such a reader, and a record written by one, compare device and
/// inode alone.
struct StoreIdentity: Equatable {
  var root: RootIdentity
  var pending: RootIdentity?

  init(_ root: RootIdentity, pending: RootIdentity? = nil) {
    self.root = root
    self.pending = pending
  }

  /// Whether `directory` is the package's root or the pending one.
  func matches(_ directory: RootIdentity) -> Bool {
    root.isSame(as: directory) || pending?.isSame(as: directory) == true
  }

  static func read(from store: FilePath) -> StoreIdentity? {
    guard let data = try? StoreFiles.read(store.appending("identity")) else { return nil }
    var identity: StoreIdentity?
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      if parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) {
        identity = StoreIdentity(RootIdentity(device: device, inode: inode, birth: nil))
      } else if parts.count == 3, let first = UInt64(parts[1]), let second = UInt64(parts[2]) {
        switch parts[0] {
        case "pending": identity?.pending = RootIdentity(device: first, inode: second, birth: nil)
        case "birth": identity?.root.birth = time(first, second)
        case "pending-birth": identity?.pending?.birth = time(first, second)
        default: break
        }
      }
    }
    return identity
  }

  private static func time(_ seconds: UInt64, _ nanoseconds: UInt64) -> FileTime? {
    guard seconds <= UInt64(Int64.max), nanoseconds < 1_000_000_000 else { return nil }
    return FileTime(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
  }

  func write(to store: FilePath) throws {
    var text = "\(root.device) \(root.inode)\n"
    if let birth = root.birth, birth.seconds >= 0 { text += "birth \(birth.seconds) \(birth.nanoseconds)\n" }
    if let pending {
      text += "pending \(pending.device) \(pending.inode)\n"
      if let birth = pending.birth, birth.seconds >= 0 {
        text += "pending-birth \(birth.seconds) \(birth.nanoseconds)\n"
      }
    }
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
    guard exists, let identity = StoreIdentity.read(from: path), let root = RootIdentity.at(packagePath)
    else { return }
    if !identity.matches(root) {
      throw PackageError(
        .conflict, "version store belongs to another package (the package was replaced or is a new one):",
        path: path.string,
        context: "(run `docpkg versions adopt \(packagePath.string)` if it is the same document, or remove the store)")
    }
  }

  /// Records the package's root as it is now (after a save), dropping the pending one.
  func recordIdentity() throws {
    guard let root = RootIdentity.at(packagePath) else { return }
    let identity = StoreIdentity(root)
    if StoreIdentity.read(from: path) != identity { try identity.write(to: path) }
  }

  /// Before a save's swap: the root now, and `pending` (the new root) if the save replaces the root.
  /// `root`: the root the save loaded and holds, if known (else the one at the package's path).
  func recordPendingIdentity(_ pending: RootIdentity?, root: RootIdentity? = nil) throws {
    guard let root = root ?? RootIdentity.at(packagePath) else { return }
    let identity = StoreIdentity(root, pending: pending)
    if StoreIdentity.read(from: path) != identity { try identity.write(to: path) }
  }

  /// When the package has no store under its name: a sibling store whose identity is this
  /// package's root is a moved package's store; rename it to this package's name.
  static func findMovedStore(for packagePath: FilePath, names: SiblingNames, lockHeld: Bool) throws {
    guard let root = RootIdentity.at(packagePath),
      let siblings = try? StoreFiles.names(in: names.parent)
    else { return }
    for name in siblings where name.hasPrefix(".") && name.hasSuffix(".docpkg-versions") {
      let candidate = names.parent.appending(name)
      guard let identity = StoreIdentity.read(from: candidate), identity.matches(root) else { continue }
      let oldPackage = String(name.dropFirst().dropLast(".docpkg-versions".count))
      if let other = RootIdentity.at(names.parent.appending(oldPackage)), identity.matches(other) {
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
