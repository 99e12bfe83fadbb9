import DocumentPackage
import SystemPackage

// Example 3: two writers, one package — nothing is lost, and the conflict is resolved.
//
// Two windows (or two machines syncing a folder) open the same `.mydoc`. Each edits, each saves.
// Edits to different entries are merged; edits to the same lines of the same file cannot be, so
// the first save stays current and the second is kept as an unresolved *conflict version*, beside
// the package, until someone chooses.
//
//     swift run ResolveConflict /tmp/conflict-demo

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

func text(_ document: PackageFile, _ path: String) throws -> String {
  String(decoding: try document.root.node(at: path).contents(), as: UTF8.self)
}

guard CommandLine.arguments.count == 2 else { fail("usage: ResolveConflict WORK-FOLDER") }
let path = FilePath(CommandLine.arguments[1]).appending("Plans.mydoc")

do {
  // A package with a shared text and a to-do list.
  let root = try PackageNode(directoryWithChildren: [:])
  try root.setFile(at: "Text.txt", contents: Data("Lisbon in May.\nStay near Alfama.\n".utf8))
  try root.setFile(at: "Todo.txt", contents: Data("- book flights\n".utf8))
  try PackageFile.create(at: path, root: root).close()

  // 1. Different entries: Ann edits the text, Ben the to-do list. Ben's save merges Ann's in.
  let ann = try PackageFile(at: path)
  let ben = try PackageFile(at: path)
  try ann.root.setFile(at: "Text.txt", contents: Data("Lisbon in May.\nStay near Alfama, by the tram.\n".utf8))
  try ben.root.setFile(at: "Todo.txt", contents: Data("- book flights\n- buy a Viva Viagem card\n".utf8))
  try ann.save()
  guard case .merged(let lineMerged) = try ben.saveMerging(), lineMerged.isEmpty else {
    fail("Ben's save should have merged disjoint edits")
  }
  print("merged: Ben's save kept Ann's text and added his to-do")
  let check = try PackageFile(at: path)
  guard try text(check, "Text.txt").contains("by the tram"), try text(check, "Todo.txt").contains("Viva Viagem") else {
    fail("a merged edit is missing")
  }
  print("ok: both edits are in the package")

  // 2. The same line: both rewrite the first line of the text. Ann saves first and stays current;
  //    Ben's side is kept as a conflict version, and Ben is told.
  let ann2 = try PackageFile(at: path)
  let ben2 = try PackageFile(at: path)
  try ann2.root.setFile(at: "Text.txt", contents: Data("Lisbon in June.\nStay near Alfama, by the tram.\n".utf8))
  try ben2.root.setFile(at: "Text.txt", contents: Data("Porto in May.\nStay near Alfama, by the tram.\n".utf8))
  try ann2.save()
  guard case .conflict(let version, let paths) = try ben2.saveMerging() else { fail("expected a conflict") }
  print("conflict: Ben's side of \(paths.joined(separator: ", ")) is kept as version \(version)")

  // 3. Anyone can see what is unresolved, and what the conflict version has that the package does not.
  let reviewer = try PackageFile(at: path)
  let conflicts = try reviewer.unresolvedConflicts()
  guard conflicts.map(\.id) == [version] else { fail("expected one unresolved conflict, got \(conflicts.map(\.id))") }
  let bensSide = try reviewer.versionStore().tree(of: version)
  for change in try bensSide.difference(from: reviewer.root) {
    print("version \(version) differs: \(change.kind) \(change.path)")
  }

  // 4. Resolve: keep Ben's side (an atomic restore that keeps Ann's as a version), mark it resolved.
  try reviewer.resolveConflicts(keeping: version)
  let final = try PackageFile(at: path)
  guard try text(final, "Text.txt").hasPrefix("Porto in May."), try final.unresolvedConflicts().isEmpty else {
    fail("the resolution did not take")
  }
  print("ok: resolved with Ben's side; no unresolved conflicts left")
  let store = try final.versionStore()
  let annsText = Data("Lisbon in June.\nStay near Alfama, by the tram.\n".utf8)
  let kept = try store.versions().contains { try store.tree(of: $0.id).node(at: "Text.txt").contents() == annsText }
  guard kept else { fail("Ann's side should still be a version") }
  print("ok: Ann's side is still kept as a version: nothing was lost")
} catch {
  fail("\(error)")
}
