import Foundation
import TestSupport

/// Runs `docpkg arguments` (with `environment` added to this process's) and kills it with SIGKILL as soon as
/// `condition` holds (polled for at most `seconds`), as a crash or a user's `kill -9` would.
///
/// The condition is polled every 2 ms on a thread of its own: a poll on the cooperative pool waits its turn
/// behind the other suites running at the same time, and on a busy machine the command finished first.
/// - Returns: Whether `condition` held before the kill, and whether the process died of the signal
///   (rather than having finished first).
func docpkgKilled(
  _ arguments: [String], environment: [String: String] = [:], seconds: Double = 120,
  when condition: @escaping @Sendable () -> Bool
) async throws -> (conditionHeld: Bool, killed: Bool) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: Shell.docpkgPath)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  let pid = process.processIdentifier
  let held = try await offThePool { () -> Bool in
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
      if condition() {
        kill(pid, SIGKILL)
        return true
      }
      usleep(2_000)
    }
    return false
  }
  if !held { kill(pid, SIGKILL) }
  process.waitUntilExit()
  return (held, process.terminationReason == .uncaughtSignal)
}
