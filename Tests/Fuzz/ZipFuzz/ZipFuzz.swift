import DocumentPackage
import FuzzSupport
import SystemPackage

@testable import DocumentArchive

/// libFuzzer's entry: one input, written to `input.zip`, read by every zip reading path of `docpkg`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  ZipFuzz.run(FilePath(FuzzInput.file(FuzzInput.bytes(data, size), named: "input.zip")))
  return 0
}

/// The zip readers on one input, as `docpkg` runs them, and what they must agree on.
///
/// - `unpack`'s totals (`ZipCentralDirectory.totals`);
/// - `inspect --depth 1` (`ArchivePackage.zipTopLevel`), whose totals must be the full tree's;
/// - `inspect`, `diff`, `pack` (`PackageNode.open(location:)`: the central-directory tree or libarchive's),
///   every file read;
/// - `cat` (`ArchivePackage.zipFileContents`), for the tree's files: the same bytes, or an error where the
///   tree's read fails too;
/// - `inspect` of a refused archive (`ArchiveListing`, libarchive): when the central-directory tree is used,
///   libarchive must list the same entries, none refused, with the same kinds, sizes and modes.
enum ZipFuzz {
  /// The most bytes read from one input's files (a few KB of deflate can declare and make megabytes).
  static let readBudget = FuzzRead.budget
  /// The most files `cat` is tried on per input.
  static let catLimit = 16

  static func run(_ path: FilePath) {
    _ = ZipCentralDirectory.totals(path: path.string)
    let top = ArchivePackage.zipTopLevel(of: path)
    if let top { readTopLevel(top) }
    guard let tree = try? PackageNode.open(location: path.string) else { return }
    var budget = readBudget
    guard let walked = try? WalkedTree(tree, budget: &budget) else { return }
    if let top { compare(top, walked) }
    for (entry, expected) in walked.files.prefix(catLimit) { compareCat(entry, expected, in: path) }
    if let fast = ArchivePackage.zipTree(of: path, unwrappingSingleDirectory: false) {
      compareListing(fast, path)
    }
  }

  /// The top level's own children, read as `inspect` and `cat` of them would.
  private static func readTopLevel(_ top: ArchiveTopLevel) {
    var budget = readBudget
    guard let children = try? top.root.sortedChildren() else { return }
    for child in children where child.kind == .file {
      _ = try? FuzzRead.read(child, budget: &budget)
    }
  }

  /// `inspect --depth 1`'s totals are the whole tree's, and its children are the tree's top level.
  private static func compare(_ top: ArchiveTopLevel, _ walked: WalkedTree) {
    if top.files != walked.fileCount || top.directories != walked.directoryCount || top.bytes != walked.bytes {
      fuzzFailure(
        "zipTopLevel totals \(top.files) files, \(top.directories) directories, \(top.bytes) bytes; "
          + "the tree has \(walked.fileCount), \(walked.directoryCount), \(walked.bytes)")
    }
    let topNames = (try? top.root.sortedChildren().map { "\($0.name) \($0.kind)" }) ?? []
    if topNames != walked.topLevel {
      fuzzFailure("zipTopLevel lists \(topNames); the tree's top level is \(walked.topLevel)")
    }
  }

  /// `cat ARCHIVE ENTRY` reads what the tree reads.
  private static func compareCat(_ entry: String, _ read: FuzzRead, in archive: FilePath) {
    let expected: [UInt8]?
    var treeError = ""
    switch read {
    case .bytes(let bytes): expected = bytes
    case .failed(let error):
      expected = nil
      treeError = error
    case .skipped: return
    }
    let source: (any FileContentSource)?
    do { source = try ArchivePackage.zipFileContents(at: entry, in: archive) } catch {
      if expected != nil { fuzzFailure("cat \(entry) throws \(error); the tree reads it") }
      return
    }
    guard let source, source.size <= readBudget else { return }
    var bytes: [UInt8] = []
    do {
      try source.read(chunkSize: 1 << 16) { bytes += $0 }
    } catch {
      if expected != nil { fuzzFailure("cat \(entry) fails: \(error); the tree reads it") }
      return
    }
    guard let expected else {
      // The tree reads the archive in order: damage in an earlier entry's data (its CRC) stops it there, while
      // `cat` reads only its entry. Not a disagreement about this entry.
      let name = entry.split(separator: "/").last.map(String.init) ?? entry
      if treeError.contains("of entry '"), !treeError.contains("/\(name)'"), !treeError.contains("'\(name)'") { return }
      fuzzFailure("cat \(entry) reads \(bytes.count) bytes; the tree fails to read it: \(treeError)")
    }
    if bytes != expected {
      fuzzFailure("cat \(entry) reads \(bytes.count) bytes; the tree reads \(expected.count) other bytes")
    }
  }

  /// The central-directory tree stands in for libarchive's only when libarchive sees the same entries.
  private static func compareListing(_ fast: PackageNode, _ archive: FilePath) {
    let listed: [ArchiveListingEntry]
    do { listed = try ArchiveListing.entries(of: archive) } catch {
      fuzzFailure("the central-directory tree was built, but libarchive's listing throws \(error)")
    }
    for entry in listed {
      if let refused = entry.refused {
        fuzzFailure("the central-directory tree was built, but libarchive refuses \(entry.path): \(refused)")
      }
      guard let node = try? fast.node(at: entry.path) else {
        fuzzFailure("libarchive lists \(entry.path) (\(entry.kind)); the central-directory tree has no such node")
      }
      switch entry.kind {
      case .file:
        if node.kind != .file || node.size != entry.size ?? 0
          || node.permissions.rawValue & 0o7777 != CInterop.Mode(entry.mode & 0o7777)
        {
          fuzzFailure(
            "libarchive lists \(entry.path) as a file of \(entry.size ?? -1) bytes, mode \(entry.mode); the tree has "
              + "a \(node.kind) of \(node.kind == .file ? node.size : -1) bytes, mode \(node.permissions.rawValue)")
        }
      case .directory:
        if node.kind != .directory {
          fuzzFailure("libarchive lists \(entry.path) as a directory; the tree: \(node.kind)")
        }
      default:
        fuzzFailure("libarchive lists \(entry.path) as \(entry.kind); the central-directory tree was built")
      }
    }
  }
}
