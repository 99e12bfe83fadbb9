/// The version `docpkg --version` prints (and `docpkg-sync`, which names itself `docpkg`).
package enum DocPkgVersion {
  /// The release, as `MAJOR.MINOR.PATCH`.
  package static let current = "0.1.0"
}
