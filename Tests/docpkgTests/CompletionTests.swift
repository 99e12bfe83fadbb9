import Foundation
import TestSupport
import Testing

/// `docpkg --generate-completion-script bash`, sourced in bash: paths complete where a path is expected, and
/// `--format` offers the format names.
@Suite("docpkg completions", .enabled(if: Shell.has("bash")))
struct CompletionTests {
  /// What bash's completion function offers for `line` (the cursor at its end), run in `directory`.
  static func complete(_ line: String, in directory: String, script: String) throws -> [String] {
    let driver = """
      source "$1"
      COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
      read -ra COMP_WORDS <<< "$COMP_LINE"
      [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
      COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMPREPLY=()
      _docpkg docpkg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try Shell.run("bash", ["--norc", "-c", driver, "bash", script, line], directory: directory)
    return result.standardOutput.split(separator: "\n").map(String.init)
  }

  @Test func pathsAndFormatNamesComplete() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let generated = try Shell.docpkg(["--generate-completion-script", "bash"])
    #expect(generated.status == 0, "\(generated.standardError)")
    try generated.stdout.write(to: temp.url.appendingPathComponent("docpkg.bash"))
    let script = temp.appending("docpkg.bash")
    #expect(try Self.complete("docpkg inspect No", in: temp.path, script: script) == ["Notes.mydoc"])
    #expect(try Self.complete("docpkg check No", in: temp.path, script: script) == ["Notes.mydoc"])
    #expect(try Self.complete("docpkg cat No", in: temp.path, script: script) == ["Notes.mydoc"])
    #expect(try Self.complete("docpkg versions list No", in: temp.path, script: script) == ["Notes.mydoc"])
    let formats = try Self.complete("docpkg pack \(package) -o x --format ", in: temp.path, script: script)
    #expect(formats == ["zip", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"])
    #expect(try Self.complete("docpkg diff --color ", in: temp.path, script: script) == ["auto", "always", "never"])
  }
}
