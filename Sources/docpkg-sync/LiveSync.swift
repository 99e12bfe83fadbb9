import DocPkgCommandLine
import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage

/// The sync commands' work, on ``DocumentSync``: what `docpkg push|pull|clone|remote` run (through
/// `docpkg-sync`, the executable that links the HTTP stack).
enum LiveSync: SyncCommandRunner {
  static func clone(_ command: CloneCommand<Self>) throws {
    let credentials = try environmentCredentials()
    let bar = SyncProgressBar("cloning", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let (url, endpoint, region, destination) =
      (command.url, command.server.endpoint, command.server.region, FilePath(command.destination))
    let caBundle = command.server.caBundle.map(absolutePath)
    try runBlocking {
      _ = try await PackageSync.clone(
        from: url, endpoint: endpoint, to: destination, credentials: credentials, region: region,
        caBundle: caBundle, progress: handler)
    }
    bar.finish()
  }

  static func push(_ command: PushCommand<Self>) throws {
    let sync = try PackageSync(
      packageAt: FilePath(command.package), remote: command.name, credentials: environmentCredentials())
    let bar = SyncProgressBar("pushing", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let force = command.forceNewHead
    let result = try runBlocking { try await sync.push(forcingNewHead: force, progress: handler) }
    bar.finish()
    switch result {
    case .upToDate: StandardOutput.shared.write("up to date\n")
    case .pushed(_, let blobs, let trees, let bytes):
      StandardOutput.shared.write("pushed \(blobs) blobs, \(trees) trees (\(bytes) bytes)\n")
    }
    switch sync.lastAutoPrune {
    case .success(let result):
      StandardOutput.shared.write(
        "pruned: kept \(result.keptStates) states (\(result.keptObjects) objects), removed \(result.removedObjects) objects\n"
      )
    case .failure(let error):
      StandardError.write(
        "docpkg: the automatic prune was skipped (the push succeeded): \(String(describing: error).escapingControlCharacters)\n"
      )
    case nil: break
    }
  }

  static func pull(_ command: PullCommand<Self>) throws {
    let sync = try PackageSync(
      packageAt: FilePath(command.package), remote: command.name, credentials: environmentCredentials())
    let bar = SyncProgressBar("pulling", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let result = try runBlocking { try await sync.pull(progress: handler) }
    bar.finish()
    let out = StandardOutput.shared
    switch result {
    case .remoteEmpty: out.write("remote is empty\n")
    case .upToDate: out.write("up to date\n")
    case .fastForwarded: out.write("fast-forward\n")
    case .merged: out.write("merged\n")
    case .conflict(let version, let paths): out.write("conflict \(version) \(paths.joined(separator: " "))\n")
    }
    // Conflict versions are shared through the remote: say which are still open, wherever they were kept.
    var reported: Int?
    if case .conflict(let version, _) = result { reported = version }
    for version in try VersionStore(forPackageAt: FilePath(command.package)).unresolvedConflicts()
    where version.id != reported {
      out.write("unresolved conflict \(version.id) \(version.conflictPaths.joined(separator: " "))\n")
    }
  }

  static func addRemote(_ command: RemoteAdd<Self>) throws {
    let remote = Remote(
      name: command.name, url: command.url, endpoint: command.server.endpoint, region: command.server.region,
      caBundle: command.server.caBundle.map(absolutePath), encrypted: command.encrypt)
    let packagePath = FilePath(command.package)
    let credentials = try environmentCredentials()
    try runBlocking { try await PackageSync.addRemote(remote, toPackageAt: packagePath, credentials: credentials) }
  }

  static func listRemotes(_ command: RemoteList<Self>) throws {
    for remote in try SyncFolder(packagePath: FilePath(command.package)).remotes() {
      let encrypted = remote.encrypted == true ? "\tencrypted" : ""
      StandardOutput.shared.write("\(remote.name)\t\(remote.url)\t\(remote.endpoint)\(encrypted)\n")
    }
  }

  /// `path` from the working directory, so that a remote keeps a path that holds wherever it is used from.
  static func absolutePath(_ path: String) -> String {
    LocalFiles.absolute(FilePath(path)).string
  }

  static func pruneRemote(_ command: RemotePrune<Self>) throws {
    let packagePath = FilePath(command.package)
    if let keep = command.keep { try SyncFolder(packagePath: packagePath).setKeepStates(keep, of: command.name) }
    let sync = try PackageSync(packageAt: packagePath, remote: command.name, credentials: environmentCredentials())
    let result = try runBlocking { try await sync.prune() }
    StandardOutput.shared.write(
      "kept \(result.keptStates) states (\(result.keptObjects) objects), removed \(result.removedObjects) objects\n")
  }

  static func setRemote(_ command: RemoteSet<Self>) throws {
    let folder = SyncFolder(packagePath: FilePath(command.package))
    let (keep, autoPrune) = (command.keep, command.autoPrune)
    try folder.update(command.name) { remote in
      if let keep { remote.keepStates = keep }
      if let autoPrune { remote.autoPrune = autoPrune == .on }
    }
    let remote = try folder.remote(command.name)
    StandardOutput.shared.write(
      "keep \(remote.keepStates ?? PackageSync.defaultKeptStates) states, automatic prune \(remote.autoPrune == true ? "on" : "off")\n"
    )
  }

  static func removeRemote(_ command: RemoteRemove<Self>) throws {
    try SyncFolder(packagePath: FilePath(command.package)).remove(command.name)
  }
}
