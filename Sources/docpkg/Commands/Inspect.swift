import ArgumentParser
import DocPkgCommandLine
import DocumentArchive
import DocumentPackage
import SystemPackage

/// `docpkg inspect PATH`: the package as a tree, then totals.
struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Show a package's tree with kind, size and mode of each entry, then totals.",
    discussion: """
      Totals count the whole package, even when --depth limits what is listed. \
      --json prints {"entries":[{"kind","mode","path","size","target"}],"files","directories","symlinks","bytes"} \
      with paths relative to the package root; the root itself is not an entry. \
      An archive with entries that unpack would refuse is listed flat, every entry in archive order, each refused \
      one marked "[refused: REASON]" (in --json, a "refused" field; special files have kind "special" and a \
      "special" field naming the kind).
      """
  )

  @Argument(help: "The package to inspect.", completion: .file())
  var path: String

  @OptionGroup var jsonOption: JSONOption
  private var json: Bool { jsonOption.json }

  // Unconditional: `--depth -1` is a depth (refused by validate()), not a missing value followed by an option `-1`.
  @Option(
    parsing: .unconditional,
    help: "List entries at most this deep (1: only the root's children). Totals still count everything.")
  var depth: Int?

  func validate() throws {
    if let depth, depth < 0 { throw ValidationError("--depth must be 0 or more") }
  }

  /// Whether `path` names an archive file rather than a package directory.
  private static func isArchive(_ path: String) -> Bool {
    guard let node = try? PackageNode(contentsOf: FilePath(path)), node.kind == .file else { return false }
    return ArchiveFormat(contentsOf: FilePath(path)) != nil
  }

  func run() throws {
    // The top level of a zip: from its central directory, without building the archive's tree.
    if let depth, depth <= 1, let top = ArchivePackage.zipTopLevel(of: FilePath(path)) {
      try list(top.root, totals: Totals(files: top.files, directories: top.directories, bytes: top.bytes))
      return
    }
    let root: PackageNode
    do {
      root = try openPackage(path)
      if root.kind != .directory {
        throw PackageError(
          .notADirectory, "not a package or an archive:", path: path,
          context: "(it is a \(root.kind == .file ? "file" : "symbolic link"), not a directory, a zip or a tar)")
      }
    } catch {
      // An archive with entries unpack would refuse: list every entry, marking those.
      guard Self.isArchive(path),
        let listed = try? ArchiveListing.entries(of: FilePath(path)), listed.contains(where: { $0.refused != nil })
      else { throw error }
      ArchiveListingPrinter(json: json, depth: depth).print(listed)
      return
    }
    try list(root)
  }

  /// Prints `root`'s tree within `--depth`, then the totals: those counted on the way, or `totals`.
  private func list(_ root: PackageNode, totals known: Totals? = nil) throws {
    _ = try root.sortedChildren()  // fail before writing anything if the package cannot be listed
    var listing = Listing(json: json, depth: depth)
    if json {
      listing.out.write("{\"entries\":[")
    } else {
      writeLine(for: root, prefix: "", connector: "", to: listing.out)
    }
    try visitChildren(of: root, path: "", level: 1, prefix: "", into: &listing)
    let totals = known ?? listing.totals
    if json {
      listing.out.write("\n],\"files\":\(totals.files),\"directories\":\(totals.directories),")
      listing.out.write("\"symlinks\":\(totals.symlinks),\"bytes\":\(totals.bytes)}\n")
    } else {
      listing.out.write("\n\(totals.summary)\n")
    }
  }

  private struct Listing {
    let json: Bool
    let depth: Int?
    let out = StandardOutput.shared
    var totals = Totals()
    var first = true
  }

  /// How many subdirectories of one directory are listed at once, ahead of the walk, on every core
  /// (`lstat`s dominate a listing of small files): what the walk holds beyond the directories on its way.
  private static let listedAhead = 16

  /// Counts every entry below `directory`, and prints those within `--depth`, as it walks: each
  /// directory's listing is dropped once its entries are printed (``PackageNode/forgetListing()``),
  /// so the memory taken is that of the directories on the way down and the few listed ahead, not of
  /// the package (a million files: tens of MiB, not hundreds).
  ///
  /// With an explicit stack of the directories on the way down, not recursion: the package chooses
  /// its depth. A directory below `--depth` keeps no path or prefix, so counting a deep package
  /// costs memory for its depth, not for its depth's square.
  private func visitChildren(
    of directory: PackageNode, path: String, level: Int, prefix: String, into listing: inout Listing
  ) throws {
    struct Level {
      let directory: PackageNode
      let children: [PackageNode]
      var index = 0
      /// The children before this index were listed ahead already (or are no directories).
      var listedUpTo = 0
      let path: String
      let level: Int
      let prefix: String
    }
    var stack = [
      Level(directory: directory, children: try directory.sortedChildren(), path: path, level: level, prefix: prefix)
    ]
    while !stack.isEmpty {
      let top = stack.count - 1
      guard stack[top].index < stack[top].children.count else {
        stack.removeLast().directory.forgetListing()
        continue
      }
      let (children, index) = (stack[top].children, stack[top].index)
      stack[top].index += 1
      let (path, level, prefix) = (stack[top].path, stack[top].level, stack[top].prefix)
      let child = children[index]
      listing.totals.count(child)
      let shown = listing.depth.map { level <= $0 } ?? true
      let childPath = shown ? (path.isEmpty ? child.byteExactName : path + "/" + child.byteExactName) : ""
      let isLast = index == children.count - 1
      if shown {
        if listing.json {
          listing.out.write(listing.first ? "\n" : ",\n")
          listing.first = false
          listing.out.writeJSON(EntrySummary(child, path: childPath))
        } else {
          writeLine(for: child, prefix: prefix, connector: isLast ? "└── " : "├── ", to: listing.out)
        }
      }
      if child.kind == .directory {
        if index >= stack[top].listedUpTo {
          var ahead: [PackageNode] = []
          var next = index
          while next < children.count, ahead.count < Self.listedAhead {
            if children[next].kind == .directory { ahead.append(children[next]) }
            next += 1
          }
          PackageNode.listInParallel(ahead)
          stack[top].listedUpTo = next
        }
        let childShown = listing.depth.map { level + 1 <= $0 } ?? true
        stack.append(
          Level(
            directory: child, children: try child.sortedChildren(), path: childShown ? childPath : "",
            level: level + 1,
            prefix: childShown ? prefix + (isLast ? "    " : "│   ") : ""))
      }
    }
  }

  /// Writes one entry's line piece by piece (kind, mode, size, the tree's prefix and connector, the name):
  /// building a string per entry costs more than the `lstat` behind it. The padded fields are ASCII.
  private func writeLine(for node: PackageNode, prefix: String, connector: StaticString, to out: StandardOutput) {
    let kind = node.kind.rawValue
    out.write(kind)
    out.writeSpaces(max(0, 9 - kind.utf8.count) + 1)
    writeOctalMode(node.permissions.rawValue, to: out)
    out.write(" ")
    if node.kind == .directory {
      out.writeSpaces(14)
      out.write("-")
    } else {
      writeGrouped(node.size, paddedTo: 15, to: out)
    }
    out.write("  ")
    out.write(prefix)
    out.write(connector)
    out.write(node.byteExactName.escapingName)
    switch node.kind {
    case .directory: out.write("/")
    case .symlink:
      out.write(" -> ")
      out.write(node.symbolicLinkDestination.escapingName)
    case .file: break
    }
    out.write("\n")
  }

  /// Writes `mode` as `FilePermissions.octal` does: at least four octal digits.
  private func writeOctalMode(_ mode: CInterop.Mode, to out: StandardOutput) {
    var digits: [UInt8] = []
    var value = UInt32(mode)
    repeat {
      digits.append(UInt8(ascii: "0") + UInt8(value & 7))
      value >>= 3
    } while value > 0
    while digits.count < 4 { digits.append(UInt8(ascii: "0")) }
    digits.reverse()
    digits.withUnsafeBytes { out.write(bytes: $0) }
  }

  /// Writes `value` as `Int64.grouped` does (`1,234,567`), padded on the left with spaces to `width`.
  private func writeGrouped(_ value: Int64, paddedTo width: Int, to out: StandardOutput) {
    var digits: [UInt8] = []
    var magnitude = value.magnitude
    var count = 0
    repeat {
      if count > 0, count % 3 == 0 { digits.append(UInt8(ascii: ",")) }
      digits.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
      count += 1
    } while magnitude > 0
    if value < 0 { digits.append(UInt8(ascii: "-")) }
    out.writeSpaces(max(0, width - digits.count))
    digits.reverse()
    digits.withUnsafeBytes { out.write(bytes: $0) }
  }
}

/// Counts of a package's entries.
struct Totals {
  var files = 0
  var directories = 0
  var symlinks = 0
  var bytes: Int64 = 0

  mutating func count(_ node: PackageNode) {
    switch node.kind {
    case .file:
      files += 1
      bytes += node.size
    case .directory: directories += 1
    case .symlink: symlinks += 1
    }
  }

  var summary: String {
    func plural(_ n: Int, _ word: String) -> String { "\(Int64(n).grouped) \(word)\(n == 1 ? "" : "s")" }
    let directoryWord = directories == 1 ? "directory" : "directories"
    return "\(plural(files, "file")), \(Int64(directories).grouped) \(directoryWord), "
      + "\(plural(symlinks, "symlink")), \(bytes.grouped) bytes"
  }
}
