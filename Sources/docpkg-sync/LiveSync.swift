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
    let encrypted = command.encrypt
    let clone = { @Sendable (environment: [String: String]) in
      try runBlocking {
        _ = try await PackageSync.clone(
          from: url, endpoint: endpoint, to: destination, credentials: credentials, region: region,
          caBundle: caBundle, requiringEncryption: encrypted, environment: environment, progress: handler)
      }
    }
    do { try clone(ProcessInfo.processInfo.environment) } catch let error as SyncError
      where error.code == .passphrase && PackageSync.passphrase(in: ProcessInfo.processInfo.environment) == nil
    {
      // The remote turned out to be encrypted, and no passphrase was given: ask for it at the terminal, if any.
      let environment = try syncEnvironment(encrypted: true, remote: "origin")
      guard PackageSync.passphrase(in: environment) != nil else { throw error }
      try clone(environment)
    }
    bar.finish()
  }

  static func push(_ command: PushCommand<Self>) throws {
    let sync = try packageSync(command.package, remote: command.name)
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
    reportAutoPrune(of: sync)
  }

  /// What the automatic prune of `sync`'s last push did, if it ran.
  static func reportAutoPrune(of sync: PackageSync) {
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
    let sync = try packageSync(command.package, remote: command.name)
    let bar = SyncProgressBar("pulling", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let accept = command.acceptRollback
    let result = try runBlocking { try await sync.pull(acceptingRollback: accept, progress: handler) }
    bar.finish()
    StandardOutput.shared.write(words(for: result) + "\n")
    var reported: Set<Int> = []
    if case .conflict(let version, _) = result { reported.insert(version) }
    try writeUnresolvedConflicts(of: command.package, except: reported)
  }

  static func sync(_ command: SyncCommand<Self>) throws {
    let sync = try packageSync(command.package, remote: command.name)
    if command.watch { return try watch(command, sync: sync) }
    let bar = SyncProgressBar("syncing", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let attempts = command.attempts
    let result = try runBlocking { try await sync.sync(maximumAttempts: attempts, progress: handler) }
    bar.finish()
    StandardOutput.shared.write(words(for: result) + "\n")
    try writeUnresolvedConflicts(of: command.package, except: Set(result.conflicts.map { $0.version }))
    reportAutoPrune(of: sync)
  }

  /// A sync's result as `docpkg sync` prints it: `up to date`, or what the pulls brought (the conflicts of every
  /// round: each kept a version), then what the push sent, and after how many rounds.
  static func words(for result: PackageSync.SyncResult) -> String {
    guard !result.isUpToDate else { return "up to date" }
    let pulled = result.pulls.filter { $0 != .upToDate && $0 != .remoteEmpty }
    let pulls = pulled.isEmpty ? "nothing to pull" : pulled.map(words(for:)).joined(separator: ", ")
    let pushed: String
    switch result.pushed {
    case .upToDate: pushed = "nothing to push"
    case .pushed(_, let blobs, let trees, let bytes):
      pushed = "pushed \(blobs) blobs, \(trees) trees (\(bytes) bytes)"
    }
    let rounds = result.attempts == 1 ? "" : " (\(result.attempts) rounds)"
    return "synced: \(pulls); \(pushed)\(rounds)"
  }

  /// A pull's result as `docpkg pull` prints it.
  static func words(for result: PackageSync.PullResult) -> String {
    switch result {
    case .remoteEmpty: "remote is empty"
    case .upToDate: "up to date"
    case .fastForwarded: "fast-forward"
    case .merged: "merged"
    case .conflict(let version, let paths): "conflict \(version) \(paths.joined(separator: " "))"
    }
  }

  /// One line per unresolved conflict version of the package but those of `reported` (said already): conflict
  /// versions are shared through the remote, so they are said wherever they were kept.
  static func writeUnresolvedConflicts(of package: String, except reported: Set<Int>) throws {
    for version in try VersionStore(forPackageAt: FilePath(package)).unresolvedConflicts()
    where !reported.contains(version.id) {
      StandardOutput.shared.write(
        "unresolved conflict \(version.id) \(version.conflictPaths.joined(separator: " "))\n")
    }
  }

  static func addRemote(_ command: RemoteAdd<Self>) throws {
    let remote = Remote(
      name: command.name, url: command.url, endpoint: command.server.endpoint, region: command.server.region,
      caBundle: command.server.caBundle.map(absolutePath), encrypted: command.encrypt)
    let packagePath = FilePath(command.package)
    let credentials = try environmentCredentials()
    let environment = try syncEnvironment(encrypted: command.encrypt, remote: command.name)
    try runBlocking {
      try await PackageSync.addRemote(
        remote, toPackageAt: packagePath, credentials: credentials, environment: environment)
    }
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
    let sync = try packageSync(command.package, remote: command.name)
    let result = try runBlocking { try await sync.prune() }
    StandardOutput.shared.write(
      "kept \(result.keptStates) states (\(result.keptObjects) objects), removed \(result.removedObjects) objects\n")
  }

  static func checkRemote(_ command: RemoteCheck<Self>) throws {
    let sync = try packageSync(command.package, remote: command.name)
    let bar = SyncProgressBar("checking", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let (readData, repair) = (command.readData, command.repair)
    let result = try runBlocking { try await sync.check(readingData: readData, repairing: repair, progress: handler) }
    bar.finish()
    let out = StandardOutput.shared
    for damage in result.damage {
      out.write("damaged \(damage.key): \(damage.problem)\n")
      if damage.repaired {
        out.write("repaired \(damage.key)\n")
      } else if repair {
        out.write("cannot repair \(damage.key): no copy on this device\n")
      }
    }
    let remaining = result.damage.filter { !$0.repaired }.count
    let summary = "checked \(result.states) states, \(result.objects) objects"
    guard remaining == 0 else {
      throw SyncError(
        .corrupt,
        "\(summary): \(remaining) damaged\(repair ? " and not repairable from this device" : " (--repair uploads again what this device has)"); remote",
        key: sync.remote.url)
    }
    out.write(result.damage.isEmpty ? "\(summary): ok\n" : "\(summary): \(result.damage.count) repaired\n")
  }

  static func fetchVersion(_ command: RemoteFetch<Self>) throws {
    let (package, id) = (command.package, command.id)
    let bar = SyncProgressBar("fetching", quiet: command.quietOption.quiet)
    let handler = bar.handler
    let count = try runBlocking {
      // The sync of the remote the version names, its passphrase asked for at the terminal if needed.
      try await PackageSync.fetchVersion(id, ofPackageAt: FilePath(package), progress: handler) { remote in
        try packageSync(package, remote: remote)
      }
    }
    bar.finish()
    StandardOutput.shared.write("fetched \(count) files\n")
  }

  static func changePassphrase(_ command: RemotePassphrase<Self>) throws {
    let sync = try packageSync(command.package, remote: command.name)
    let environment = ProcessInfo.processInfo.environment
    var new = PackageSync.passphrase(
      in: [
        "DOCPKG_SYNC_PASSPHRASE": environment["DOCPKG_SYNC_NEW_PASSPHRASE"] ?? "",
        "DOCPKG_SYNC_PASSPHRASE_FILE": environment["DOCPKG_SYNC_NEW_PASSPHRASE_FILE"] ?? "",
      ])
    if new == nil, let typed = try askSecret("New passphrase for remote '\(command.name)': "), !typed.isEmpty {
      guard try askSecret("The same again: ") == typed else {
        throw SyncError(
          .invalidArgument, "the two new passphrases differ; nothing was changed for remote", key: command.name)
      }
      new = typed
    }
    guard let new else {
      throw SyncError(
        .invalidArgument,
        "no new passphrase: give it in DOCPKG_SYNC_NEW_PASSPHRASE (or a file named by DOCPKG_SYNC_NEW_PASSPHRASE_FILE), or type it at a terminal; remote",
        key: command.name)
    }
    try runBlocking { try await sync.changePassphrase(to: new) }
    StandardOutput.shared.write("passphrase changed: every device needs the new one from now on\n")
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
