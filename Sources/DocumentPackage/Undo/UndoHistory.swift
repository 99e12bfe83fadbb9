#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The changes held by an editor's undo and redo steps, so that saving can keep what they need.
///
/// A save replaces files: an earlier version of an edited file, or a removed file or folder, is
/// deleted from disk once the new state is in place. Undo steps that would bring those back need
/// their bytes, so before a save ``pinForSave(root:)`` reads them (files of 1 MiB or more are
/// memory-mapped, which keeps a deleted file's pages without counting them as the process's own
/// memory), and after it ``didSave(root:)`` turns nodes held only by undo steps into in-memory
/// nodes, which a later save writes rather than links.
final class UndoHistory {
  /// One registered change; the undo action reads it when it runs, so pinning shows up there.
  final class Record {
    var change: PackageChange
    init(_ change: PackageChange) { self.change = change }
  }

  private struct WeakRecord {
    weak var record: Record?
  }

  private var records: [WeakRecord] = []
  /// Nodes out of the tree that ``pinForSave(root:)`` loaded, for ``didSave(root:)``.
  private var pinnedDetached: [PackageNode] = []

  func add(_ change: PackageChange) -> Record {
    let record = Record(change)
    if records.count >= 64, records.count.isMultiple(of: 64) { records.removeAll { $0.record == nil } }
    records.append(WeakRecord(record: record))
    return record
  }

  /// The records still held by an undo or redo step.
  var liveRecords: [Record] {
    records.removeAll { $0.record == nil }
    return records.compactMap(\.record)
  }

  /// Before a save: reads the contents undo steps may need after it. Best effort — what cannot be
  /// read now makes that undo step throw later rather than restore wrong bytes.
  /// - Complexity: O(*h*) in the states held by undo steps, plus the reading.
  func pinForSave(root: PackageNode) {
    var read: [ObjectIdentifier: Data] = [:]
    var detached: [ObjectIdentifier: PackageNode] = [:]
    for record in liveRecords {
      for index in record.change.states.indices {
        let node = record.change.states[index].node
        pin(&record.change.states[index].before, of: node, root: root, read: &read)
        pin(&record.change.states[index].after, of: node, root: root, read: &read)
      }
      for link in record.change.links where !Self.isInTree(link.child, root: root) {
        detached[ObjectIdentifier(link.child)] = link.child
      }
    }
    pinnedDetached = Array(detached.values)
    for node in pinnedDetached { try? node.loadEverything(options: []) }
  }

  /// After a successful save: the nodes pinned out of the tree lose their origin (their files are
  /// gone or no longer theirs) and keep their contents in memory.
  func didSave(root: PackageNode) {
    for node in pinnedDetached where !Self.isInTree(node, root: root) { Self.detachFromDisk(node) }
    pinnedDetached = []
  }

  /// Reads the bytes `state` (of `node`, a file) needs after the save into its cached contents, if
  /// the save may drop them. They are those of the node's file now while no save gave the node new
  /// bytes since the state was taken (the same ``PackageNode/diskGeneration``); a state of an older
  /// generation was pinned before the save that replaced its file, or its undo throws.
  private func pin(
    _ state: inout PackageNode.UndoState, of node: PackageNode, root: PackageNode, read: inout [ObjectIdentifier: Data]
  ) {
    guard node.kind == .file, case .onDisk = state.fileBody, state.cachedContents == nil, state.origin != nil,
      state.generation == node.diskGeneration, let current = node.origin
    else { return }
    var nodeKeepsFile = false
    if case .onDisk = node.fileBody { nodeKeepsFile = !node.edits.contains(.contents) }
    // The file stays on disk (linked into the saved package) while the node keeps it unchanged in the tree.
    if nodeKeepsFile && Self.isInTree(node, root: root) { return }
    let key = ObjectIdentifier(node)
    if let data = read[key] {
      state.cachedContents = data
    } else if let data = nodeKeepsFile ? try? node.contents() : try? PackageNode.readEarlierContents(current, of: node)
    {
      read[key] = data
      state.cachedContents = data
    }
  }

  static func isInTree(_ node: PackageNode, root: PackageNode) -> Bool {
    var current = node
    while let parent = current.parent { current = parent }
    return current === root
  }

  /// Makes `node` and what is loaded below it in-memory nodes, keeping loaded contents.
  static func detachFromDisk(_ node: PackageNode) {
    guard node.origin != nil else { return }
    switch node.kind {
    case .file:
      guard case .onDisk = node.fileBody else { break }
      guard let data = node.cachedContents else { return }  // not read: keep the origin, a save then fails loudly
      node.fileBody = .data(data)
      node.cachedContents = nil
    case .directory:
      guard let children = node.loadedChildren else { return }
      for child in children.values { detachFromDisk(child) }
    case .symlink:
      break
    }
    node.origin = nil
    node.diskGeneration &+= 1  // its entry is gone: no state of it with an origin is its entry now
  }
}

extension PackageChange.Link {
  var child: PackageNode {
    switch self {
    case .attach(let child, _, _), .detach(let child, _, _): return child
    }
  }
}
