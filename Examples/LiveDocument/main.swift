import DocumentPackage
import SystemPackage

// Example 4: a live document — an app keeps a package open while other programs change it.
//
// A `Document` watches its package (on by default). When another program saves it (another
// `docpkg put`, an editor, `git checkout`), the document reloads by itself if it has no unsaved
// changes, or merges the outside change with its own unsaved changes; both sides changing one
// entry is kept as a conflict version; a moved package is followed, a deleted one can be saved
// elsewhere. Each reaction comes as a `DocumentUpdate` whose `outsideChange` says what happened:
// this example prints them, as an app would refresh its views.
//
//     swift run LiveDocument /tmp/Live.mydoc --edit Mine.txt=mine --changes 3 --timeout 60
//
// then, in another terminal: `docpkg put /tmp/Live.mydoc Text.txt`, `mv`, `rm -rf` ...
// It exits after `--changes` outside changes or `--timeout` seconds, saving its own changes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Prints `line` at once, also into a pipe (unbuffered: a test reads the output as it runs).
func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
  say("failed: \(message)")
  exit(1)
}

// Arguments: PACKAGE [--edit ENTRY=TEXT] [--changes N] [--timeout SECONDS]
var arguments = Array(CommandLine.arguments.dropFirst())
guard let packageArgument = arguments.first, !packageArgument.hasPrefix("--") else {
  fail("usage: LiveDocument PACKAGE [--edit ENTRY=TEXT] [--changes N] [--timeout SECONDS]")
}
arguments.removeFirst()
var edit: (entry: String, text: String)?
var limit = Int.max
var timeout = 3600.0
while let option = arguments.first, arguments.count >= 2 {
  let value = arguments[1]
  arguments.removeFirst(2)
  switch option {
  case "--edit":
    guard let equals = value.firstIndex(of: "=") else { fail("--edit takes ENTRY=TEXT") }
    edit = (String(value[..<equals]), String(value[value.index(after: equals)...]))
  case "--changes":
    guard let number = Int(value) else { fail("--changes takes a number") }
    limit = number
  case "--timeout":
    guard let seconds = Double(value) else { fail("--timeout takes seconds") }
    timeout = seconds
  default: fail("unknown option \(option)")
  }
}
guard arguments.isEmpty else { fail("unexpected \(arguments.joined(separator: " "))") }

/// Prints what an app would show for one outside change, and deals with a deleted package.
func show(_ change: OutsideChange, of document: Document) async {
  say("outside change \(change.number): \(change.description)")
  switch change.reaction {
  case .reloaded, .merged:
    // Refresh the views that show what changed: here, print the new text of changed files.
    for entry in change.changes where [.added, .modified, .renamed].contains(entry.kind) {
      let text = try? await document.read { root -> String? in
        let node = try root.node(at: entry.path)
        guard node.kind == .file, node.size < 1024 else { return nil }
        return String(decoding: try node.contents(), as: UTF8.self)
      }
      if let text = text ?? nil { say("  \(entry.path) now reads: \(text.debugDescription)") }
    }
  case .conflict(let version, _):
    say("  both sides changed it: the package keeps theirs, my side is version \(version)")
  case .followed:
    say("  the document is now at \(await document.path)")
  case .deleted:
    let rescue = FilePath(change.packagePath.string + "-rescued")
    do {
      try await document.save(to: rescue)
      say("  saved what the document held to \(rescue)")
    } catch {
      say("  could not save it elsewhere: \(error)")
    }
  case .deferred, .failed:
    break
  }
}

do {
  let document = try await Document(contentsOf: FilePath(packageArgument), options: .create)
  guard await document.isWatching else {
    fail("not watching: \(await document.watchingError?.description ?? "watching is off")")
  }
  if let edit {
    try await document.edit(named: "Edit") { try $0.setFile(at: edit.entry, contents: Data(edit.text.utf8)) }
    say("edited \(edit.entry) (unsaved)")
  }
  say("ready: watching \(await document.path)")

  let updates = await document.updates()
  let (changeLimit, seconds) = (limit, timeout)
  let seen = await withTaskGroup(of: Int?.self) { group in
    group.addTask {
      var seen = 0
      for await update in updates {
        guard let change = update.outsideChange else { continue }
        await show(change, of: document)
        seen += 1
        if seen >= changeLimit { return seen }
      }
      return seen
    }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
  say(seen.map { "done after \($0) outside changes" } ?? "timed out")

  let state = await document.state
  if await document.hasUnsavedChanges, state == .normal {
    try await document.save()
    say("saved: \(await document.path)")
  } else if state.contains(.inConflict) {
    say("left in conflict: see 'docpkg versions list \(await document.path)'")
  }
  try await document.close(saving: false)
} catch {
  fail("\(error)")
}
