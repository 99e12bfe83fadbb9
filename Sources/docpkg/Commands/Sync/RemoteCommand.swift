import ArgumentParser
import DocumentSync
import Foundation
import SystemPackage

/// `docpkg remote add|list|remove`: the object-store remotes of a package.
struct RemoteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remote",
    abstract: "Add, list and remove a package's remotes (S3-compatible object stores).",
    discussion: """
      A remote is a bucket and prefix, s3://BUCKET/PREFIX, on a server given with --endpoint (AWS S3, MinIO, \
      Ceph RGW). Remotes are kept in .NAME.docpkg-sync/remotes.json beside the package, never inside it. \
      Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else \
      ~/.aws/credentials (profile AWS_PROFILE); the region from AWS_REGION. They are never printed or stored.
      """,
    subcommands: [RemoteAdd.self, RemoteList.self, RemoteRemove.self])
}

/// `docpkg remote add PACKAGE NAME s3://BUCKET/PREFIX --endpoint URL`.
struct RemoteAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Add a remote; checks the server once (how it compares ETags in conditional writes).")

  @Argument(help: "The package.", completion: .file()) var package: String
  @Argument(help: "The remote's name (origin).") var name: String
  @Argument(help: "s3://BUCKET/PREFIX") var url: String
  @Option(help: "The server: http[s]://HOST[:PORT].") var endpoint: String
  @Option(help: "The region requests are signed for (default: AWS_REGION, else us-east-1).") var region: String?

  func run() throws {
    let remote = Remote(name: name, url: url, endpoint: endpoint, region: region)
    let packagePath = FilePath(package)
    let credentials = try environmentCredentials()
    try runBlocking { try await PackageSync.addRemote(remote, toPackageAt: packagePath, credentials: credentials) }
  }
}

/// `docpkg remote list PACKAGE`.
struct RemoteList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the remotes: name, URL, endpoint.")

  @Argument(help: "The package.", completion: .file()) var package: String

  func run() throws {
    for remote in try SyncFolder(packagePath: FilePath(package)).remotes() {
      StandardOutput.shared.write("\(remote.name)\t\(remote.url)\t\(remote.endpoint)\n")
    }
  }
}

/// `docpkg remote remove PACKAGE NAME`.
struct RemoteRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Remove a remote and its sync state (nothing on the server is deleted).")

  @Argument(help: "The package.", completion: .file()) var package: String
  @Argument(help: "The remote's name.") var name: String

  func run() throws { try SyncFolder(packagePath: FilePath(package)).remove(name) }
}
