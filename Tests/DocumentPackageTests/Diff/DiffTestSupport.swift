import Foundation

@testable import DocumentPackage

/// Builds in-memory trees and summarizes differences for the diff tests.
enum DiffTrees {
  /// A directory tree from `path: contents`; contents starting with `->` make a symbolic link,
  /// and a path ending in `/` makes an empty directory.
  static func make(_ entries: [String: String]) throws -> PackageNode {
    let root = try PackageNode(directoryWithChildren: [:])
    for (path, value) in entries.sorted(by: { $0.key < $1.key }) {
      if path.hasSuffix("/") {
        try root.makeDirectory(at: String(path.dropLast()))
      } else if value.hasPrefix("->") {
        try root.setNode(PackageNode(symbolicLinkWithDestination: String(value.dropFirst(2))), at: path)
      } else {
        try root.setFile(at: path, contents: Data(value.utf8))
      }
    }
    return root
  }

  /// `git diff --name-status`-like lines: `A path`, `R087 old new`.
  static func lines(_ difference: PackageDifference) -> [String] {
    difference.map { change in
      if case .renamed(let from, let to, let similarity, _, _, _, _) = change { return "R\(similarity) \(from) \(to)" }
      return "\(change.kind.rawValue) \(change.path)"
    }
  }
}

/// File contents that log each read, to check what a comparison reads and in which order.
final class LoggingSource: FileContentSource {
  let data: Data
  let name: String
  let log: ReadLog

  convenience init(_ text: String, name: String, log: ReadLog) {
    self.init(data: Data(text.utf8), name: name, log: log)
  }

  init(data: Data, name: String, log: ReadLog) {
    self.data = data
    self.name = name
    self.log = log
  }

  var size: Int64 { Int64(data.count) }

  func readAll() throws -> Data {
    log.names.append(name)
    return data
  }

  func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    log.names.append(name)
    try data.withUnsafeBytes { try body($0) }
  }
}

/// The names read, in order.
final class ReadLog {
  var names: [String] = []
}
