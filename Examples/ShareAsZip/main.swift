import DocumentArchive
import DocumentPackage
import SystemPackage

// Example 2: share a document package as a zip, and check that it survives the trip.
//
// A package is a folder, and folders do not survive mail or most file-sharing services. The
// example packs a package into a zip, unpacks that zip somewhere else (as the person receiving
// it would), and asks the diff API what changed on the way: nothing must have. It also reads the
// zip in place, without extracting it, as `docpkg inspect`, `cat` and `diff` do.
//
//     swift run ShareAsZip Fixtures/Notes.mydoc /tmp/share-demo

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Stops with a message, as an app would show an alert.
func fail(_ message: String) -> Never {
  print("failed: \(message)")
  exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: ShareAsZip PACKAGE WORK-FOLDER") }
let packagePath = FilePath(arguments[1])
let work = FilePath(arguments[2])

do {
  // 1. Open the package. Only its root is read now; packing reads the rest as it goes.
  let package = try PackageNode(contentsOf: packagePath)

  // 2. Pack it. The package folder becomes the zip's top-level entry, as Finder's "Compress" does.
  let zip = work.appending("\(package.name).zip")
  try ArchivePacker.pack(package, to: zip, options: PackOptions(format: .zip))
  print("packed \(package.name) into \(zip.lastComponent!)")

  // 3. The receiver unpacks it into their own folder. Unpacking is atomic and refuses unsafe
  //    archives (paths escaping the folder, links pointing out of it, bombs), naming the entry.
  let received = work.appending("Received")
  _ = mkdir(received.string, 0o755)
  let created = try ArchiveUnpacker.unpack(zip, into: received)
  print("unpacked \(created.joined(separator: ", ")) into Received/")

  // 4. Compare: the unpacked copy against the original: kinds, sizes, contents, permissions and
  //    link targets (not modification times, unless asked: zip keeps them only to the second).
  let unpacked = try PackageNode(contentsOf: received.appending(created[0]))
  let original = try PackageNode(contentsOf: packagePath)
  let roundTrip = try unpacked.difference(from: original)
  guard roundTrip.isEmpty else { fail("the round trip changed \(roundTrip.map(\.path))") }
  print("ok: the unpacked copy is identical to the original")

  // 5. Read the zip in place: a PackageNode tree backed by the archive, read in one pass.
  let inPlace = try ArchivePackage.open(zip)
  var firstFile: String?
  try inPlace.walk { node, path, _ in
    if firstFile == nil, node.kind == .file { firstFile = path }
    return firstFile == nil
  }
  guard let firstFile else { fail("the package has no file to read") }
  let bytes = try inPlace.node(at: firstFile).contents()
  print("ok: read \(firstFile) from inside the zip (\(bytes.count) bytes) without extracting it")
  guard try inPlace.difference(from: PackageNode(contentsOf: packagePath)).isEmpty else {
    fail("the zip read in place differs from the original")
  }
  print("ok: the zip, read in place, matches the original")

  // 6. The receiver edits their copy; the diff says exactly what they changed.
  try unpacked.setFile(at: firstFile, contents: Data("Edited by the receiver.\n".utf8))
  let edits = try unpacked.difference(from: PackageNode(contentsOf: packagePath))
  for change in edits { print("changed by the receiver: \(change.kind) \(change.path)") }
} catch {
  fail("\(error)")
}
