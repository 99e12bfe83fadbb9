import Foundation

extension Shell {
  /// Runs `docpkg` with its standard streams on a pseudo-terminal (Python's `pty.spawn`), as a user
  /// at a terminal would; the output is what the terminal received (lines end in `\r\n`).
  public static func docpkgInTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
    let script = "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))"
    return try run("python3", ["-c", script, docpkgPath] + arguments, environment: environment, check: false)
  }
}
