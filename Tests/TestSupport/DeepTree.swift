import DocumentPackage
import Foundation
import SystemPackage

/// A package thousands of directories deep, far past `PATH_MAX` (4,096 bytes): made and removed
/// relative to directory descriptors, one directory at a time, as no path to its bottom can be
/// given to the kernel in one call.
public enum DeepTree {
  /// The name of every directory of the chain.
  public static let directoryName = "d"
  /// The file at the bottom of the chain.
  public static let fileName = "bottom.txt"

  /// The path inside the package of the deepest directory of a chain `depth` deep: `d/d/…/d`.
  public static func innerPath(depth: Int, name: String = directoryName) -> String {
    Array(repeating: name, count: depth).joined(separator: "/")
  }

  /// Makes a package at `path` (which must not exist): a chain of `depth` directories, each named
  /// `name` (``directoryName`` unless given), with ``fileName`` holding `contents` in the deepest one.
  public static func make(at path: String, depth: Int, name: String = directoryName, contents: String = "bottom\n")
    throws
  {
    var fd = try Syscalls.openDirectory(FilePath(path).removingLastComponent())
    defer { Syscalls.closeFile(fd) }
    let packageName = RawName(FilePath(path).lastComponent!.string)
    try Syscalls.makeDirectory(in: fd, packageName, mode: 0o755)
    try descend(into: packageName, from: &fd)
    for _ in 0..<depth {
      try Syscalls.makeDirectory(in: fd, RawName(name), mode: 0o755)
      try descend(into: RawName(name), from: &fd)
    }
    let file = try Syscalls.createFile(in: fd, RawName(fileName))
    defer { Syscalls.closeFile(file) }
    let written = Array(contents.utf8).withUnsafeBytes { bytes in
      Result { () throws(Errno) in try Syscalls.writeAll(file, bytes) }
    }
    try written.get()
  }

  /// Removes the tree at `path`, whatever its depth (nothing there is not an error).
  public static func remove(_ path: String) throws {
    let fd = try Syscalls.openDirectory(FilePath(path).removingLastComponent())
    defer { Syscalls.closeFile(fd) }
    try Syscalls.removeTree(in: fd, RawName(FilePath(path).lastComponent!.string))
  }

  private static func descend(into name: RawName, from fd: inout CInt) throws {
    let next = try Syscalls.openDirectory(in: fd, name)
    Syscalls.closeFile(fd)
    fd = next
  }
}

/// A temporary folder holding a package ``depth`` deep, removed (through descriptors) when released.
public final class DeepPackage: Sendable {
  /// The depth the deep-tree tests use: `DOCPKG_DEEP_TREE_DEPTH`, else 300 (loading costs time in the
  /// square of the depth in a debug build, so 10,000 is for a run by hand).
  public static let depth = Int(ProcessInfo.processInfo.environment["DOCPKG_DEEP_TREE_DEPTH"] ?? "") ?? 300

  public let temp: TemporaryDirectory
  public let path: String

  public init(_ name: String = "Deep.pkg", in temp: TemporaryDirectory? = nil, contents: String = "bottom\n") throws {
    self.temp = try temp ?? TemporaryDirectory("deep")
    path = self.temp.appending(name)
    try DeepTree.make(at: path, depth: Self.depth, contents: contents)
  }

  deinit { try? DeepTree.remove(path) }
}
