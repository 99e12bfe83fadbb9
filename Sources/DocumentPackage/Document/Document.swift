import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document package opened for editing, with undo, saving, autosave and a state to observe:
/// this library's `UIDocument`.
///
///     let document = try await Document(contentsOf: "/home/ann/Notes.mydoc")
///     try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("Hello".utf8)) }
///     await document.undoMenuItemTitle        // "Undo Edit"
///     try await document.undo()
///     try await document.save()               // atomic and incremental
///     try await document.close()
///
/// The package is opened lazily (nothing below the root is read until asked for). The model and
/// the undo stack live inside the actor: reach them with ``edit(named:registeringUndo:_:)``, ``read(_:)`` and
/// ``withUndoStack(_:)``, whose closures run on the actor, so no data race is possible under
/// Swift 6. Every change made through ``edit(named:registeringUndo:_:)`` can be undone (see ``PackageEditor``).
///
/// Saving goes through ``PackageDocument``: the package on disk is always exactly the old or the
/// new state, unchanged files are hard-linked, and a package changed on disk by another program
/// is never overwritten silently (``DocumentState/inConflict``). Autosave is off by default; set
/// ``autosaveDelay`` to save that long after the last change (never inside an open undo group).
///
/// Actors cannot be subclassed: apps compose a `Document` into their own type (see
/// `Examples/NotesDocument`).
public actor Document {
  /// Where the package is on disk.
  public nonisolated let path: FilePath
  /// What the document can do now.
  public internal(set) var state: DocumentState = .normal {
    didSet { if state != oldValue { for continuation in observers.values { continuation.yield(state) } } }
  }
  /// Why the last save (or open, for a read-only document) failed; `nil` after a successful save.
  public internal(set) var lastError: PackageError?

  /// Saves this long after the last change; `nil` (the default) turns autosave off.
  public var autosaveDelay: Duration? {
    didSet { scheduleAutosave() }
  }

  /// How a document is opened.
  public struct Options: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Open for reading only: ``DocumentState/editingDisabled`` from the start, no lock taken.
    public static let readOnly = Options(rawValue: 1 << 0)
    /// Create an empty package if there is none at the path.
    public static let create = Options(rawValue: 1 << 1)
  }

  /// The save layer; `nil` for a document opened read-only.
  var package: PackageDocument?
  /// The model and its undo registration.
  var editor: PackageEditor
  let options: Options
  var autosaveTask: Task<Void, Never>?
  var observers: [Int: AsyncStream<DocumentState>.Continuation] = [:]
  var nextObserver = 0

  /// Opens the package at `path`, first settling any interrupted save. Nothing below the root is
  /// read until asked for.
  ///
  /// If the package's location is not writable (or `options` has ``Options/readOnly``), the
  /// document opens with ``DocumentState/editingDisabled``: it can be read but not edited or saved.
  /// - Throws: ``PackageError`` with code `noSuchEntry` if there is no package (and `options` lacks
  ///   ``Options/create``), `io` if it cannot be opened.
  public init(contentsOf path: FilePath, options: Options = []) async throws {
    self.path = path
    self.options = options
    let parent = path.removingLastComponent()
    // A save builds the new state beside the package and renames it over the old one: both the
    // folder holding the package and the package itself (whose `..` entry moves) must be writable.
    let isDirectory = (try? Syscalls.statusFollowing(path))?.kind == .directory
    let writable =
      !options.contains(.readOnly)
      && Syscalls.isWritableDirectory(parent.isEmpty ? FilePath(".") : parent)
      && (!isDirectory || Syscalls.isWritableDirectory(path))
    if writable {
      let package = try PackageDocument(at: path, options: options.contains(.create) ? [.create] : [])
      self.package = package
      editor = PackageEditor(root: package.root)
    } else {
      package = nil
      editor = PackageEditor(root: try PackageNode(contentsOf: path))
      state = .editingDisabled
    }
  }

  /// Creates a new, empty package at `path` and opens it.
  /// - Throws: ``PackageError`` with code `nameTaken` if something is at `path` already, or `io`.
  public static func create(at path: FilePath) async throws -> Document {
    _ = try PackageDocument.create(at: path).close()
    return try await Document(contentsOf: path)
  }

  func requireOpen() throws {
    if state.contains(.closed) { throw PackageError(.invalidArgument, "document is closed:", path: path.string) }
  }

  func requireEditable() throws {
    try requireOpen()
    if state.contains(.editingDisabled) {
      throw PackageError(
        .invalidArgument, "document is read-only (its location is not writable or it was opened read-only):",
        path: path.string)
    }
  }

  /// A stream of the document's state, starting with the current one, ending when it closes.
  public func stateUpdates() -> AsyncStream<DocumentState> {
    let (stream, continuation) = AsyncStream<DocumentState>.makeStream(bufferingPolicy: .bufferingNewest(8))
    continuation.yield(state)
    if state.contains(.closed) {
      continuation.finish()
      return stream
    }
    let id = nextObserver
    nextObserver += 1
    observers[id] = continuation
    continuation.onTermination = { [weak self] _ in
      Task { await self?.removeObserver(id) }
    }
    return stream
  }

  func removeObserver(_ id: Int) { observers[id] = nil }
}
