import Foundation
import TestSupport

/// Runs `docpkg arguments` and kills it with SIGKILL as soon as `condition` holds (polled for at most
/// `seconds`), as a crash or a user's `kill -9` would.
/// - Returns: Whether `condition` held before the kill, and whether the process died of the signal
///   (rather than having finished first).
func docpkgKilled(
  _ arguments: [String], seconds: Double = 120, when condition: () -> Bool
) async throws -> (conditionHeld: Bool, killed: Bool) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: Shell.docpkgPath)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  let held = await eventually(seconds: seconds, condition)
  try Shell.run("kill", ["-KILL", String(process.processIdentifier)], check: false)
  process.waitUntilExit()
  return (held, process.terminationReason == .uncaughtSignal)
}
