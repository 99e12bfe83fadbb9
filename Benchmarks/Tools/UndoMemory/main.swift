import DocumentPackage
import SystemPackage

// Makes N undoable edits to a package (which holds a big file that no edit reads), undoes them
// all, redoes them all, and prints the peak RSS. With SAVE_EVERY > 0 it also saves the package
// (atomically, through PackageFile) every SAVE_EVERY edits, after undoing all and after
// redoing all. Run by Benchmarks/rows/undo.py.
//
//     undo-memory PACKAGE [EDITS [SAVE_EVERY]]
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `VmHWM` (peak resident set) from /proc/self/status, in MB.
func peakRSSMegabytes() -> Double {
  guard let file = fopen("/proc/self/status", "r") else { return .nan }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 256)
  while fgets(&line, Int32(line.count), file) != nil {
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("VmHWM:") {
      let kilobytes = text.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap {
        Double($0)
      }
      return (kilobytes ?? .nan) / 1024
    }
  }
  return .nan
}

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
  _ = try? FileDescriptor.standardError.writeAll(Array("undo-memory: \(message)\n".utf8))
  exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
  fail("usage: undo-memory PACKAGE [EDITS [SAVE_EVERY]]", status: 2)
}
let edits = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let saveEvery = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0

do {
  let document = try PackageFile(at: FilePath(arguments[1]))
  let editor = PackageEditor(root: document.root)
  /// Saves as `Document` does (the save tells the editor: undo survives it, the stack is clean).
  func save() throws {
    guard saveEvery > 0 else { return }
    try document.save()
  }
  editor.undoStack.coalescingInterval = .zero  // every edit its own step: the worst case for memory
  var text = ""
  for index in 0..<edits {
    switch index % 5 {
    case 0:
      text += "Line \(index) of the note, typed by someone.\n"
      try editor.root.setFile(at: "Text.txt", contents: Data(text.utf8))
    case 1:
      try editor.root.moveNode(
        at: index % 10 == 1 ? "Big.bin" : "Archive/Big.bin", to: index % 10 == 1 ? "Archive/Big.bin" : "Big.bin")
    case 2:
      try editor.root.setPermissions(FilePermissions(rawValue: index % 10 == 2 ? 0o600 : 0o644), at: "Text.txt")
    case 3:
      try editor.root.setFile(at: "Pages/\(index).txt", contents: Data("page \(index)".utf8))
    default:
      try editor.root.renameNode(
        at: index % 10 == 4 ? "Images/tram.png" : "Images/bus.png", to: index % 10 == 4 ? "bus.png" : "tram.png")
    }
    if saveEvery > 0, (index + 1) % saveEvery == 0 { try save() }
  }
  let steps = editor.undoStack.undoCount
  while editor.undoStack.canUndo { try editor.undoStack.undo() }
  try save()
  while editor.undoStack.canRedo { try editor.undoStack.redo() }
  try save()
  let big = try editor.root.nodeIfPresent(at: "Big.bin") ?? editor.root.node(at: "Archive/Big.bin")
  print("edits: \(edits), undo steps: \(steps), big file read: \(big.isLoaded), peak RSS: \(peakRSSMegabytes()) MB")
  if big.isLoaded {
    fail("error: the big file was read")
  }
} catch {
  fail("error: \(error)")
}
