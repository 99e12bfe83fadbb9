import DocumentPackage

/// Checks that symbolic links stay inside their package once every entry is known.
///
/// Each link is resolved against the archive's own entries, expanding the links it passes
/// through (as the kernel would), so `a -> b/../..` with `b -> x/y` is judged by where it really
/// lands. A link whose resolution leaves its top-level directory is refused. A top-level link
/// may point to a sibling top-level entry of the same archive (`link.txt -> small.txt`), which
/// stays inside the destination; any other top-level link is refused. In a document zip (``rootIsPackage``) the
/// archive's root is the package, so every link's boundary is that root. Packing, listing, reading in place and
/// unpacking all judge links here.
struct SymlinkCheck {
  /// Every symbolic link, by path.
  var links: [String: String] = [:]

  /// Whether the archive's root is the package: a document zip (`mimetype` first, as ODF and EPUB have it), which
  /// is unpacked into a folder of its own. A link may then point anywhere below the root, from any level.
  var rootIsPackage = false

  /// The most links expanded while resolving one, like the kernel's ELOOP limit.
  static let maxExpansions = 40

  /// - Parameter topLevel: The archive's top-level entries (a top-level link may point to one).
  /// - Throws: ``/DocumentPackage/PackageError`` naming the first link that escapes, is absolute, or loops.
  func validate(archive: String, topLevel: Set<String>) throws {
    for (path, destination) in links.sorted(by: { $0.key < $1.key }) {
      if let reason = problem(path: path, destination: destination, topLevel: topLevel) {
        throw PackageError(
          .invalidArgument, "refusing unsafe symbolic link", path: path,
          context: "-> '\(destination)' in '\(archive)': \(reason)")
      }
    }
  }

  /// Why the link at `path` is unsafe, or `nil` if it resolves inside its package (or, at the top
  /// level, to another top-level entry).
  func problem(path: String, destination: String, topLevel: Set<String>) -> String? {
    var stack = path.split(separator: "/").map(String.init)
    stack.removeLast()
    // A top-level link's boundary is the destination itself; any other link's, its package (the root, in a
    // document zip).
    let isTopLevel = stack.isEmpty && !rootIsPackage
    let floor = isTopLevel || rootIsPackage ? 0 : 1
    var pending = Array(destination.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed())
    if destination.hasPrefix("/") { return "its destination is absolute" }
    var expansions = 0
    while let component = pending.popLast() {
      if component == "." { continue }
      if component == ".." {
        guard stack.count > floor else {
          return isTopLevel ? "it points outside the destination" : "it points outside the package"
        }
        stack.removeLast()
        continue
      }
      stack.append(component)
      if let next = links[stack.joined(separator: "/")] {
        expansions += 1
        guard expansions <= Self.maxExpansions else { return "too many levels of symbolic links" }
        if next.hasPrefix("/") { return "it passes through a link to an absolute path" }
        stack.removeLast()
        let parts = next.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        pending.append(contentsOf: parts.reversed())
      }
    }
    if isTopLevel, stack.first.map(topLevel.contains) != true {
      return "a top-level symbolic link may only point to another top-level entry of the archive"
    }
    return nil
  }
}
