import DocumentPackage
import SystemPackage

// Opens a package as a `Document`, sets one file's contents, saves and closes: an app's whole
// open-edit-save of one file, for Benchmarks/rows/flat.py (issue 40: its cost must not grow with
// the files the package holds).
//
//     document-edit PACKAGE ENTRY TEXT [--watched] [--versions none]
//
// The file gets TEXT and the time (so that each run changes it).
// Unwatched by default (`Document.Options.unwatched`): watching is a cost of its own, one inotify
// watch per directory the model lists. The default version policy keeps the state the save
// replaced, and `close()` waits for its settle, which walks the whole package (its own row in
// flat.py); `--versions none` measures the open-edit-save alone, as `put --versions none` does.
// Exits 1 with the error on standard error.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
  var line = "document-edit: \(message)\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  exit(status)
}

let arguments = CommandLine.arguments
var flags = arguments.dropFirst(4)
var watched = false
var keepsNoVersions = false
while let flag = flags.popFirst() {
  switch flag {
  case "--watched": watched = true
  case "--versions" where flags.popFirst() == "none": keepsNoVersions = true
  default: fail("usage: document-edit PACKAGE ENTRY TEXT [--watched] [--versions none]", status: 2)
  }
}
guard arguments.count >= 4 else {
  fail("usage: document-edit PACKAGE ENTRY TEXT [--watched] [--versions none]", status: 2)
}
let (package, entry, text) = (arguments[1], arguments[2], arguments[3])
do {
  let document = try await Document(contentsOf: FilePath(package), options: watched ? [] : .unwatched)
  if keepsNoVersions { await document.setVersionPolicy(.none) }
  try await document.edit(named: "Edit") { root in
    try root.setContents(Data("\(text) \(ContinuousClock.now)\n".utf8), at: entry)
  }
  try await document.save()
  try await document.close(saving: false)
} catch {
  fail("\(error)", status: 1)
}
