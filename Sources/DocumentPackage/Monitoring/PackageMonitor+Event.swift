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
