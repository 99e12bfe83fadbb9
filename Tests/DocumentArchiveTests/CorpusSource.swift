import Foundation
import TestSupport

/// A source of other projects' test archives for ``ArchiveDifferentialTests``: libarchive's, committed (CI has no
/// network), and Go's and Python's, found where Debian's packages install them.
struct CorpusSource: Sendable {
  /// How failures and counts name it.
  var name: String
  /// The folders its archives are under (`make-others-archives.py corpus` walks them).
  var folders: [String]
  /// Fewer archives than this means the folders are not what they were: a failure, not a quiet pass.
  var minimumCount: Int

  /// Whether a missing source is a failure (`DOCPKG_REQUIRE_CORPUS=1`: `make test`).
  static let required = ProcessInfo.processInfo.environment["DOCPKG_REQUIRE_CORPUS"] == "1"

  /// The sources `Scripts/setup.sh` installs, and the committed one.
  static let expected = ["Go", "Python", "libarchive"]

  /// The sources installed here.
  static let found: [CorpusSource] = [go, python, libarchive].compactMap { $0 }

  /// Go's archive/tar and archive/zip test data (GNU sparse, pax, star, v7, zip64, bad headers, zips from many
  /// writers): Debian's golang-src, which golang-go depends on, under `/usr/lib/go-1.NN/src/archive`.
  static let go: CorpusSource? = {
    let roots = ["/usr/lib/go", "/usr/local/go"] + subfolders(of: "/usr/lib", startingWith: "go-")
    guard let root = roots.first(where: { isDirectory($0 + "/src/archive/tar/testdata") }) else { return nil }
    let folders = ["tar", "zip"].map { root + "/src/archive/\($0)/testdata" }
    return CorpusSource(name: "Go", folders: folders.filter(isDirectory), minimumCount: 70)
  }()

  /// The archives of Python's test suite (tarfile's `testtar.tar`, zipfile's self-extractors, importlib's wheels,
  /// eggs and zips): Debian's libpython3.NN-testsuite, under `/usr/lib/python3.NN/test`.
  static let python: CorpusSource? = {
    let tests = subfolders(of: "/usr/lib", startingWith: "python3.").map { $0 + "/test" }
    guard let folder = tests.first(where: { FileManager.default.fileExists(atPath: $0 + "/testtar.tar") }) else {
      return nil
    }
    return CorpusSource(name: "Python", folders: [folder], minimumCount: 10)
  }()

  /// libarchive's zip and tar `test/*.uu`, decoded and committed in `Tests/Corpora/libarchive` by
  /// `Scripts/import-libarchive-corpus.py` (its README names the commit and what was left out).
  static let libarchive: CorpusSource? = {
    let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/Corpora/libarchive").path
    return isDirectory(folder) ? CorpusSource(name: "libarchive", folders: [folder], minimumCount: 130) : nil
  }()

  /// The folders in `parent` whose names start with `prefix`, newest version first.
  private static func subfolders(of parent: String, startingWith prefix: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
    return names.filter { $0.hasPrefix(prefix) }
      .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
      .map { parent + "/" + $0 }
      .filter(isDirectory)
  }

  private static func isDirectory(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
  }
}
