import Foundation

/// The read-only fixtures in the top-level `Fixtures/` folder, copied into a temp folder before use.
public enum Fixtures {
  /// The repository's root, found from this file's path (SwiftPM bundles nothing outside a target).
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The path of the test-only script `name` in `Tests/Scripts/`.
  public static func script(_ name: String) -> String {
    repositoryRoot.appendingPathComponent("Tests/Scripts").appendingPathComponent(name).path
  }

  /// An input a fuzz target stopped at, kept as a regression fixture in `Tests/Fuzz/regressions/`.
  public static func fuzzRegression(_ name: String) -> URL {
    repositoryRoot.appendingPathComponent("Tests/Fuzz/regressions").appendingPathComponent(name)
  }

  public static func url(_ name: String) -> URL {
    repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
  }

  /// Copies the fixture package `name` (a folder in `Fixtures/`, or `Attributes.pkg`, which ships
  /// as `Attributes.tar` because git cannot keep empty directories) into `directory`.
  /// - Returns: The copy's path.
  @discardableResult
  public static func copy(_ name: String, into directory: TemporaryDirectory) throws -> String {
    if name == "Attributes.pkg" {
      try Shell.run("/bin/tar", ["-xf", url("Attributes.tar").path, "-C", directory.path])
    } else {
      try Shell.run("/bin/cp", ["-Rp", url(name).path, directory.path])
    }
    return directory.appending(name)
  }
}
