import Foundation
import TestSupport

/// Listings and runners shared by the archive tests.
enum Listing {
  /// What `Tests/Scripts/archive-listing.py` sees in an archive (through Python's zipfile/tarfile) or a tree.
  /// - Parameter linkMTimes: Compare the times of symbolic links (unzip does not restore them).
  static func of(_ path: String, mtimes: Bool = true, linkMTimes: Bool = true) throws -> String {
    let script = Fixtures.script("archive-listing.py")
    let flags = !mtimes ? ["--strip-mtime"] : !linkMTimes ? ["--strip-link-mtime"] : []
    return try Shell.run("python3", [script, path] + flags).standardOutput
  }
}

extension Shell {
  /// Runs `docpkg` and fails with its stderr if it exits non-zero.
  @discardableResult
  static func docpkgChecked(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
    let result = try docpkg(arguments, environment: environment)
    if result.status != 0 { throw DocpkgFailed(arguments: arguments, stderr: result.standardError) }
    return result
  }
}

/// Every entry's path below `directory`, recursively (links not followed).
func entries(below directory: String) -> [String] {
  guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
  return (enumerator.allObjects as? [String] ?? []).sorted()
}

struct DocpkgFailed: Error, CustomStringConvertible {
  var arguments: [String]
  var stderr: String
  var description: String { "docpkg \(arguments.joined(separator: " ")) failed: \(stderr)" }
}

/// Makes the hostile archives `names` (by stem: `bad-crc` makes `bad-crc.zip`) with
/// `Tests/Scripts/make-hostile-archives.py` in a new folder `archives` of `temp`.
/// - Returns: That folder's path.
func makeHostileArchives(_ names: String..., in temp: TemporaryDirectory) throws -> String {
  let archives = try temp.makeDirectory("archives")
  try Shell.run("python3", [Fixtures.script("make-hostile-archives.py"), archives] + names)
  return archives
}
