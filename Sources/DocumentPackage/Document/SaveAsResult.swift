/// What ``Document/save(to:)`` wrote: for a document whose package was deleted on disk, the
/// entries it could not carry into the new package.
///
/// A document holds what it read and what it changed; the rest of its package stays on disk
/// unread (the model is lazy) and goes with the package when another program deletes it. Saving
/// such a document elsewhere writes everything it holds and names what it could not carry: a
/// directory it never listed (what was in it is unknown) or a file whose bytes it does not hold: one it
/// never read, one read in chunks (``PackageNode/readContents(chunkSize:_:)`` keeps none), one it renamed or
/// moved without reading it, and one whose contents were to come from a file on disk that is gone. It never fails for them: the app decides what to tell the user.
///
///     let result = try await document.save(to: "/home/ann/Trip (recovered).mydoc")
///     if !result.carriedEverything { showLost(result.uncarriedPaths) }   // ["Big", "Notes/old.txt"]
public struct SaveAsResult: Sendable, Hashable {
  /// The entries left out, as paths from the package's root (``PackageNode/path``), sorted; `""`
  /// is the root itself, for a document that never listed it. Always empty for a package that
  /// was not deleted: save-as then writes all of it, or fails and throws.
  public var uncarriedPaths: [String]

  /// Whether the new package holds everything the old one did (``uncarriedPaths`` is empty).
  public var carriedEverything: Bool { uncarriedPaths.isEmpty }

  /// Creates a result naming the entries left out.
  public init(uncarriedPaths: [String] = []) {
    self.uncarriedPaths = uncarriedPaths
  }
}
