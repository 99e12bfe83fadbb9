import ArgumentParser
import DocPkgCommandLine
import DocumentPackage

/// `--color auto|always|never`: whether output is coloured, as git decides it (`diff`).
///
/// `auto` colours only a terminal, and not when `NO_COLOR` is set to anything but the empty string
/// (no-color.org) or `TERM` is `dumb`; `always` and `never` override both.
struct ColorOption: ParsableArguments {
  /// When to colour.
  enum When: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
  }

  @Option(
    name: .customLong("color"),
    help: "When to color the output: auto (a terminal, unless NO_COLOR is set or TERM is dumb), always or never.")
  var when: When = .auto

  /// Whether to colour output written to `output`.
  func colors(_ output: StandardOutput) -> Bool {
    switch when {
    case .always: return true
    case .never: return false
    case .auto: return output.isTerminal && Self.environmentAllowsColor
    }
  }

  /// `NO_COLOR` unset or empty, and `TERM` not `dumb`.
  static var environmentAllowsColor: Bool {
    (Syscalls.environment("NO_COLOR") ?? "").isEmpty && Syscalls.environment("TERM") != "dumb"
  }
}
