import ArgumentParser
import DocPkgCommandLine
import DocumentPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `docpkg diff OLD NEW`: what changed between two versions of a package.
///
/// Exit status, like `diff`: 0 when the two are the same, 1 when they differ, 2 on error.
///
/// `--json` prints ``PackageDifference``'s JSON encoding (schema version 1, documented on its `Codable`
/// conformance in the library).
struct Diff: ParsableCommand, FailureStatus {
  static let failureStatus: Int32 = 2

  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Show what changed between two versions of a package.",
    discussion: """
      OLD and NEW are packages (directories) or single files. Exit status: 0 same, 1 different, 2 error.

      Changes: A added, D deleted, M modified (contents, mode, link target; mtime with --times), \
      R renamed or moved (exact by SHA-256; text files with edits when at least 50% similar, as git -M \
      estimates it; the score follows the letter, R100 for exact), T type changed (file, directory, link). \
      Directories are entries too and are shown with a trailing /; git does not list them. \
      Entries inside a container opened by --recursive are shown as CONTAINER!/PATH.

      Output: by default one line per change with sizes (colored on a terminal: see --color); --name-status as \
      `git diff --name-status -M`; --stat as `git diff --stat`; -p adds unified diffs of text files \
      (binary files: size and SHA-256, old → new); --json prints one object, schema version 1 \
      (keys may be added in later versions, never renamed or removed; "?" marks optional keys):

        {"version": 1, "identical": BOOL,
         "counts": {"added", "deleted", "modified", "renamed", "typeChanged"},
         "changes": [{"status": "A"|"D"|"M"|"R"|"T", "path",
           "oldPath"?, "similarity"?,
           "details"?: ["contents"|"mode"|"target"|"mtime"],
           "old"?: ENTRY, "new"?: ENTRY, "patch"? (with -p),
           "nested"?: {"changes": [...]} (with --recursive)}]}
        ENTRY = {"kind": "file"|"directory"|"symlink", "size", "mode": "0644",
                 "mtime"?: "SECONDS.NANOSECONDS", "target"?, "sha256"?}
      """
  )

  @Argument(help: "The old version.", completion: .file())
  var old: String

  @Argument(help: "The new version.", completion: .file())
  var new: String

  @Flag(help: "Show one line per changed file with counts of changed lines, then totals.")
  var stat = false

  @Flag(help: "Show only the status letter and path of each change, as git does.")
  var nameStatus = false

  @OptionGroup var jsonOption: JSONOption
  private var json: Bool { jsonOption.json }

  @Flag(name: [.short, .customLong("patch")], help: "Show unified diffs of changed text files.")
  var patch = false

  @Flag(help: "Compare the entries inside changed zip files in the package (such as iWork's Index.zip).")
  var recursive = false

  @Flag(help: "Also report entries whose modification times differ.")
  var times = false

  @Flag(help: "Do not pair deleted and added files into renames.")
  var noRenames = false

  @OptionGroup var colorOption: ColorOption

  func validate() throws {
    if [stat, nameStatus, json].filter({ $0 }).count > 1 {
      throw ValidationError("--stat, --name-status and --json cannot be combined")
    }
  }

  func run() throws {
    let oldTree = try openPackage(old)
    let newTree = try openPackage(new)
    var options = PackageDifference.Options()
    options.comparesModificationTimes = times
    options.detectsRenames = !noRenames
    options.includesTextPatches = patch || stat
    if recursive { options.expandingContainers = try ContainerExpander.hook(for: new) }
    let difference = try newTree.difference(from: oldTree, options: options)
    let out = StandardOutput.shared
    let renderer = DiffRenderer(color: colorOption.colors(out) && !json)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      try encoder.encode(difference).withUnsafeBytes { out.write(bytes: $0) }
      out.write("\n")
    } else {
      if stat { out.write(renderer.stat(difference)) }
      if nameStatus { out.write(renderer.nameStatus(difference)) }
      if !stat, !nameStatus, !patch { out.write(renderer.summary(difference)) }
      if patch { out.write(renderer.patches(difference)) }
    }
    if !difference.isEmpty { throw ExitCode(1) }
  }
}
