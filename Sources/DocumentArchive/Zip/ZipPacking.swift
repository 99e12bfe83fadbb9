import Dispatch
import DocumentPackage
import SystemPackage

/// Packs a ``PackPlan`` into a zip on all cores: small files are read, checksummed and deflated in
/// batches by one worker per core while the calling thread writes the previous batch; large files
/// are streamed by the calling thread with bounded memory.
struct ZipPacking {
  let plan: PackPlan
  let writer: ZipWriter
  let level: Int
  /// The level is the default one (no `--level`).
  let automaticLevel: Bool
  let progress: ((ArchiveProgress) -> Void)?

  /// Files up to this size are prepared in memory by the workers.
  static let smallFileLimit: Int64 = 1 << 20
  /// A batch holds at most this many entries or this many bytes of small files.
  static let batchEntries = 512
  static let batchBytes: Int64 = 16 << 20
  /// Large files whose first 64 KiB do not deflate below this ratio are stored.
  static let storeRatio = 0.97

  func run(documentLayout: Bool) throws {
    let workers = Syscalls.processorCount
    let deflaters = DeflaterPool(count: workers + 1, level: level, automatic: automaticLevel)
    var done = ArchiveProgress(
      entriesDone: 0, entriesTotal: plan.entryCount, bytesDone: 0, bytesTotal: plan.totalBytes)
    /// A batch being prepared by the workers: its entries, their index in the archive, the results.
    typealias Batch = (entries: [PackEntry], first: Int, results: BatchResults, group: DispatchGroup)
    var pending: Batch?
    // On failure, let workers still running finish before their deflaters go.
    defer { pending?.group.wait() }

    /// Writes a batch whose preparation is complete.
    func write(_ batch: Batch) throws {
      for (offset, entry) in batch.entries.enumerated() {
        switch batch.results.items[offset] {
        case .failure(let error): throw error
        case .success(let prepared):
          try writer.write(entry, prepared: prepared, bare: documentLayout && batch.first + offset == 0)
          done.bytesDone += entry.size
        }
        done.entriesDone += 1
      }
      progress?(done)
    }

    func drain() throws {
      guard let batch = pending else { return }
      pending = nil
      batch.group.wait()
      try write(batch)
    }

    /// Starts the workers on `entries` (small disk files, directories and links), then writes the
    /// previous batch while they work.
    func submit(_ entries: [PackEntry], first: Int) throws {
      guard !entries.isEmpty else { return }
      // The workers' deflaters are free once the previous batch is prepared.
      let previous = pending
      pending = nil
      previous?.group.wait()
      let results = BatchResults(count: entries.count)
      let group = DispatchGroup()
      let storeFirst = documentLayout && first == 0
      for worker in 0..<workers {
        DispatchQueue.global().async(group: group) {
          let compressor = deflaters.workers[worker]
          var position = worker
          while position < entries.count {
            results.items[position] = Result {
              try Self.prepare(entries[position], compressor: storeFirst && position == 0 ? nil : compressor)
            }
            position += workers
          }
        }
      }
      pending = (entries, first, results, group)
      if let previous { try write(previous) }
    }

    var batch: [PackEntry] = []
    var batchFirst = 0
    var batchBytes: Int64 = 0
    var index = 0
    try plan.forEach { entry in
      defer { index += 1 }
      if case .disk = entry.source, entry.size > Self.smallFileLimit {
        try submit(batch, first: batchFirst)
        batch = []
        try drain()
        try writeLarge(entry, deflaters.main)
      } else if case .node(let nodeIndex) = entry.source {
        try submit(batch, first: batchFirst)
        batch = []
        try drain()
        try writeFromModel(
          entry, node: plan.nodes[nodeIndex], deflaters: deflaters, bare: documentLayout && index == 0)
      } else {
        // A batch of small disk files, directories and links.
        if batch.isEmpty {
          batchFirst = index
          batchBytes = 0
        }
        batch.append(entry)
        batchBytes += entry.size
        if batch.count == Self.batchEntries || batchBytes >= Self.batchBytes {
          try submit(batch, first: batchFirst)
          batch = []
        }
        return
      }
      done.entriesDone += 1
      done.bytesDone += entry.size
      progress?(done)
    }
    try submit(batch, first: batchFirst)
    try drain()
  }

  /// Reads, checksums and compresses a small file; directories and links need nothing.
  static func prepare(_ entry: PackEntry, compressor: BufferCompressor?) throws -> PreparedFile? {
    guard case .disk(let file) = entry.source else { return nil }
    let path = file.path
    let fd = try file.open()
    defer { Syscalls.closeFile(fd) }
    // Read to the end, whatever the size was when listed.
    var data: [UInt8] = []
    data.reserveCapacity(Int(entry.size) + 1)
    try Syscalls.readChunks(fd, path: path, chunkSize: max(4096, Int(entry.size) + 1)) {
      data.append(contentsOf: $0)
    }
    return data.withUnsafeBytes { PreparedFile(bytes: $0, compressor: compressor) }
  }

  /// Streams a large file from disk, storing it if its first 64 KiB do not compress.
  private func writeLarge(_ entry: PackEntry, _ deflater: Deflater) throws {
    guard case .disk(let file) = entry.source else { return }
    let path = file.path
    let fd = try file.open()
    defer { Syscalls.closeFile(fd) }
    // Store the file if its first 64 KiB do not compress (read without moving the offset).
    let sample = Syscalls.readPrefix(fd, count: 1 << 16)
    let compresses =
      level > 0
      && Double(sample.withUnsafeBytes { deflater.compress($0).count }) < Double(sample.count) * Self.storeRatio
    try writer.writeStreamed(entry, deflater: compresses ? deflater : nil) { emit in
      try Syscalls.readChunks(fd, path: path) { try emit($0) }
    }
  }

  /// Writes a file whose contents only the model has (changed in memory, or from an archive).
  private func writeFromModel(_ entry: PackEntry, node: PackageNode, deflaters: DeflaterPool, bare: Bool) throws {
    if entry.size <= Self.smallFileLimit {
      let data = try node.contents()
      let prepared = data.withUnsafeBytes {
        PreparedFile(bytes: $0, compressor: bare || level == 0 ? nil : deflaters.buffer)
      }
      try writer.write(entry, prepared: prepared, bare: bare)
    } else {
      try writer.writeStreamed(entry, deflater: level == 0 ? nil : deflaters.main) { emit in
        try node.readContents(chunkSize: 1 << 20) { try emit($0) }
      }
    }
  }
}

/// One whole-buffer compressor per worker, and a streaming deflater and a buffer compressor for the calling thread.
private final class DeflaterPool: @unchecked Sendable {
  let workers: [BufferCompressor?]
  let main: Deflater
  let buffer: BufferCompressor

  init(count: Int, level: Int, automatic: Bool) {
    workers = (0..<count - 1).map { _ in level == 0 ? nil : BufferCompressor(level: level, automatic: automatic) }
    main = Deflater(level: max(level, 1))
    buffer = BufferCompressor(level: max(level, 1), automatic: automatic)
  }
}

/// The results of one batch, each slot written by exactly one worker before the group is waited on.
private final class BatchResults: @unchecked Sendable {
  let items: UnsafeMutableBufferPointer<Result<PreparedFile?, any Error>>
  init(count: Int) {
    items = .allocate(capacity: count)
    items.initialize(repeating: .success(nil))
  }
  deinit {
    items.deinitialize()
    items.deallocate()
  }
}
