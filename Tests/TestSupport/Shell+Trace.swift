import Foundation

extension Shell {
  /// Runs `docpkg ARGUMENTS` under `strace -f`, recording the system calls `calls` (strace's
  /// `-e trace=` list, e.g. `"openat,open"`), with the variables named in `unsetting` removed from
  /// its environment.
  /// - Returns: Its output, and the trace's lines (one call each).
  public static func traceDocpkg(_ arguments: [String], calls: String, unsetting: [String] = []) throws -> (
    output: Output, calls: [Substring]
  ) {
    let trace = FileManager.default.temporaryDirectory.appendingPathComponent("docpkg-trace-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let strace = ["strace", "-f", "-qq", "-e", "trace=\(calls)", "-o", trace, docpkgPath] + arguments
    let output = try run("env", unsetting.flatMap { ["-u", $0] } + strace, check: false)
    return (output, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n"))
  }
}
