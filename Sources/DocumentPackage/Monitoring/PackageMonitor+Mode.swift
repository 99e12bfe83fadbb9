import SystemPackage

extension PackageMonitor {
  /// How a ``PackageMonitor`` learns that something changed under its package (``PackageMonitor/mode``).
  public enum Mode: Sendable, Hashable, CustomStringConvertible {
    /// The system tells it (Linux: inotify, one watch per directory).
    case notifications
    /// It lists the package's directories every `interval` and compares them with what it had
    /// (see ``PackageMonitor``, "Notifications or polling").
    case polling(interval: Duration, reason: PollingReason)

    /// `inotify`, or `polling every 1 s: FUSE file system`.
    public var description: String {
      switch self {
      case .notifications:
        #if os(Linux)
        "inotify"
        #else
        "notifications"
        #endif
      case .polling(let interval, let reason): "polling every \(Self.describe(interval)): \(reason)"
      }
    }

    /// `1 s`, `250 ms`, `1.5 s`.
    static func describe(_ duration: Duration) -> String {
      let parts = duration.components
      let milliseconds = parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
      if milliseconds < 1000 { return "\(milliseconds) ms" }
      if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
      let tenths = (milliseconds + 50) / 100
      return "\(tenths / 10).\(tenths % 10) s"
    }
  }

  /// Why a ``PackageMonitor`` polls.
  public enum PollingReason: Sendable, Hashable, CustomStringConvertible {
    /// ``Options/alwaysPolls`` asked for it.
    case requested
    /// The package is on a file system where files change without the system's notifications
    /// saying so: a network file system (NFS, SMB/CIFS, 9P, …: the server and other clients write)
    /// or FUSE (sshfs and the like: whatever the daemon shows). `name` says which (`FUSE`, `NFS`).
    case fileSystem(name: String)

    /// `asked for`, or `FUSE file system`.
    public var description: String {
      switch self {
      case .requested: "asked for"
      case .fileSystem(let name): "\(name) file system"
      }
    }
  }

  /// The shortest wait between two polls, whatever ``Options/pollingInterval`` says.
  static let shortestPollingInterval = Duration.milliseconds(10)

  /// The mode for the package directory at `path`: polling if `options` ask for it or the package's
  /// file system is one whose changes the system may not report, else notifications (also when the
  /// file system cannot be told: set-up then fails on its own terms if the package cannot be opened).
  static func mode(for path: FilePath, options: Options) -> Mode {
    let interval = Swift.max(options.pollingInterval, shortestPollingInterval)
    if options.alwaysPolls { return .polling(interval: interval, reason: .requested) }
    if let type = try? Syscalls.fileSystemType(ofDirectory: path), let name = Syscalls.fileSystemsChangedElsewhere[type]
    {
      return .polling(interval: interval, reason: .fileSystem(name: name))
    }
    return .notifications
  }
}
