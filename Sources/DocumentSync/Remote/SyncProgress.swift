/// How far a push, pull or clone is, reported to a progress callback (the CLI draws a bar from it).
public struct SyncProgress: Sendable, Hashable {
  /// What is being done.
  public enum Phase: String, Sendable, Hashable {
    /// Reading and hashing the package.
    case scanning
    /// Finding what the other side lacks.
    case comparing
    /// Sending blobs and trees.
    case uploading
    /// Fetching trees and blobs.
    case downloading
    /// Saving the package (one atomic save).
    case saving
    /// Moving the remote's head.
    case updatingHead
  }

  /// What is being done.
  public var phase: Phase
  /// Objects done in this phase.
  public var objectsDone: Int
  /// Objects to do in this phase.
  public var objectsTotal: Int
  /// Bytes moved in this phase.
  public var bytesDone: Int64
  /// Bytes to move in this phase.
  public var bytesTotal: Int64
}

extension SyncProgress {
  /// A progress callback: called from the transfers' tasks, so it must be `Sendable` (hop to your own actor
  /// to update a view).
  public typealias Handler = @Sendable (SyncProgress) -> Void
}
