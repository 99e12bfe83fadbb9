import ArgumentParser
import DocumentArchive
import DocumentPackage
import SystemPackage

/// Opens what the user names as a package.
enum PackageOpener {
  /// The package at `path`, read lazily: a package directory, or an archive (zip, tar, compressed
  /// tar; recognised by its first bytes, else its extension) read in place without extracting it.
  ///
  /// The tree is kept alive until the process exits: freeing 100,000 nodes one by one just before
  /// exit costs more than `inspect`'s own work on them, and the kernel frees it all at once anyway.
  /// `PACKAGE@ID` names version ID of PACKAGE (read-only, from its version store) when
  /// `PACKAGE@ID` is not itself an existing path.
  static func open(_ path: String) throws -> PackageNode {
    let filePath = FilePath(path)
    let root: PackageNode
    if let at = path.lastIndex(of: "@"), let id = Int(path[path.index(after: at)...]), at != path.startIndex,
      !filePath.exists()
    {
      root = try VersionStore(forPackageAt: FilePath(String(path[..<at]))).tree(of: id)
    } else if isArchive(filePath) {
      root = try ArchivePackage.open(filePath)
    } else {
      root = try PackageNode(contentsOf: filePath)
    }
    keptUntilExit.append(root)
    return root
  }

  /// Whether `path` is a regular file that holds an archive.
  static func isArchive(_ path: FilePath) -> Bool {
    guard let node = try? PackageNode(contentsOf: path), node.kind == .file else { return false }
    return ArchiveFormat(contentsOf: path) != nil
  }

  nonisolated(unsafe) private static var keptUntilExit: [PackageNode] = []
}

extension FilePath {
  /// Whether something (even a dangling link) is at this path.
  fileprivate func exists() -> Bool {
    (try? Stat(self, followTargetSymlink: false)) != nil
  }
}

/// How `put` and `rm` keep versions: `--versions N|all|none`.
struct VersionPolicyOption: ParsableArguments {
  @Option(
    name: .customLong("versions"),
    help: "Previous states to keep in .NAME.docpkg-versions: a number (keep the last N), all, or none (default: 10).")
  var versions: String = "10"

  var policy: VersionPolicy {
    get throws {
      switch versions {
      case "all": return .keepAll
      case "none": return VersionPolicy.none
      default:
        guard let count = Int(versions), count >= 0 else {
          throw ValidationError("--versions takes a number, all or none, not '\(versions)'")
        }
        return .keepLast(count)
      }
    }
  }
}
