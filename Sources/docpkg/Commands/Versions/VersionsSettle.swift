import ArgumentParser
import DocumentPackage
import SystemPackage

/// `docpkg versions settle PACKAGE` (hidden): copies the contents of the versions saves left
/// pending into the store. `put`, `rm`, `versions restore` and `versions resolve` keep the
/// previous state in O(changed) (``PackageFile/defersVersionCopies``) and start this command as
/// a detached process when they are done; any command that reads versions settles first too.
struct VersionsSettle: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "settle",
    abstract: "Copy the contents of pending versions into the version store (run after saves).",
    shouldDisplay: false)

  @Argument(help: "The package.", completion: .file())
  var package: String

  func run() throws {
    try VersionStore(forPackageAt: FilePath(package)).settlePendingVersions()
  }

  /// The packages this process saved with deferred copies.
  private static let saved = SavedPackages()

  /// Makes `document`'s saves defer their copies, to be settled by ``startForSavedPackages()``.
  static func deferCopies(of document: PackageFile) {
    document.defersVersionCopies = true
    saved.add(document.path)
  }

  /// Starts `docpkg versions settle` detached for each package saved with deferred copies that
  /// has pending versions (best effort: if it cannot start, the next reading of the store settles),
  /// unless the environment has `DOCPKG_NO_BACKGROUND_SETTLE`.
  static func startForSavedPackages() {
    // Tests and benchmarks that settle on their own terms set DOCPKG_NO_BACKGROUND_SETTLE.
    guard Syscalls.environment("DOCPKG_NO_BACKGROUND_SETTLE") == nil else { return }
    guard let executable = try? Syscalls.readLink(at: "/proc/self/exe") else { return }
    for package in saved.all {
      guard let store = try? VersionStore(forPackageAt: package), store.hasPendingVersions else { continue }
      try? Syscalls.spawnDetached(FilePath(executable), ["versions", "settle", package.string])
    }
  }
}

/// A list of paths shared by the commands of one process.
private final class SavedPackages: @unchecked Sendable {
  private let lock = SystemLock()
  private var paths: [FilePath] = []

  func add(_ path: FilePath) { lock.withLock { paths.append(path) } }
  var all: [FilePath] { lock.withLock { paths } }
}
