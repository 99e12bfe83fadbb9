import ArgumentParser

/// `--quiet`: no progress bar on standard error (`pack`, `unpack`).
struct QuietOption: ParsableArguments {
  @Flag(help: "No progress bar.")
  var quiet = false
}
