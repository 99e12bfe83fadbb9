import DocumentPackage
import SystemPackage

/// The sync folder's `trees/`: tree objects (``TreeObject``, the version store's format) known to be on a
/// remote — the trees of every head this package pushed or pulled — by hash (`trees/ab/cdef…`, the object's own
/// bytes). A push compares the package's trees with the synced head's, path by path, and stops at the first
/// equal subtree: what is under it is on the remote already (a head is moved only after every object it names
/// arrived). A pull fetches only the trees it does not hold.
///
/// Objects are written under a temporary name and renamed in, a tree after its subtrees, so a tree present here
/// has its subtrees present too while nothing crashes. Reading checks the hash; a damaged or missing object reads as
/// absent (after a crash, a tree may read as absent while a tree naming it is present: its subtrees are then
/// fetched or compared again), so objects are written without `fsync`.
struct LocalTrees: Sendable {
  let path: FilePath

  func file(_ hash: String) -> FilePath {
    path.appending(String(hash.prefix(2))).appending(String(hash.dropFirst(2)))
  }

  /// The tree `hash`, or nil if it is not here (or does not hash to its name).
  func tree(_ hash: String) -> TreeObject? {
    guard hash.count == 64, let data = (try? LocalFiles.read(file(hash))) ?? nil,
      ContentHash.hex(SHA256.hash(data: data)) == hash
    else { return nil }
    return TreeObject(decoding: data)
  }

  /// Whether the tree `hash` is here.
  func contains(_ hash: String) -> Bool { (try? LocalFiles.exists(file(hash))) ?? false }

  /// Writes the trees `hashes` (taken from `trees`) that are not here yet, subtrees before the trees naming them.
  /// Best effort: a tree that cannot be written is fetched or compared again later.
  func add(_ hashes: [String], from trees: [String: TreeObject]) {
    // The StoredTreeWalk of each tree once, post-order: a tree is written once the subtrees it names are.
    var walk = StoredTreeWalk<Void>(.eachTree(), roots: hashes.map { .init(name: "", hash: $0) })
    while let step = walk.next() {
      switch step {
      case .enter(let at):
        guard let tree = trees[at.hash], !contains(at.hash) else { continue }
        walk.descend(into: tree.subdirectories)
      case .leave(let at):
        try? LocalFiles.writeUnsynced(trees[at.hash]!.encoded(), to: file(at.hash))
      }
    }
  }
}
