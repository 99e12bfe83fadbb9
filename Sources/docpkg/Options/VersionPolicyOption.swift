import ArgumentParser
import DocumentPackage

/// How `put` and `rm` keep versions: `--versions N|all|none`.
struct VersionPolicyOption: ParsableArguments {
  @Option(
    name: .customLong("versions"),
    help: "Previous states to keep in .NAME.docpkg-versions: a number (keep the last N), all, or none.")
  var versions: String = "10"

  /// The policy the option names; fails on anything but a number, `all` or `none`.
  var policy: VersionPolicy {
    get throws {
      switch versions {
      case "all": return .keepAll
      case "none": return VersionPolicy.none
      default:
        guard let count = Int(versions), count >= 0 else {
          throw ValidationError("--versions takes a number, all or none, not '\(versions)'")
        }
        return .keepLast(count)
      }
    }
  }
}
