import ArgumentParser

/// `--json`: machine-readable output instead of text (`inspect`, `diff`, `versions list`).
struct JSONOption: ParsableArguments {
  @Flag(help: "Print JSON instead of text (the command's discussion gives the schema).")
  var json = false
}
