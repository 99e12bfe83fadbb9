import SystemPackage
import Testing

@testable import DocumentSync

/// The repair a broken head's error names must be a command that can run: a clone's destination was not made, so
/// its hint names a copy of the document instead (issue 37). No server: the errors are made, not met.
@Suite struct RepairHintTests {
  func sync(at destination: FilePath, cloning: Bool) throws -> PackageSync {
    let remote = Remote(name: "origin", url: "s3://bucket/p", endpoint: "http://127.0.0.1:9")
    let client = try remote.client(
      credentials: S3Credentials(accessKeyID: "id", secretAccessKey: "secret"), environment: [:])
    return try PackageSync(
      folder: SyncFolder(packagePath: destination), remote: remote, client: client, cloning: cloning)
  }

  @Test("a clone's hint names 'docpkg push --force-new-head PACKAGE' for a copy, not the clone that was not made")
  func cloneHintNamesACopy() throws {
    let destination = FilePath("/tmp/nowhere/C.mydoc")
    let clone = "\(try sync(at: destination, cloning: true).brokenHead(missing: "p/trees/abc"))"
    #expect(clone.contains("'docpkg push --force-new-head PACKAGE' with PACKAGE a copy of the document"), "\(clone)")
    #expect(!clone.contains(destination.string))
    // A pull or push names the package it runs on, which exists.
    let pull = "\(try sync(at: destination, cloning: false).brokenHead(missing: "p/trees/abc"))"
    #expect(pull.contains("'docpkg push --force-new-head \(destination)'"), "\(pull)")
  }
}
