/// The three kinds of node a package holds.
public enum NodeKind: String, Sendable, Hashable, Codable, CustomStringConvertible {
  /// A regular file, with contents.
  case file
  /// A directory, with children by name.
  case directory
  /// A symbolic link, with a destination path.
  case symlink

  public var description: String { rawValue }
}
