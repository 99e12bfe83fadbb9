/// What this process learned about each file system it met, by its identity (device and mount, so that
/// a file system mounted again is learned again): what ``FileSystemTraits`` and ``FileSystemNaming`` find
/// out by trying, once per mount.
final class FileSystemMemo<Value: Sendable>: Sendable {
  private let lock = SystemLock()
  nonisolated(unsafe) private var known: [FileSystemIdentity: Value] = [:]

  /// What was learned about the file system `identity`, if anything.
  func value(for identity: FileSystemIdentity) -> Value? { lock.withLock { known[identity] } }

  /// Keeps what was learned about the file system `identity`.
  func remember(_ value: Value, for identity: FileSystemIdentity) { lock.withLock { known[identity] = value } }
}
