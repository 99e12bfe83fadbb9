import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ObjectWriter {
  /// Stores a directory of a model tree and everything below it, at any depth (``TreeFold``);
  /// returns its tree hash and the size of its files.
  mutating func store(directory node: PackageNode) throws -> (String, Int64) {
    let output = try TreeFold.run(KeptDirectory(node: node, context: &self), &self)
    return (output.tree, output.size)
  }
}

/// One directory of a model tree being written into the store (``ObjectWriter/store(directory:)``).
///
/// A directory as it is on disk (never listed or edited in the model) whose device, inode and
/// time the ``DirectoryCache`` knows has the entries it had: only its subdirectories are checked,
/// one `lstat` each and then each as a directory of its own, and its tree is rewritten where one of
/// theirs changed. Any other directory, or one whose cached tree cannot be used after all, is
/// written entry by entry from the model.
struct KeptDirectory: TreeFoldFrame {
  typealias Context = ObjectWriter
  typealias Output = (tree: String, size: Int64)

  private enum Mode {
    /// Checking the subdirectories of a cached tree; `trees` holds what they gave.
    case cached(DirectoryCache.Entry, status: FileStatus, next: Int, trees: [String: Output])
    /// Writing the tree from the model's children.
    case listed(Listing)
    /// Done: the output.
    case finished(Output)
  }

  private struct Listing {
    var children: [PackageNode]
    var next = 0
    var text = ""
    var total: Int64 = 0
    var subdirectories: [(name: String, tree: String)] = []
    /// ``ObjectWriter``'s count of files left on a remote when the listing began.
    let heldBefore: Int
  }

  /// The directory in the model, or nil while only its path is known (a cached parent's
  /// subdirectory: a node is made if the cache cannot serve it).
  private var node: PackageNode?
  private let path: FilePath?
  private var mode: Mode

  init(node: PackageNode, context: inout ObjectWriter) throws {
    self.node = node
    path = node.origin?.absolutePath
    if let origin = node.origin, node.edits.isEmpty, node.loadedChildren == nil,
      node.probedChildren == nil || !node.hasUnsavedChanges,  // children a path walk probed, unchanged
      let entry = context.directories.entry(for: origin.status)
    {
      mode = .cached(entry, status: origin.status, next: 0, trees: [:])
    } else {
      mode = .listed(try Self.listing(node, context))
    }
  }

  /// A cached parent's subdirectory at `path`, whose status is `status`.
  private init(path: FilePath, status: FileStatus, context: inout ObjectWriter) throws {
    self.path = path
    if let entry = context.directories.entry(for: status) {
      node = nil
      mode = .cached(entry, status: status, next: 0, trees: [:])
    } else {
      let node = try PackageNode(contentsOf: path)
      self.node = node
      mode = .listed(try Self.listing(node, context))
    }
  }

  private static func listing(_ node: PackageNode, _ context: ObjectWriter) throws -> Listing {
    Listing(children: try node.sortedChildren(), heldBefore: context.heldRemotely)
  }

  /// Gives up on the cached tree: the directory is written from the model instead.
  private mutating func listInstead(_ context: inout ObjectWriter) throws {
    let node = try self.node ?? PackageNode(contentsOf: path!)
    self.node = node
    mode = .listed(try Self.listing(node, context))
  }

  mutating func nextSubdirectory(_ context: inout ObjectWriter) throws -> KeptDirectory? {
    while true {
      switch mode {
      case .finished: return nil
      case .cached(let entry, let status, let next, let trees):
        guard next < entry.subdirectories.count else {
          if let output = try rewritten(entry, status: status, trees: trees, &context) {
            mode = .finished(output)
          } else {
            try listInstead(&context)
          }
          continue
        }
        guard let component = RawName(text: entry.subdirectories[next].name).component,
          case let subpath = path!.appending(component),
          let substatus = try? Syscalls.statusNoFollow(subpath), substatus.kind == .directory
        else {
          try listInstead(&context)
          continue
        }
        return try KeptDirectory(path: subpath, status: substatus, context: &context)
      case .listed(var listing):
        while listing.next < listing.children.count {
          let child = listing.children[listing.next]
          if child.kind == .directory {
            mode = .listed(listing)
            return try KeptDirectory(node: child, context: &context)
          }
          let time = child.modificationTime ?? FileTime(Date())
          let entry: TreeEntry
          if child.kind == .file {
            let hash = try context.store(file: child)
            listing.total += child.size
            entry = TreeEntry(
              kind: .file, permissions: child.permissions, time: time, size: child.size, reference: hash,
              name: child.diskName.text)
          } else {
            entry = TreeEntry(
              kind: .symlink, permissions: child.permissions, time: time, size: child.size,
              reference: child.symbolicLinkDestination, name: child.diskName.text)
          }
          listing.text += entry.line
          listing.next += 1
        }
        mode = .finished(try written(listing, &context))
      }
    }
  }

  mutating func adopt(_ output: Output, _ context: inout ObjectWriter) throws {
    switch mode {
    case .cached(let entry, let status, let next, var trees):
      trees[entry.subdirectories[next].name] = output
      mode = .cached(entry, status: status, next: next + 1, trees: trees)
    case .listed(var listing):
      let child = listing.children[listing.next]
      listing.total += output.size
      listing.text +=
        TreeEntry(
          kind: .directory, permissions: child.permissions, time: child.modificationTime ?? FileTime(Date()), size: 0,
          reference: output.tree, name: child.diskName.text
        ).line
      listing.subdirectories.append((child.diskName.text, output.tree))
      listing.next += 1
      mode = .listed(listing)
    case .finished: break
    }
  }

  func finish(_ context: inout ObjectWriter) throws -> Output {
    guard case .finished(let output) = mode else { preconditionFailure("finish before the last subdirectory") }
    return output
  }

  /// The tree of a listed directory, written; noted in the directory cache when it is on disk as
  /// listed.
  private func written(_ listing: Listing, _ context: inout ObjectWriter) throws -> Output {
    let data = Data(listing.text.utf8)
    let hash = ContentHash.of(data)
    // A directory with files left on a remote is not cached: a later version's walk takes a cached directory's
    // tree as the store's whole, blobs and all.
    if let node, let origin = node.origin, node.edits.isEmpty, origin.status.kind == .directory,
      node.hasUnsavedChanges == false, context.heldRemotely == listing.heldBefore
    {
      context.directories.note(
        origin.status, DirectoryCache.Entry(tree: hash, size: listing.total, subdirectories: listing.subdirectories))
    }
    try context.writeObject(hash) { fd throws(Errno) in try StoreFiles.write(data, to: fd) }
    return (hash, listing.total)
  }

  /// The cached tree, with the subdirectories' trees that changed put in; nil if the cached tree
  /// object cannot be read.
  private func rewritten(
    _ entry: DirectoryCache.Entry, status: FileStatus, trees: [String: Output], _ context: inout ObjectWriter
  ) throws -> Output? {
    if entry.subdirectories.allSatisfy({ trees[$0.name]?.tree == $0.tree }) {
      context.directories.note(status, entry)
      return (entry.tree, entry.size)
    }
    guard let data = try? StoreFiles.read(context.store.objectPath(entry.tree)), var entries = TreeEntry.parse(data)
    else { return nil }
    var size: Int64 = 0
    var text = ""
    for index in entries.indices {
      if entries[index].kind == .directory {
        guard let subtree = trees[entries[index].name] else { return nil }
        entries[index].reference = subtree.tree
        size += subtree.size
      } else if entries[index].kind == .file {
        size += entries[index].size
      }
      text += entries[index].line
    }
    let newData = Data(text.utf8)
    let hash = newData == data ? entry.tree : ContentHash.of(newData)
    if hash != entry.tree {
      try context.writeObject(hash) { fd throws(Errno) in try StoreFiles.write(newData, to: fd) }
    }
    let subdirectories = entry.subdirectories.map { (name: $0.name, tree: trees[$0.name]!.tree) }
    context.directories.note(status, DirectoryCache.Entry(tree: hash, size: size, subdirectories: subdirectories))
    return (hash, size)
  }
}
