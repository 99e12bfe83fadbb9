import DocPkgCommandLine
import DocumentPackage
import DocumentSync
import Foundation
import SystemPackage

/// Runs async sync work from a synchronous command (the root command is synchronous): the work runs in a task,
/// this thread (the main thread, not one of the cooperative pool's) waits for it. Ctrl-C (SIGINT), SIGTERM and
/// SIGHUP cancel the task — a push or pull stops at the next object, leaving the package and the remote
/// consistent; a clone removes what it made (but the blobs it downloaded, which the next clone resumes from) —
/// then the process ends by that signal (or, `endingBySignal` false, for a command that runs until interrupted, the
/// work's result is returned: the command ends as usual). A second signal ends it at once.
func runBlocking<T: Sendable>(endingBySignal: Bool = true, _ work: @escaping @Sendable () async throws -> T) throws
  -> T
{
  let box = ResultBox<T>()
  let done = DispatchSemaphore(value: 0)
  let task = Task.detached {
    do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
    done.signal()
  }
  let received = SignalBox()
  TerminationSignals.handle { signalNumber in
    received.set(signalNumber)
    task.cancel()
  }
  done.wait()
  if endingBySignal, let signalNumber = received.value { TerminationSignals.endProcess(by: signalNumber) }
  return try box.result!.get()
}

/// The signal received, set on the signal thread and read on the main thread.
private final class SignalBox: @unchecked Sendable {
  private let lock = NSLock()
  private var number: CInt?

  func set(_ value: CInt) { lock.withLock { if number == nil { number = value } } }
  var value: CInt? { lock.withLock { number } }
}

/// The result handed from the task to the waiting thread (written before the semaphore is signalled).
private final class ResultBox<T>: @unchecked Sendable {
  var result: Result<T, any Error>?
}

/// The credentials of the environment (`AWS_ACCESS_KEY_ID` ..., or `~/.aws/credentials`). Never printed.
func environmentCredentials() throws -> S3Credentials {
  try S3Credentials.fromEnvironment(ProcessInfo.processInfo.environment)
}

/// `SyncProgress` drawn with the CLI's progress bar (only on a terminal, not with `--quiet`), from any task.
final class SyncProgressBar: @unchecked Sendable {
  private let lock = NSLock()
  private let bar: ProgressBar

  init(_ label: String, quiet: Bool) { bar = ProgressBar(label, quiet: quiet) }

  var handler: SyncProgress.Handler {
    { [self] progress in
      lock.withLock {
        bar.update(
          ProgressBar.Counts(
            entriesDone: progress.objectsDone, entriesTotal: progress.objectsTotal, bytesDone: progress.bytesDone,
            bytesTotal: progress.bytesTotal))
      }
    }
  }

  func finish() { lock.withLock { bar.finish() } }
}

/// The environment of a command on a remote: the process's, and for an encrypted remote whose passphrase neither
/// `DOCPKG_SYNC_PASSPHRASE` nor `DOCPKG_SYNC_PASSPHRASE_FILE` gives, the passphrase typed at the terminal (echo off)
/// when there is one, in `DOCPKG_SYNC_PASSPHRASE`. Without a terminal, the library's error says what to set.
/// - Throws: `PackageError` if the terminal cannot be read.
func syncEnvironment(encrypted: Bool, remote name: String) throws -> [String: String] {
  var environment = ProcessInfo.processInfo.environment
  guard encrypted, PackageSync.passphrase(in: environment) == nil else { return environment }
  if let typed = try askSecret("Passphrase for remote '\(name)': "), !typed.isEmpty {
    environment["DOCPKG_SYNC_PASSPHRASE"] = typed
  }
  return environment
}

/// The sync of the package at `package` with its remote `name`, its passphrase asked for if needed
/// (``syncEnvironment(encrypted:remote:)``).
/// - Throws: What ``/DocumentSync/PackageSync/init(packageAt:remote:credentials:environment:parallelism:timeouts:)`` throws.
func packageSync(_ package: String, remote name: String) throws -> PackageSync {
  let path = FilePath(package)
  let encrypted = (try? SyncFolder(packagePath: path).remote(name).encrypted) == true
  return try PackageSync(
    packageAt: path, remote: name, credentials: environmentCredentials(),
    environment: try syncEnvironment(encrypted: encrypted, remote: name))
}

/// A secret typed at the terminal after `prompt`, or nil without a terminal.
/// - Throws: `PackageError` if the terminal cannot be read or set.
func askSecret(_ prompt: String) throws -> String? {
  do { return try Syscalls.readSecretLine(prompt: prompt) } catch {
    throw PackageError.io(error, "cannot read a passphrase from the terminal", path: "/dev/tty")
  }
}
