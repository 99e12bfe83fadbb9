import DocumentPackage
// One writer and any number of readers of one package, in separate processes, for the
// coordinated-reading test (Tests/docpkgTests/CoordinatedReadingTests.swift) and benchmark
// (Benchmarks/rows/coordination.py).
//
//     read-write-stress init PACKAGE FILES      a package whose generation files all say 0
//     read-write-stress write PACKAGE SAVES [LIMIT_MS]
//                                               SAVES saves, save g setting every generation file to g;
//                                               each waits for readers at most LIMIT_MS (default 10 s)
//     read-write-stress read PACKAGE STOPFILE [--uncoordinated]
//                                               reads in a loop until STOPFILE exists (or its folder is gone)
//
// Generation files: Data/A/gen.txt, Data/B/gen.txt, Data/C/x/gen.txt hold g; markers Data/A/gen-g
// and Data/B/gen-g are renamed along; Index.txt holds g rounded down to even (even saves change the
// root's own entries, so they exchange the whole package; odd ones only Data/, and every fourth
// save, 3, 7, ..., replaces Data/ by a new directory, which is renamed into the live root as one
// root entry replaced). Each of A, B, C holds FILES other files. `write` and `read` print one JSON line of counts; `read` exits 1 if
// any read mixed two generations or failed.
import Foundation
import SystemPackage

let generationFiles = ["Data/A/gen.txt", "Data/B/gen.txt", "Data/C/x/gen.txt"]
let markerDirectories = ["Data/A", "Data/B"]

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("read-write-stress: \(message)\n".utf8))
  exit(2)
}

func makePackage(_ path: String, files: Int) throws {
  let root = try PackageNode(directoryWithChildren: [:])
  try root.setFile(at: "Index.txt", contents: Data("0".utf8))
  try addData(to: root, generation: 0, files: files)
  _ = try PackageFile.create(at: FilePath(path), root: root)
}

/// Data/ of generation `generation` in `root`, which has none.
func addData(to root: PackageNode, generation: Int, files: Int) throws {
  for file in generationFiles { try root.setFile(at: file, contents: Data("\(generation)".utf8)) }
  for directory in markerDirectories { try root.setFile(at: "\(directory)/gen-\(generation)", contents: Data()) }
  for directory in ["Data/A", "Data/B", "Data/C"] {
    for index in 0..<files {
      try root.setFile(at: "\(directory)/f\(index).txt", contents: Data(String(repeating: "x", count: 100).utf8))
    }
  }
}

func write(_ path: String, saves: Int) throws {
  let package = try PackageFile(at: FilePath(path), options: .holdLock)
  package.versionPolicy = .none
  var generation = Int(String(decoding: try package.root.node(at: "Index.txt").contents(), as: UTF8.self)) ?? 0
  for file in generationFiles {
    generation = max(generation, Int(String(decoding: try package.root.node(at: file).contents(), as: UTF8.self))!)
  }
  var errors = 0
  let start = ContinuousClock.now
  for _ in 0..<saves {
    let next = generation + 1
    for file in generationFiles { try package.root.setContents(Data("\(next)".utf8), at: file) }
    for directory in markerDirectories {
      try package.root.renameNode(at: "\(directory)/gen-\(generation)", to: "gen-\(next)")
    }
    if next % 2 == 0 { try package.root.setContents(Data("\(next)".utf8), at: "Index.txt") }
    if next % 4 == 3 {
      let files = try package.root.node(at: "Data/C").children().count - 1  // all but x/
      _ = try package.root.removeNode(at: "Data")
      try addData(to: package.root, generation: next, files: files)
    }
    do {
      try package.save()
      generation = next
    } catch {
      errors += 1
      FileHandle.standardError.write(Data("read-write-stress: save \(next): \(error)\n".utf8))
      try package.root.read()  // back to what is on disk
    }
  }
  let seconds =
    Double((ContinuousClock.now - start).components.attoseconds) / 1e18
    + Double((ContinuousClock.now - start).components.seconds)
  let rate = Double(saves - errors) / seconds
  print("{\"saves\":\(saves - errors),\"errors\":\(errors),\"seconds\":\(seconds),\"savesPerSecond\":\(rate)}")
}

/// One read of the whole package: the generations it saw, or a description of the mix.
func readOnce(_ root: PackageNode) throws -> String? {
  var seen: [String: Int] = [:]
  for file in generationFiles {
    seen[file] = Int(String(decoding: try root.node(at: file).contents(), as: UTF8.self)) ?? -1
  }
  for directory in markerDirectories {
    let markers = try root.node(at: directory).sortedChildren().map(\.name).filter { $0.hasPrefix("gen-") }
    guard markers.count == 1 else { return "\(directory) holds markers \(markers)" }
    seen[directory + "/gen-N"] = Int(markers[0].dropFirst(4)) ?? -1
  }
  var files = 0
  func walk(_ node: PackageNode) throws {
    for child in try node.sortedChildren() {
      if child.kind == .directory { try walk(child) } else { files += 1 }
    }
  }
  try walk(root)
  let index = Int(String(decoding: try root.node(at: "Index.txt").contents(), as: UTF8.self))
  let generations = Set(seen.values)
  guard generations.count == 1, let generation = generations.first else {
    return "mixed \(seen.sorted { $0.key < $1.key })"
  }
  guard index == generation - generation % 2 else { return "generation \(generation) with Index.txt \(index ?? -1)" }
  return nil
}

func read(_ path: String, stopFile: String, coordinated: Bool) -> Int32 {
  var reads = 0
  var torn = 0
  var errors = 0
  // Stops when STOPFILE exists, or when its folder is gone: a test that failed before making it removes its
  // temporary folder, and a reader left looping would outlive the test run.
  let folder = URL(fileURLWithPath: stopFile).deletingLastPathComponent().path
  while !FileManager.default.fileExists(atPath: stopFile) && FileManager.default.fileExists(atPath: folder) || reads == 0 {
    reads += 1
    do {
      let mixed =
        coordinated
        ? try PackageNode.reading(contentsOf: FilePath(path)) { try readOnce($0) }
        : try readOnce(PackageNode(contentsOf: FilePath(path)))
      if let mixed {
        torn += 1
        FileHandle.standardError.write(Data("read-write-stress: torn read: \(mixed)\n".utf8))
      }
    } catch {
      errors += 1
      FileHandle.standardError.write(Data("read-write-stress: read failed: \(error)\n".utf8))
    }
  }
  print("{\"reads\":\(reads),\"torn\":\(torn),\"errors\":\(errors)}")
  return torn + errors == 0 ? 0 : 1
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: init PACKAGE FILES | write PACKAGE SAVES | read PACKAGE STOPFILE") }
do {
  switch arguments[1] {
  case "init": try makePackage(arguments[2], files: Int(arguments[3]) ?? 100)
  case "write":
    if arguments.count > 4, let limit = Int(arguments[4]) { PackageReadLock.writerWaitLimit = .milliseconds(limit) }
    try write(arguments[2], saves: Int(arguments[3]) ?? 100)
  case "read": exit(read(arguments[2], stopFile: arguments[3], coordinated: !arguments.contains("--uncoordinated")))
  default: fail("unknown command '\(arguments[1])'")
  }
} catch {
  fail("\(error)")
}
