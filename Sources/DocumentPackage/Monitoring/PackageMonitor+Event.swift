extension PackageMonitor {
  /// What a ``PackageMonitor`` reports at once: the changes of one burst, after the debounce delay.
  public struct Event: Sendable, Hashable, Codable {
    /// The changes, package-level ones first, then entries by path.
    public var changes: [Change]
    /// Whether these changes are a save by a ``PackageFile`` in this process (see ``PackageMonitor``,
    /// "Own saves").
    public var isOwnSave: Bool
    /// The package's path on disk after these changes.
    public var packagePath: String

    /// Creates an event.
    public init(changes: [Change], isOwnSave: Bool, packagePath: String) {
      self.changes = changes
      self.isOwnSave = isOwnSave
      self.packagePath = packagePath
    }
  }
}

extension PackageMonitor.Event {
  /// This event followed by `later`, as one: both bursts' changes, an own save only if both
  /// were, and the package's path after `later`.
  func followed(by later: Self) -> Self {
    Self(changes: changes + later.changes, isOwnSave: isOwnSave && later.isOwnSave, packagePath: later.packagePath)
  }
}
