import Foundation

/// Runs programs: the built `docpkg` and the real peer tools (tar, unzip, strace, git) that tests compare with.
public enum Shell {
  /// What a finished program left behind.
  public struct Output: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var standardOutput: String { String(decoding: stdout, as: UTF8.self) }
    public var standardError: String { String(decoding: stderr, as: UTF8.self) }
    /// The status and both streams, each labelled (an empty one says so): a failure message that
    /// tells a silent exit from a log cut short.
    public var transcript: String {
      func stream(_ name: String, _ text: String) -> String {
        text.isEmpty ? "\(name): (empty)" : "\(name) (\(text.utf8.count) bytes):\n\(text)"
      }
      return "exit status \(status)\n" + stream("stdout", standardOutput) + "\n" + stream("stderr", standardError)
    }
  }

  /// The `docpkg` built beside the test bundle.
  public static let docpkgPath: String = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    // On Linux the tests run from `.build/<config>/<Package>PackageTests.xctest`; on macOS from inside a bundle.
    while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("docpkg").path),
      directory.path != "/"
    {
      directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("docpkg").path
  }()

  /// The `docpkg` the crash and interleaving scripts run: ``docpkgPath``, or the binary `DOCPKG_SWEEP_BINARY` names
  /// (CI: the release build, which runs their thousands of commands about three times faster than a debug one).
  public static let sweepDocpkgPath: String = {
    guard let given = ProcessInfo.processInfo.environment["DOCPKG_SWEEP_BINARY"], !given.isEmpty else {
      return docpkgPath
    }
    return given
  }()

  /// Runs `docpkg` with `arguments`, feeding `input` on standard input.
  @discardableResult
  public static func docpkg(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws
    -> Output
  {
    try run(docpkgPath, arguments, input: input, environment: environment, check: false)
  }

  /// Runs `executable` (a path, or a name looked up in PATH) and waits for it.
  /// - Parameter check: Throw if the program exits non-zero.
  @discardableResult
  public static func run(
    _ executable: String, _ arguments: [String], input: Data? = nil,
    environment: [String: String] = [:], directory: String? = nil, check: Bool = true
  ) throws -> Output {
    let process = Process()
    if executable.contains("/") {
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
    } else {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = [executable] + arguments
    }
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try process.run()
    // Read both pipes concurrently with the process so a chatty program cannot block on a full pipe.
    let box = OutputBox()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      box.setErr(stderr.fileHandleForReading.readDataToEndOfFile())
      group.leave()
    }
    if let input { stdin.fileHandleForWriting.write(input) }
    try? stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    let status =
      process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    let result = Output(status: status, stdout: out, stderr: box.err)
    if check, status != 0 {
      throw ShellError(command: ([executable] + arguments).joined(separator: " "), output: result)
    }
    return result
  }

  /// Whether a program is on PATH.
  public static func has(_ program: String) -> Bool {
    (try? run("/bin/sh", ["-c", "command -v \(program)"], check: false).status) == 0
  }

  /// Whether the crash sweeps run (Tests/Scripts/crash-test.py killing a command at every step of a save, a
  /// restore or a settle): with `DOCPKG_CRASH_SWEEPS=1`, as `make crash-sweeps` sets it, and strace and python3 on
  /// PATH. They take most of a test run's time, so `make test` leaves them to that target (`.ci/run` runs both).
  public static let crashSweeps =
    ProcessInfo.processInfo.environment["DOCPKG_CRASH_SWEEPS"] == "1" && has("strace") && has("python3")
}

/// A program that exited non-zero when it should not have.
public struct ShellError: Error, CustomStringConvertible {
  public var command: String
  public var output: Shell.Output
  public var description: String { "'\(command)' exited \(output.status): \(output.standardError)" }
}

private final class OutputBox: @unchecked Sendable {
  private let lock = NSLock()
  private var _err = Data()
  var err: Data { lock.withLock { _err } }
  func setErr(_ data: Data) { lock.withLock { _err = data } }
}
