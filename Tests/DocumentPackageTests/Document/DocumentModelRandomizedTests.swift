import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// What a package and the document editing it should hold, as plain values: file name → text.
private struct Model {
  /// The package on disk at the document's path.
  var disk: [String: String]
  /// What the document shows.
  var shown: [String: String]
  /// What undo and redo bring back, last first.
  var undo: [[String: String]] = []
  var redo: [[String: String]] = []

  mutating func did(_ next: [String: String]) {
    undo.append(shown)
    redo = []
    shown = next
  }
}

/// The files of the package at `path`, as the model has them.
private func filesOnDisk(_ path: String) throws -> [String: String] {
  var files: [String: String] = [:]
  for name in try FileManager.default.contentsOfDirectory(atPath: path) {
    files[name] = try String(contentsOfFile: path + "/" + name, encoding: .utf8)
  }
  return files
}

/// A seeded run of what an app and another program do to a document — edits, reads (some
/// attempting a change, which is refused), undo, redo, save, saveMerging, save-as, and `docpkg
/// put`s by another process — checked after every step against ``Model``: what the document
/// shows, what the package holds, what can be undone and redone, the state. A failure names the
/// seed and the step. `DOCPKG_STRESS=1` (`make stress`) runs many more steps.
@Suite("Document against a model, randomized")
struct DocumentModelRandomizedTests {
  static let steps = ProcessInfo.processInfo.environment["DOCPKG_STRESS"] == "1" ? 10_000 : 1_000

  @Test(arguments: [36, 37] as [UInt64])
  func aDocumentHoldsWhatTheModelSays(seed: UInt64) async throws {
    let temp = try TemporaryDirectory()
    try temp.write("P0.pkg/a.txt", "a\n")
    try temp.write("P0.pkg/b.txt", "b\n")
    var path = temp.appending("P0.pkg")
    let document = try await Document(contentsOf: FilePath(path))
    var model = Model(disk: try filesOnDisk(path), shown: try filesOnDisk(path))
    var random = SplitMix64(seed: seed)
    let names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    var outsideChanges = 0
    var savesAs = 0
    var recent: [String] = []
    for step in 0..<Self.steps {
      let name = names.randomElement(using: &random)!
      let roll = Int.random(in: 0..<100, using: &random)
      var action = ""
      switch roll {
      case 0..<36:
        var next = model.shown
        let free = names.filter { model.shown[$0] == nil }
        if model.shown[name] == nil || roll < 18 {
          action = "set \(name)"
          next[name] = "\(step)\n"
          try await document.edit(named: "Set") { try $0.setFile(at: name, contents: Data("\(step)\n".utf8)) }
        } else if roll < 27 || free.isEmpty {
          action = "remove \(name)"
          next[name] = nil
          try await document.edit(named: "Remove") { try $0.removeNode(at: name) }
        } else {
          let target = free[Int.random(in: 0..<free.count, using: &random)]
          action = "rename \(name) to \(target)"
          next[target] = next.removeValue(forKey: name)
          try await document.edit(named: "Rename") { try $0.renameNode(at: name, to: target) }
        }
        model.did(next)
      case 36..<44:
        action = "read changing \(name) (refused)"
        let refused = try? await document.read { root in
          _ = try root.setFile(at: name, contents: Data("refused\n".utf8))
          return true
        }
        #expect(refused == nil)
      case 44..<56:
        guard let previous = model.undo.popLast() else { continue }
        action = "undo"
        try await document.undo()
        model.redo.append(model.shown)
        model.shown = previous
      case 56..<64:
        guard let next = model.redo.popLast() else { continue }
        action = "redo"
        try await document.redo()
        model.undo.append(model.shown)
        model.shown = next
      case 64..<74:
        action = "save"
        try await document.save()
        model.disk = model.shown
      case 74..<82:
        action = "saveMerging"
        #expect(try await document.saveMerging() == .saved)
        model.disk = model.shown
      case 82..<86:
        savesAs += 1
        action = "save as P\(savesAs).pkg"
        path = temp.appending("P\(savesAs).pkg")
        #expect(try await document.save(to: FilePath(path)).carriedEverything)
        model.disk = model.shown
      default:
        // Another program changes the package while the document has nothing unsaved: it shows the new state.
        guard await !document.hasUnsavedChanges else { continue }
        action = "docpkg put \(name)"
        let put = try Shell.docpkg(["put", path, name], input: Data("outside \(step)\n".utf8))
        #expect(put.status == 0, "\(put.standardError)")
        outsideChanges += 1
        let expected = outsideChanges
        let reported = await eventually { await document.lastOutsideChange?.number == expected }
        let last = await document.lastOutsideChange
        #expect(
          reported, "step \(step) \(action) expected \(expected): \(String(describing: last)) \(last?.number ?? 0)")
        #expect(await document.lastOutsideChange?.reaction == .reloaded)
        model.disk[name] = "outside \(step)\n"
        model.shown = model.disk
        model.undo = []
        model.redo = []
      }
      let context = Comment(rawValue: "seed \(seed), step \(step): \(action)")
      let shown = try await document.read { root in
        try root.sortedChildren().map { ($0.name, String(decoding: try $0.contents(), as: UTF8.self)) }
      }
      #expect(Dictionary(uniqueKeysWithValues: shown) == model.shown, context)
      #expect(try filesOnDisk(path) == model.disk, context)
      #expect(await document.canUndo == !model.undo.isEmpty, context)
      #expect(await document.canRedo == !model.redo.isEmpty, context)
      #expect(await document.state == .normal, context)
      if model.shown != model.disk { #expect(await document.hasUnsavedChanges, context) }
      // A change counted that no put made says what it held and what came before it (seen once under load).
      recent = Array((recent + [action]).suffix(6))
      let last = await document.lastOutsideChange
      #expect(last?.number ?? 0 == outsideChanges, "\(context): \(String(describing: last)) after \(recent)")
      if Dictionary(uniqueKeysWithValues: shown) != model.shown { break }  // the rest would only repeat it
    }
    try await document.close(saving: false)
  }
}
