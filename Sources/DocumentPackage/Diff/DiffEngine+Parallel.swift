import Dispatch

/// Two workers for the parts of a comparison that are mostly system calls: listing each pair of
/// directories, and comparing same-size files. Listing is parallel only when both trees are on disk; comparing,
/// for pairs whose files are each on disk or from a source that allows concurrent reads (a zip read
/// through its central directory). Always two different trees, so each worker touches nodes no other
/// worker touches (nodes are not thread-safe). Other archive-backed trees are read on one thread, in walk order.
extension DiffEngine {
  /// Whether the directories of `old` and `new` can be listed on two threads.
  static func canReadInParallel(_ old: PackageNode, _ new: PackageNode) -> Bool {
    old.root !== new.root && old.isBackedByDisk && new.isBackedByDisk
  }

  /// Whether same-size pairs of `old` and `new` can be compared on several threads (pair by pair,
  /// see ``PackageNode/isReadableOnAnyThread``).
  static func canCompareInParallel(_ old: PackageNode, _ new: PackageNode) -> Bool {
    old.root !== new.root
  }

  /// Lists the directories `old` and `new` (of two trees), one per worker.
  /// - Throws: The first listing error, the old directory's first.
  static func listInParallel(_ old: PackageNode, _ new: PackageNode) throws {
    let directories = SharedSlots<PackageNode>([old, new])
    let errors = SharedSlots<(any Error)?>([nil, nil])
    defer {
      directories.free()
      errors.free()
    }
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      do { _ = try directories[side].sortedChildren() } catch { errors[side] = error }
    }
    if let error = errors[0] ?? errors[1] { throw error }
  }

  /// Whether each pair of same-size files (on disk, or readable on any thread) has equal contents.
  /// Pairs go in batches of at most 256 pairs or ``batchBytes`` bytes; one worker per core (Dispatch's)
  /// claims the next batch when done with one: a worker that the system runs less (a busy machine)
  /// simply does fewer batches, and a few large files do not all land in one batch. Each worker
  /// keeps one ``ContentReader`` (its buffers and open directories) for all the batches it claims.
  /// - Throws: The first read error in pair order.
  static func equalContentsInParallel(_ pairs: [(PackageNode, PackageNode)]) throws -> [Bool] {
    let count = pairs.count
    var starts: [Int] = []
    var inBatch = 0
    var bytes: Int64 = 0
    for (index, pair) in pairs.enumerated() {
      if starts.isEmpty || inBatch == 256 || bytes >= batchBytes {
        starts.append(index)
        inBatch = 0
        bytes = 0
      }
      inBatch += 1
      bytes += pair.0.size
    }
    starts.append(count)
    let batches = starts.count - 1
    let bounds = SharedSlots(starts)
    let input = SharedSlots(pairs)
    let results = SharedSlots([Bool](repeating: false, count: count))
    let errors = SharedSlots<(any Error)?>([(any Error)?](repeating: nil, count: batches))
    let claims = BatchClaims(count: batches)
    defer {
      bounds.free()
      input.free()
      results.free()
      errors.free()
    }
    // The largest file the workers read whole from disk: each worker's buffer is made that size once.
    let largest =
      pairs.lazy.filter { $0.0.isBackedByDisk && $0.0.size <= ContentReader.wholeFileLimit }
      .map(\.0.size).max() ?? 0
    DispatchQueue.concurrentPerform(iterations: min(batches, Syscalls.processorCount)) { _ in
      var reader = ContentReader()
      reader.reserve(largest)
      while let batchIndex = claims.next() {
        for index in bounds[batchIndex]..<bounds[batchIndex + 1] {
          let (old, new) = input[index]
          do {
            results[index] = try reader.equalContents(old, new)
          } catch {
            errors[batchIndex] = error
            break
          }
        }
      }
    }
    if let error = errors.buffer.lazy.compactMap({ $0 }).first { throw error }
    return Array(results.buffer)
  }

  /// The bytes after which a batch of pairs is closed: small enough that large files spread over the workers.
  static let batchBytes: Int64 = 4 << 20
}

extension PackageNode {
  /// Whether this file's contents can be read on a worker thread while other files of its tree are
  /// read on others: a file on disk, or one whose source allows concurrent reads.
  var isReadableOnAnyThread: Bool {
    if isBackedByDisk { return true }
    guard kind == .file, !edits.contains(.contents), case .source(let source) = fileBody else { return false }
    return source.allowsConcurrentReads
  }

  /// Whether reading this file's contents to their end checks them (``FileContentSource/checksDataWhenRead``): an
  /// archive entry's, as a comparison then reads it whole even when it differs.
  var checksDataWhenRead: Bool {
    guard kind == .file, !edits.contains(.contents), case .source(let source) = fileBody else { return false }
    return source.checksDataWhenRead
  }
}

/// The batches of a comparison, handed out in order to the workers that ask.
private final class BatchClaims: @unchecked Sendable {
  private let lock = SystemLock()
  private let count: Int
  /// The next batch to hand out; guarded by `lock`.
  private var nextIndex = 0

  init(count: Int) { self.count = count }

  /// The next batch no worker has claimed yet; `nil` when all are claimed.
  func next() -> Int? {
    lock.withLock {
      guard nextIndex < count else { return nil }
      defer { nextIndex += 1 }
      return nextIndex
    }
  }
}

/// Fixed slots shared by the workers, each slot written by one worker only. A raw buffer, not an
/// array, so that writes to different slots are not accesses to one shared variable.
private struct SharedSlots<Element>: @unchecked Sendable {
  let buffer: UnsafeMutableBufferPointer<Element>

  init(_ elements: [Element]) {
    buffer = .allocate(capacity: elements.count)
    _ = buffer.initialize(from: elements)
  }

  subscript(index: Int) -> Element {
    get { buffer[index] }
    nonmutating set { buffer[index] = newValue }
  }

  func free() {
    buffer.deinitialize()
    buffer.deallocate()
  }
}
