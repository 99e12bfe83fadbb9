import DocPkgCommandLine
import DocumentPackage
import SystemPackage

/// Before a version is read or restored: the files it keeps on a remote (a pull's version, see
/// ``/DocumentPackage/PackageVersion/remote``) are fetched into the version store by `docpkg-sync remote fetch`,
/// which prints its own progress and errors. A version whose files are all here costs one walk of its tree
/// objects.
/// - Throws: What reading the version's record and tree throws; a fetch that fails ends this process with the
///   helper's exit status (its error line is printed already).
func fetchRemoteFiles(ofVersion id: Int, of package: FilePath) throws {
  guard let held = try VersionStore.remoteHeldVersion(id, ofPackageAt: package), !held.unfetched.isEmpty else {
    return
  }
  let status = try SyncExecutable.run(["remote", "fetch", package.string, String(id), "--quiet"])
  if status != 0 { terminate(status) }
}
