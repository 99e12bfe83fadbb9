import DocumentPackage
import SystemPackage

// Example 3: two writers, one package — nothing is lost, and the conflict is resolved.
//
// Two windows (or two machines syncing a folder) open the same `.mydoc` as two `Document`s. Each
// edits, each saves with `saveMerging()`. Edits to different entries are merged; edits to the same
// lines of the same file cannot be, so the first save stays current and the second is kept as an
// unresolved *conflict version*, beside the package, until someone chooses with `resolveConflicts`.
//
//     swift run ResolveConflict /tmp/conflict-demo
//
// The documents are opened `.unwatched`, to show what saving does; a watching document (the
// default) merges the other's save as soon as it happens (see Examples/LiveDocument).

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
  print("failed: \(message)")
  exit(1)
}

func text(_ document: Document, _ path: String) async throws -> String {
  try await document.read { String(decoding: try $0.node(at: path).contents(), as: UTF8.self) }
}

func setText(_ document: Document, _ path: String, _ text: String) async throws {
  try await document.edit { try $0.setFile(at: path, contents: Data(text.utf8)) }
}

guard CommandLine.arguments.count == 2 else { fail("usage: ResolveConflict WORK-FOLDER") }
let path = FilePath(CommandLine.arguments[1]).appending("Plans.mydoc")

do {
  // A package with a shared text and a to-do list.
  let plans = try await Document.create(at: path)
  try await setText(plans, "Text.txt", "Lisbon in May.\nStay near Alfama.\n")
  try await setText(plans, "Todo.txt", "- book flights\n")
  try await plans.close()

  // 1. Different entries: Ann edits the text, Ben the to-do list. Ben's save merges Ann's in.
  let ann = try await Document(contentsOf: path, options: .unwatched)
  let ben = try await Document(contentsOf: path, options: .unwatched)
  try await setText(ann, "Text.txt", "Lisbon in May.\nStay near Alfama, by the tram.\n")
  try await setText(ben, "Todo.txt", "- book flights\n- buy a Viva Viagem card\n")
  try await ann.save()
  guard case .merged(let lineMerged) = try await ben.saveMerging(), lineMerged.isEmpty else {
    fail("Ben's save should have merged disjoint edits")
  }
  print("merged: Ben's save kept Ann's text and added his to-do")
  guard try await text(ben, "Text.txt").contains("by the tram"), try await text(ben, "Todo.txt").contains("Viva Viagem")
  else { fail("a merged edit is missing") }
  print("ok: both edits are in the package")
  try await ann.close()
  try await ben.close()

  // 2. The same line: both rewrite the first line of the text. Ann saves first and stays current;
  //    Ben's side is kept as a conflict version, and Ben's document is in conflict.
  let ann2 = try await Document(contentsOf: path, options: .unwatched)
  let ben2 = try await Document(contentsOf: path, options: .unwatched)
  try await setText(ann2, "Text.txt", "Lisbon in June.\nStay near Alfama, by the tram.\n")
  try await setText(ben2, "Text.txt", "Porto in May.\nStay near Alfama, by the tram.\n")
  try await ann2.save()
  guard case .conflict(let version, let paths) = try await ben2.saveMerging() else { fail("expected a conflict") }
  print("conflict: Ben's side of \(paths.joined(separator: ", ")) is kept as version \(version)")
  guard await ben2.state.contains(.inConflict) else { fail("Ben's document should be in conflict") }

  // 3. Anyone can see what is unresolved, and what the conflict version has that the package does not.
  let conflicts = try await ben2.unresolvedConflicts()
  guard conflicts.map(\.id) == [version] else { fail("expected one unresolved conflict, got \(conflicts.map(\.id))") }
  let differences = try await ben2.withVersionStore { store in
    try store.tree(of: version).difference(from: PackageNode(contentsOf: path)).map { "\($0.kind) \($0.path)" }
  }
  for difference in differences { print("version \(version) differs: \(difference)") }

  // 4. Resolve: Ben keeps his side (an atomic restore that keeps Ann's as a version, then marked resolved).
  try await ben2.resolveConflicts(keeping: version)
  guard try await text(ben2, "Text.txt").hasPrefix("Porto in May."), try await ben2.unresolvedConflicts().isEmpty,
    await ben2.state == .normal
  else { fail("the resolution did not take") }
  print("ok: resolved with Ben's side; no unresolved conflicts left")
  let annsText = Data("Lisbon in June.\nStay near Alfama, by the tram.\n".utf8)
  let kept = try await ben2.withVersionStore { store in
    try store.versions().contains { try store.tree(of: $0.id).nodeIfPresent(at: "Text.txt")?.contents() == annsText }
  }
  guard kept else { fail("Ann's side should still be a version") }
  print("ok: Ann's side is still kept as a version: nothing was lost")
  try await ann2.close(saving: false)
  try await ben2.close()
} catch {
  fail("\(error)")
}
