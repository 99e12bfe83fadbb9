import ArgumentParser

/// `docpkg remote add|list|remove`: the object-store remotes of a package.
package struct RemoteCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "remote",
      abstract: "Add, list and remove a package's remotes (S3-compatible object stores).",
      discussion: """
        A remote is a bucket and prefix, s3://BUCKET/PREFIX, on a server given with --endpoint (AWS S3, MinIO, \
        Ceph RGW). Remotes are kept in .NAME.docpkg-sync/remotes.json beside the package, never inside it. \
        Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else \
        ~/.aws/credentials (profile AWS_PROFILE); the region from AWS_REGION, else ~/.aws/config. They are never printed or stored. An https server whose certificate comes from a private \
        authority is trusted with --ca-bundle FILE (or AWS_CA_BUNDLE); a refused certificate fails at once, never retried.
        """,
      subcommands: [RemoteAdd<Runner>.self, RemoteList<Runner>.self, RemoteRemove<Runner>.self])
  }

  package init() {}
}

/// `docpkg remote add PACKAGE NAME s3://BUCKET/PREFIX --endpoint URL`.
package struct RemoteAdd<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "add",
      abstract: "Add a remote; checks the server once (how it compares ETags in conditional writes).")
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote's name (origin).") package var name: String
  @Argument(help: "s3://BUCKET/PREFIX") package var url: String
  @OptionGroup package var server: RemoteServerOptions

  package init() {}

  package func run() throws { try Runner.addRemote(self) }
}

/// `docpkg remote list PACKAGE`.
package struct RemoteList<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(commandName: "list", abstract: "List the remotes: name, URL, endpoint.")
  }

  @Argument(help: "The package.", completion: .file()) package var package: String

  package init() {}

  package func run() throws { try Runner.listRemotes(self) }
}

/// `docpkg remote remove PACKAGE NAME`.
package struct RemoteRemove<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "remove", abstract: "Remove a remote and its sync state (nothing on the server is deleted).")
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote's name.") package var name: String

  package init() {}

  package func run() throws { try Runner.removeRemote(self) }
}
