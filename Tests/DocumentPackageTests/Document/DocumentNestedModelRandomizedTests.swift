import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

/// One entry of a package as the model has it.
private enum Entry: Equatable {
  case file(String)
  case folder
}

/// A package as plain values: path inside the package (`F/H/a.txt`) → entry.
private typealias Tree = [String: Entry]

private func isAncestor(_ ancestor: String, of path: String) -> Bool {
  ancestor.isEmpty ? !path.isEmpty : path.hasPrefix(ancestor + "/")
}

/// Whether two paths are the same entry or one is inside the other.
private func related(_ a: String, _ b: String) -> Bool { a == b || isAncestor(a, of: b) || isAncestor(b, of: a) }

private func parent(of path: String) -> String {
  path.split(separator: "/").dropLast().joined(separator: "/")
}

private func depth(_ path: String) -> Int { path.isEmpty ? 0 : path.split(separator: "/").count }

private func joined(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }

extension [String: Entry] {
  /// The tree with a file at `path` holding `text`, and the folders on the way to it.
  fileprivate func settingFile(_ path: String, _ text: String) -> Tree {
    var tree = self
    var folder = parent(of: path)
    while !folder.isEmpty {
      tree[folder] = .folder
      folder = parent(of: folder)
    }
    tree[path] = .file(text)
    return tree
  }

  /// The tree without `path` and what is inside it.
  fileprivate func removing(_ path: String) -> Tree {
    filter { !related($0.key, path) || isAncestor($0.key, of: path) }
  }

  /// The tree with `path` (and what is inside it) at `newPath`.
  fileprivate func moving(_ path: String, to newPath: String) -> Tree {
    var tree = removing(path)
    for (key, entry) in self where related(key, path) && !isAncestor(key, of: path) {
      tree[newPath + key.dropFirst(path.count)] = entry
    }
    return tree
  }

  /// The paths whose entries differ between the two trees.
  fileprivate func differing(from other: Tree) -> Set<String> {
    Set(keys).union(other.keys).filter { self[$0] != other[$0] }
  }

  /// The folders, the root (`""`) first, in a fixed order.
  fileprivate var folders: [String] { [""] + keys.filter { self[$0] == .folder }.sorted() }

  fileprivate var texts: Set<String> {
    Set(values.compactMap { if case .file(let text) = $0 { text } else { nil } })
  }
}

/// What a package and the document editing it should hold, as plain values.
private struct Model {
  /// The package on disk at the document's path.
  var disk: Tree
  /// What the document shows.
  var shown: Tree
  /// What undo and redo bring back, last first.
  var undo: [Tree] = []
  var redo: [Tree] = []
  /// The paths the document changed since it last held what is on disk (a save, a reload): an
  /// outside change related to none of them is disjoint from the document's unsaved changes.
  var touched: Set<String> = []
  /// The files whose contents the document read or wrote since it last loaded the package: once
  /// the package is deleted, a save elsewhere must carry them.
  var held: Set<String> = []
  /// The folders the document listed since it last loaded the package (for the run's figures).
  var listed: Set<String> = []
  /// Whether another program removed entries since the document last changed (an edit, undo,
  /// redo, save): a deletion then could be the rest of that removal, and the document would come
  /// back to what it held before it (see `Document+OutsideChanges`, point 1).
  var removedOutside = false

  /// The document shows `next` (an edit, undo or redo).
  mutating func show(_ next: Tree) {
    removedOutside = false
    touched.formUnion(next.differing(from: shown))
    held = held.filter { next[$0] != nil && next[$0] == shown[$0] }
    shown = next
  }

  mutating func did(_ next: Tree) {
    undo.append(shown)
    redo = []
    show(next)
  }

  mutating func saved() {
    removedOutside = false
    disk = shown
    touched = []
  }

  /// The document loaded the package again, as it is on disk: clean, nothing to undo.
  mutating func reloaded() {
    shown = disk
    undo = []
    redo = []
    touched = []
    held = []
    listed = []
  }
}

/// What another program does to the package: `docpkg put` or `docpkg rm -r`.
private enum OutsideEdit {
  case put(String)
  case remove(String)

  var path: String {
    switch self {
    case .put(let path), .remove(let path): path
    }
  }

  /// The entries the change makes or removes.
  func affected(on disk: Tree) -> [String] {
    switch self {
    case .remove(let path): return disk.keys.filter { related($0, path) && !isAncestor($0, of: path) }
    case .put(let path):
      var paths = [path]
      var folder = parent(of: path)
      while !folder.isEmpty, disk[folder] == nil {
        paths.append(folder)
        folder = parent(of: folder)
      }
      return paths
    }
  }

  func applied(to tree: Tree, text: String) -> Tree {
    switch self {
    case .put(let path): tree.settingFile(path, text)
    case .remove(let path): tree.removing(path)
    }
  }

  /// Every change another program can make to `disk`, in a fixed order: a file put in each
  /// folder or in a new one (at most two deep), any entry removed.
  static func all(on disk: Tree) -> [OutsideEdit] {
    var edits: [OutsideEdit] = []
    for folder in disk.folders {
      var into = [folder]
      if depth(folder) < 2 { into += folderNames.map { joined(folder, $0) }.filter { disk[$0] == nil } }
      for target in into { edits += fileNames.map { .put(joined(target, $0)) } }
    }
    edits += disk.keys.sorted().map { .remove($0) }
    return edits
  }
}

private let fileNames = ["a.txt", "b.txt"]
private let folderNames = ["F", "G", "H"]

/// The package at `path` as the model has it.
private func treeOnDisk(_ path: String) throws -> Tree {
  var tree: Tree = [:]
  var pending = [""]
  while let folder = pending.popLast() {
    for name in try FileManager.default.contentsOfDirectory(atPath: joined(path, folder)) {
      let relative = joined(folder, name)
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isFolder)
      if isFolder.boolValue {
        tree[relative] = .folder
        pending.append(relative)
      } else {
        tree[relative] = .file(try String(contentsOfFile: path + "/" + relative, encoding: .utf8))
      }
    }
  }
  return tree
}

/// What the document shows, read through it (which lists every folder and reads every file).
private func treeShown(by document: Document) async throws -> Tree {
  try await document.read { root in
    var tree: Tree = [:]
    var pending: [(String, PackageNode)] = [("", root)]
    while let (folder, node) = pending.popLast() {
      for child in try node.sortedChildren() {
        let relative = joined(folder, child.name)
        if child.kind == .directory {
          tree[relative] = .folder
          pending.append((relative, child))
        } else {
          tree[relative] = .file(String(decoding: try child.contents(), as: UTF8.self))
        }
      }
    }
    return tree
  }
}

/// Every outside change the document published, in order (read from its updates as an app does),
/// so that a failure shows what the document reacted to and with which changes.
private final class ReactionLog: @unchecked Sendable {
  private let lock = NSLock()
  private var changes: [OutsideChange] = []

  func append(_ change: OutsideChange) { lock.withLock { changes.append(change) } }

  /// The changes numbered above `number`, one line each.
  func since(_ number: Int) -> String {
    lock.withLock { changes.filter { $0.number > number }.map { "#\($0.number) \($0)" }.joined(separator: "; ") }
  }
}

/// How often each kind of step ran (printed at the end of a run).
private struct Figures: CustomStringConvertible {
  var edits = 0, saves = 0, reloads = 0, merges = 0, conflicts = 0, deletions = 0, uncarried = 0
  var intoUnlistedFolders = 0, unreported = 0

  var description: String {
    "\(edits) edits, \(saves) saves, outside: \(reloads) reloaded, \(merges) merged, \(conflicts) conflicts "
      + "(\(intoUnlistedFolders) in folders the document had not listed), \(deletions) deletions "
      + "(\(uncarried) entries not carried), \(unreported) outside changes not reported once"
  }
}

/// A seeded run of what an app and other programs do to a document — edits in nested folders
/// (files set, folders made, entries removed and renamed), reads (some attempting a change, which
/// is refused), undo, redo, save, saveMerging, save-as; and by other processes `docpkg put` and
/// `docpkg rm` while the document is clean (reloaded) or has unsaved changes (disjoint ones
/// merged and undoable, one on a file the document changed too kept as exactly one conflict
/// version), and the package deleted (the document saved elsewhere, carrying what it read and
/// wrote and naming exactly what it could not) — checked after every step against ``Model``: what
/// the package holds, what can be undone and redone, the state, the reactions; what the document
/// shows is read at one step in five, so that outside changes also meet folders it never listed.
/// A failure names the seed, the step, the steps before it and the reactions the document
/// published during it. `make test` runs 300 steps of seeds 36 and 40 (about a minute); with
/// `DOCPKG_MODEL_NESTED=1`, 1,000 steps of seeds 36 to 40 (about two minutes, side by side), and
/// `make stress`, with `DOCPKG_STRESS=1` too, 10,000. `DOCPKG_SEEDS` and `DOCPKG_STEPS` choose others
/// (`DOCPKG_SEEDS=36,38 DOCPKG_STEPS=2000`); `DOCPKG_TRACE=1` prints each step once done, with the
/// last reaction (a step that throws is the one after the last printed).
@Suite("Document against a model with nested folders and outside changes, randomized")
struct DocumentNestedModelRandomizedTests {
  private static let environment = ProcessInfo.processInfo.environment
  /// Whether the long form runs (`DOCPKG_MODEL_NESTED=1` or `DOCPKG_STRESS=1`).
  static let isLong = environment["DOCPKG_MODEL_NESTED"] == "1" || environment["DOCPKG_STRESS"] == "1"
  /// Steps per seed: `DOCPKG_STEPS`, else 10,000 with `DOCPKG_STRESS=1`, 1,000 in the long form, 300.
  static let steps =
    environment["DOCPKG_STEPS"].flatMap { Int($0) }
    ?? (environment["DOCPKG_STRESS"] == "1" ? 10_000 : isLong ? 1_000 : 300)
  /// The seeds: those of `DOCPKG_SEEDS` (`36,38,40`), else 36 to 40 in the long form, 36 and 40.
  static let seeds: [UInt64] =
    environment["DOCPKG_SEEDS"].map { $0.split(separator: ",").compactMap { UInt64($0) } }
    ?? (isLong ? [36, 37, 38, 39, 40] : [36, 40])

  @Test(arguments: seeds)
  func aDocumentHoldsWhatTheModelSays(seed: UInt64) async throws {
    let temp = try TemporaryDirectory()
    try temp.write("P0.pkg/a.txt", "a\n")
    try temp.write("P0.pkg/F/a.txt", "Fa\n")
    try temp.write("P0.pkg/F/H/b.txt", "FHb\n")
    var path = temp.appending("P0.pkg")
    let document = try await Document(contentsOf: FilePath(path))
    let log = ReactionLog()
    let updates = await document.updates()
    let reading = Task {
      for await update in updates { if let change = update.outsideChange { log.append(change) } }
    }
    defer { reading.cancel() }
    var model = Model(disk: try treeOnDisk(path), shown: try treeOnDisk(path))
    var random = SplitMix64(seed: seed)
    var figures = Figures()
    var outsideChanges = 0
    var savesAs = 0
    var history: [String] = []  // the last steps, named in a failure
    func pick<T>(_ choices: [T]) -> T? {
      choices.isEmpty ? nil : choices[Int.random(in: 0..<choices.count, using: &random)]
    }
    for step in 0..<Self.steps {
      let roll = Int.random(in: 0..<100, using: &random)
      let reactionsBefore = await document.lastOutsideChange?.number ?? 0
      var action = ""
      let readsAll = Int.random(in: 0..<5, using: &random) == 0 || step == Self.steps - 1
      switch roll {
      case 0..<30:
        let entries = model.shown.keys.sorted()
        let kind = Int.random(in: 0..<4, using: &random)
        if kind == 0 || entries.isEmpty {
          guard let folder = pick(model.shown.folders), let name = pick(fileNames) else { continue }
          let file = joined(folder, name)
          action = "set \(file)"
          try await document.edit(named: "Set") { try $0.setFile(at: file, contents: Data("\(step)\n".utf8)) }
          model.did(model.shown.settingFile(file, "\(step)\n"))
          model.held.insert(file)
          model.listed.insert(folder)
        } else if kind == 1 {
          guard let folder = pick(model.shown.folders.filter { depth($0) < 2 }), let name = pick(folderNames),
            model.shown[joined(folder, name)] == nil
          else { continue }
          let made = joined(folder, name)
          action = "make folder \(made)"
          try await document.edit(named: "New Folder") { _ = try $0.makeDirectory(at: made) }
          var next = model.shown
          next[made] = .folder
          model.did(next)
          model.listed.formUnion([folder, made])
        } else if kind == 2 {
          let removed = pick(entries)!
          action = "remove \(removed)"
          try await document.edit(named: "Remove") { _ = try $0.removeNode(at: removed) }
          model.did(model.shown.removing(removed))
          model.listed.insert(parent(of: removed))
        } else {
          let renamed = pick(entries)!
          let names = model.shown[renamed] == .folder ? folderNames : fileNames
          let free = names.filter { model.shown[joined(parent(of: renamed), $0)] == nil }
          guard let name = pick(free) else { continue }
          let target = joined(parent(of: renamed), name)
          action = "rename \(renamed) to \(name)"
          try await document.edit(named: "Rename") { try $0.renameNode(at: renamed, to: name) }
          model.did(model.shown.moving(renamed, to: target))
          model.listed.insert(parent(of: renamed))
        }
        figures.edits += 1
      case 30..<36:
        guard let folder = pick(model.shown.folders), let name = pick(fileNames) else { continue }
        action = "read changing \(joined(folder, name)) (refused)"
        let refused = try? await document.read { root in
          _ = try root.setFile(at: joined(folder, name), contents: Data("refused\n".utf8))
          return true
        }
        #expect(refused == nil)
      case 36..<46:
        guard let previous = model.undo.popLast() else { continue }
        action = "undo"
        try await document.undo()
        model.redo.append(model.shown)
        model.show(previous)
      case 46..<52:
        guard let next = model.redo.popLast() else { continue }
        action = "redo"
        try await document.redo()
        model.undo.append(model.shown)
        model.show(next)
      case 52..<60:
        action = "save"
        try await document.save()
        model.saved()
        figures.saves += 1
      case 60..<66:
        action = "saveMerging"
        #expect(try await document.saveMerging() == .saved)
        model.saved()
        figures.saves += 1
      case 66..<69:
        savesAs += 1
        action = "save as P\(savesAs).pkg"
        path = temp.appending("P\(savesAs).pkg")
        #expect(try await document.save(to: FilePath(path)).carriedEverything)
        model.saved()
        figures.saves += 1
      case 69..<71:
        // Another program deletes the package: the document saves what it holds elsewhere.
        guard !model.removedOutside else { continue }
        action = "rm -rf, then save as"
        try Shell.run("rm", ["-rf", path])
        let deleted = await eventually { await document.state.contains(.deleted) }
        let lastChange = await document.lastOutsideChange
        #expect(
          deleted,
          "seed \(seed), step \(step): deletion not reported: \(String(describing: lastChange)), after \(history)")
        guard deleted else { break }
        outsideChanges = await document.lastOutsideChange?.number ?? 0
        savesAs += 1
        path = temp.appending("P\(savesAs).pkg")
        let result = try await document.save(to: FilePath(path))
        let carried = try treeOnDisk(path)
        let context = Comment(
          rawValue: "seed \(seed), step \(step): \(action): left out \(result.uncarriedPaths), after \(history)")
        for left in result.uncarriedPaths {
          #expect(left.isEmpty || model.shown[left] != nil, context)
        }
        for (entry, value) in model.shown {
          let leftOut = result.uncarriedPaths.contains { $0 == entry || isAncestor($0, of: entry) }
          #expect(carried[entry] == (leftOut ? nil : value), "\(entry) \(context.rawValue)")
          if model.held.contains(entry) { #expect(!leftOut, "\(entry) was read or written: \(context.rawValue)") }
        }
        #expect(Set(carried.keys).isSubset(of: model.shown.keys), context)
        figures.deletions += 1
        figures.uncarried += result.uncarriedPaths.count
        model.disk = carried
        model.reloaded()
        model.removedOutside = false
      default:
        // Another program changes the package: `docpkg put` or `docpkg rm -r`.
        let dirty = await document.hasUnsavedChanges
        if dirty && model.shown == model.disk { continue }  // changes that cancel out: no case of the model
        let all = OutsideEdit.all(on: model.disk)
        let conflicting = all.filter {
          guard case .put(let file) = $0, case .file(let mine) = model.shown[file], case .file = model.disk[file]
          else { return false }
          return model.touched.contains(file) && !model.disk.texts.contains(mine)
        }
        // A folder the document removed or moved away (another may have its name now) conflicts
        // with another writer's save that rebuilt it, changed or not (a known issue: OutsideChangeTests, "a folder the document removed").
        let movedFolders = model.touched.contains { model.disk[$0] == .folder }
        let disjoint =
          movedFolders
          ? []
          : all.filter { edit in
            edit.affected(on: model.disk).allSatisfy { path in !model.touched.contains { related($0, path) } }
          }
        let conflict = dirty && !conflicting.isEmpty && Int.random(in: 0..<3, using: &random) == 0
        guard let edit = pick(!dirty ? all : conflict ? conflicting : disjoint) else { continue }
        let text = "outside \(step)\n"
        let rootBefore = try await document.read { ObjectIdentifier($0) }
        switch edit {
        case .put(let file):
          action = "docpkg put \(file)"
          let put = try Shell.docpkg(["put", path, file], input: Data(text.utf8))
          #expect(put.status == 0, "\(put.standardError)")
        case .remove(let entry):
          action = "docpkg rm -r \(entry)"
          let removed = try Shell.docpkg(["rm", "-r", path, entry])
          #expect(removed.status == 0, "\(removed.standardError)")
        }
        action += dirty ? (conflict ? " (conflict)" : " (while dirty)") : ""
        if depth(edit.path) > 1, !model.listed.contains(parent(of: edit.path)) { figures.intoUnlistedFolders += 1 }
        outsideChanges += 1
        let expected = outsideChanges
        let reported = await eventually { await document.lastOutsideChange?.number == expected }
        let reaction = await document.lastOutsideChange?.reaction
        let context = Comment(
          rawValue: "seed \(seed), step \(step): \(action): \(String(describing: reaction)), after \(history); "
            + "reactions during the step: \(log.since(reactionsBefore))")
        model.disk = edit.applied(to: model.disk, text: text)
        guard reported else {
          // Misses had three causes, all fixed (issue 36): a put into a folder the document had
          // just saved (two causes; OutsideChangeTests, "another program's put into a folder just
          // saved"), and a put whose new folder took the inode number of an own save's entry the
          // monitor never saw (seed 45; OutsideChangeTests, "...inode number of an own save never
          // seen"); and two of seed 40: a folder made again, right after a save removed it, in the
          // inode number the save freed ("a folder made again right after a whole save..."), and a
          // copy of a folder by another program's save reported as a change, one step counted twice
          // ("a folder copied by another program's save..."). The reactions during the step are
          // printed; the run goes on from the package as it is, to find what else differs.
          Issue.record("outside change not reported once: \(context.rawValue)")
          figures.unreported += 1
          outsideChanges = await document.lastOutsideChange?.number ?? 0  // counted on from what was reported
          try await document.revert()
          model.reloaded()
          break
        }
        if !dirty {
          #expect(reaction == .reloaded, context)
          // A change only in what the document never loaded leaves its model, and what it can
          // undo and redo, as they are (on the new state); otherwise it was loaded again (a new root).
          if try await document.read({ ObjectIdentifier($0) }) == rootBefore {
            model.undo = model.undo.map { edit.applied(to: $0, text: text) }
            model.redo = model.redo.map { edit.applied(to: $0, text: text) }
            model.shown = model.disk
          } else {
            model.reloaded()
          }
          figures.reloads += 1
        } else if !conflict {
          guard case .merged = reaction else {
            Issue.record(context)
            break
          }
          // The document shows both sides; undo goes back to the outside state. (A change only in
          // what the document never loaded leaves its model and undo steps as they are: told by
          // its root, which a merge replaces, not by the undo title, which an earlier merge's
          // "Undo Unsaved Changes" can still show.)
          model.shown = edit.applied(to: model.shown, text: text)
          if try await document.read({ ObjectIdentifier($0) }) != rootBefore {
            model.undo = await document.undoMenuItemTitle == "Undo Unsaved Changes" ? [model.disk] : []
            model.redo = []
          } else {
            model.undo = model.undo.map { edit.applied(to: $0, text: text) }
            model.redo = model.redo.map { edit.applied(to: $0, text: text) }
          }
          let unsaved = model.shown.filter {
            if case .file(let text) = $0.value { !model.disk.texts.contains(text) } else { false }
          }
          model.held = Set(unsaved.keys)
          model.listed = []
          figures.merges += 1
        } else {
          guard case .conflict(let version, let paths) = reaction else {
            Issue.record(context)
            break
          }
          // One conflict, one version: the document's side; the package keeps the other's.
          #expect(paths.contains(edit.path), context)
          #expect(await document.state.contains(.inConflict), context)
          #expect(try await document.saveMerging() == .conflict(version: version, paths: paths), context)
          #expect(try await document.unresolvedConflicts().map(\.id) == [version], context)
          let onDisk = try treeOnDisk(path)
          #expect(
            onDisk == model.disk,
            "\(context.rawValue); differing: \(onDisk.differing(from: model.disk).sorted().map { "\($0): disk \(String(describing: onDisk[$0])), model \(String(describing: model.disk[$0]))" })"
          )
          let keepMine = Bool.random(using: &random)
          action += keepMine ? ", resolved keeping mine" : ", resolved keeping theirs"
          try await document.resolveConflicts(keeping: keepMine ? version : nil, removing: true)
          if keepMine { model.disk = model.shown }
          model.reloaded()
          figures.conflicts += 1
        }
        if conflict {
          model.removedOutside = false  // resolving the conflict reloaded the document
        } else if case .remove = edit {
          model.removedOutside = true
        }
      }
      let context = Comment(rawValue: "seed \(seed), step \(step): \(action), after \(history)")
      history = history.suffix(11) + ["\(step) \(action)" + (readsAll ? " (read all)" : "")]
      if Self.environment["DOCPKG_TRACE"] != nil {
        print(
          "TRACE \(seed) \(step) \(action) last=\(await document.lastOutsideChange.map { "#\($0.number) \($0)" } ?? "-")"
        )
      }
      var diverged = false
      if readsAll {
        let shown = try await treeShown(by: document)
        #expect(shown == model.shown, context)
        model.held.formUnion(model.shown.keys.filter { model.shown[$0] != .folder })
        model.listed.formUnion(model.shown.folders)
        diverged = shown != model.shown
      }
      let onDisk = try treeOnDisk(path)
      #expect(
        onDisk == model.disk,
        "\(context.rawValue); differing: \(onDisk.differing(from: model.disk).sorted().map { "\($0): disk \(String(describing: onDisk[$0])), model \(String(describing: model.disk[$0]))" })"
      )
      #expect(await document.canUndo == !model.undo.isEmpty, context)
      #expect(await document.canRedo == !model.redo.isEmpty, context)
      #expect(await document.state == .normal, context)
      if model.shown != model.disk { #expect(await document.hasUnsavedChanges, context) }
      let lastChange = await document.lastOutsideChange
      #expect(
        lastChange?.number ?? 0 == outsideChanges,
        "\(context); reactions during the step: \(log.since(reactionsBefore))")
      // The rest would only repeat a divergence.
      let state = await document.state
      if diverged || onDisk != model.disk || state != .normal { break }
    }
    print("seed \(seed), \(Self.steps) steps: \(figures)")
    try await document.close(saving: false)
  }
}
