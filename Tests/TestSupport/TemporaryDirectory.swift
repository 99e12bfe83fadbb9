import Foundation
import SystemPackage

/// A fresh folder under the system's temp directory, removed when the value is dropped.
/// Tests never write into the source tree or `$HOME`.
public final class TemporaryDirectory: @unchecked Sendable {
  public let url: URL
  public var path: String { url.path }
  public var filePath: FilePath { FilePath(url.path) }

  public init(_ label: String = "test") throws {
    let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
    url = base.appendingPathComponent("docpkg-\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    // Make everything writable first, so tests that drop permissions still clean up.
    _ = try? Shell.run("/bin/chmod", ["-R", "u+rwx", url.path])
    try? FileManager.default.removeItem(at: url)
  }

  /// `path` inside the folder.
  public func appending(_ path: String) -> String { url.appendingPathComponent(path).path }

  /// Writes `contents` at `path` inside the folder, creating directories on the way.
  @discardableResult
  public func write(_ path: String, _ contents: String, mode: Int? = nil) throws -> String {
    try write(path, Data(contents.utf8), mode: mode)
  }

  @discardableResult
  public func write(_ path: String, _ contents: Data, mode: Int? = nil) throws -> String {
    let full = appending(path)
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try contents.write(to: URL(fileURLWithPath: full))
    if let mode { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: full) }
    return full
  }

  /// Makes a directory (and its parents) at `path` inside the folder.
  @discardableResult
  public func makeDirectory(_ path: String) throws -> String {
    let full = appending(path)
    try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
    return full
  }

  /// Makes a symbolic link at `path` inside the folder pointing at `destination`.
  @discardableResult
  public func symlink(_ path: String, to destination: String) throws -> String {
    let full = appending(path)
    try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: destination)
    return full
  }
}
