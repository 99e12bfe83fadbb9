import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a file outside the package, copied in when the package is saved.
///
/// Use it to put a large file into a package without reading it into memory: a save copies it
/// with a reflink or `copy_file_range` where it can (memory bounded whatever the size). The file
/// is read at save time, so it must still be there then.
///
///     let source = try DiskFileSource(path: "/tmp/render.mov")
///     try root.setNode(PackageNode(regularFileWithSource: source), at: "Media/render.mov")
public final class DiskFileSource: FileCopySource {
  /// The file that is copied.
  public let path: FilePath
  /// Its size when the source was made.
  public let size: Int64
  /// Whether a save may hard-link the file into the package instead of copying it (see
  /// ``init(path:handingOver:)``).
  public let handedOver: Bool
  /// Whether the file is one of the package's, which a copy of the model took unread (a merge's replay of a
  /// rename): read, its bytes are kept, as those of a file read where it was loaded (the package may go).
  let isPackageFile: Bool

  /// A source for the regular file at `path` (symbolic links are followed).
  /// - Parameters:
  ///   - path: The file whose bytes the node holds.
  ///   - handingOver: `true` when the file is the caller's own private copy, used by this one
  ///     node and never written again (a downloaded file the caller removes after the save): the save
  ///     may then hard-link it into the package instead of copying its bytes, setting the node's
  ///     permissions and time on it. It is made durable as a written file would be. A file on another
  ///     file system, or one the link is refused for, is copied as usual.
  /// - Throws: ``PackageError`` with code `noSuchEntry` or `notARegularFile`, or `io`.
  public convenience init(path: FilePath, handingOver: Bool = false) throws {
    try self.init(path: path, handingOver: handingOver, isPackageFile: false)
  }

  /// A source for the package's own file at `path`, which a copy of the model took unread (see ``isPackageFile``).
  convenience init(packageFile path: FilePath) throws {
    try self.init(path: path, handingOver: false, isPackageFile: true)
  }

  private init(path: FilePath, handingOver: Bool, isPackageFile: Bool) throws {
    self.path = path
    self.size = try Self.regularFileSize(at: path)
    self.handedOver = handingOver
    self.isPackageFile = isPackageFile
  }

  /// Throws, as ``init(path:handingOver:)`` does, if the file is no longer a regular file at
  /// ``path`` (removed since the source was made: the app's file, or one of a package deleted since).
  func checkStillThere() throws { _ = try Self.regularFileSize(at: path) }

  private static func regularFileSize(at path: FilePath) throws -> Int64 {
    let status: FileStatus
    do { status = try Syscalls.statusFollowing(path) } catch {
      throw PackageError.opening(error, "cannot open", path: path.string)
    }
    guard status.kind == .file else {
      throw PackageError(.notARegularFile, "not a regular file:", path: path.string)
    }
    return status.size
  }

  var copyDescription: String { "copy \(path)" }

  func openForCopying() throws -> CInt { try open() }

  /// Opens the file for reading; the caller closes the descriptor.
  func open() throws -> CInt {
    do { return try Syscalls.openFile(path, .readOnly) } catch {
      throw PackageError.io(error, "cannot open", path: path.string)
    }
  }

  /// Reads the whole file into memory.
  /// - Throws: ``PackageError`` with code `io` naming the file.
  public func readAll() throws -> Data {
    var data = Data()
    try read(chunkSize: 1 << 20) { data.append(contentsOf: $0) }
    return data
  }

  /// Reads the file in order, handing `body` chunks of at most `chunkSize` bytes (memory bounded by `chunkSize`).
  /// - Throws: ``PackageError`` with code `io` naming the file, or what `body` throws.
  public func read(chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let fd = try open()
    defer { Syscalls.closeFile(fd) }
    try Syscalls.readChunks(fd, path: path, chunkSize: chunkSize, body)
  }
}

extension PackageNode {
  /// Replaces a regular file's contents with those of `source`, read only when needed (when saved,
  /// a ``DiskFileSource`` is copied with a reflink or in the kernel). The node counts as changed until saved.
  /// - Throws: ``PackageError`` with code `notARegularFile` for other kinds.
  public func setContents(from source: any FileContentSource) throws {
    try setBody(.source(source))
  }
}
