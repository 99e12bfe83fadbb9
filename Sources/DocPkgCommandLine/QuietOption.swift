import ArgumentParser

/// `--quiet`: no progress bar on standard error (`pack`, `unpack`).
package struct QuietOption: ParsableArguments {
  @Flag(help: "No progress bar.")
  package var quiet = false

  package init() {}
}
