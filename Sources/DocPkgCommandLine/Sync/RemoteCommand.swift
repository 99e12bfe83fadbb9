import ArgumentParser

/// `docpkg remote add|list|remove|prune|set|fetch|check|passphrase`: the object-store remotes of a package.
package struct RemoteCommand<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "remote",
      abstract: "Add, list, prune, check, set and remove a package's remotes (S3-compatible object stores).",
      discussion: """
        A remote is a bucket and prefix, s3://BUCKET/PREFIX, on a server given with --endpoint (AWS S3, MinIO, \
        Ceph RGW). Remotes are kept in .NAME.docpkg-sync/remotes.json beside the package, never inside it. \
        Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else \
        ~/.aws/credentials (profile AWS_PROFILE); the region from AWS_REGION, else ~/.aws/config. They are never printed or stored. An https server whose certificate comes from a private \
        authority is trusted with --ca-bundle FILE (or AWS_CA_BUNDLE); a refused certificate fails at once, never retried. \
        With --encrypt, everything is encrypted on the device with a key from a passphrase \
        (DOCPKG_SYNC_PASSPHRASE, else typed at the terminal: needed by every push, pull, clone and prune of that \
        remote; remote passphrase changes it). \
        A request that failed for a passing reason (5xx, 429, a reset) is sent again DOCPKG_SYNC_RETRIES times \
        (default 4). A server that accepts and does not answer fails a request after \
        DOCPKG_SYNC_FIRST_BYTE_TIMEOUT seconds (default 25; plus 1 s per 256 KiB sent), an answer that stops \
        after DOCPKG_SYNC_IDLE_TIMEOUT seconds (default 25); a request that timed out is sent once more, so a \
        silent server fails a command within about 50 s, naming the endpoint and the timeout. \
        DOCPKG_SYNC_DEADLINE=SECONDS bounds each push, pull, clone, prune and fetch as a whole (default none).
        """,
      subcommands: [
        RemoteAdd<Runner>.self, RemoteList<Runner>.self, RemoteRemove<Runner>.self, RemotePrune<Runner>.self,
        RemoteSet<Runner>.self, RemoteFetch<Runner>.self, RemoteCheck<Runner>.self, RemotePassphrase<Runner>.self,
      ])
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
  @Flag(
    help: ArgumentHelp(
      "Encrypt everything sent to this remote on this device (names and contents); the server sees only sizes.",
      discussion: """
        The passphrase comes from DOCPKG_SYNC_PASSPHRASE (or the file DOCPKG_SYNC_PASSPHRASE_FILE names) on every \
        command, else it is typed at the terminal (echo off); it is kept nowhere. On an empty prefix a new key is made; on an encrypted one the passphrase must \
        open its key.
        """)) package var encrypt = false

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

/// `docpkg remote prune PACKAGE [NAME] [--keep N]`.
package struct RemotePrune<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "prune",
      abstract: "Delete from the remote what no retained state reaches; keep its last N states.",
      discussion: """
        Keeps the newest N states of the remote's history (every push records one), its head and the conflict \
        versions the head lists, and deletes every other tree and blob on the remote and in the sync folder's \
        tree cache. N is the remote's setting: --keep N sets it (kept in remotes.json), else the last one set, \
        else 10. Safe against pushes from other devices: prune and push take turns through lock objects under \
        the remote's locks/ (a push waits up to a minute for a prune, and a prune for pushes). Prints 'kept N \
        states (M objects), removed R objects'. With 'remote set --auto-prune on', a push also prunes by itself \
        when the history holds more than 2N states.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Option(help: "How many states to keep (at least 1); remembered for this remote.") package var keep: Int?

  package init() {}

  package func validate() throws {
    if let keep, keep < 1 { throw ValidationError("--keep takes a number of states of at least 1, not \(keep)") }
  }

  package func run() throws { try Runner.pruneRemote(self) }
}

/// `docpkg remote set PACKAGE [NAME] [--keep N] [--auto-prune on|off]`.
package struct RemoteSet<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "set",
      abstract: "Set how many states a prune keeps and whether a push prunes by itself.",
      discussion: """
        Changes the remote's settings in remotes.json (nothing on the server) and prints them: 'keep N states, \
        automatic prune on|off'. With the automatic prune on, a push whose remote's history holds more than 2N \
        states prunes it to N, as 'remote prune' does: the bucket stays bounded, and the prune's cost falls on one \
        push in N. When another device is pushing or pruning at that moment, the prune is skipped (the push \
        succeeds and says so on standard error) and a later push prunes. It is off unless turned on: a device whose \
        last synced state was pruned cannot yet pull a text file both sides changed (the pull fails, changing \
        nothing), as after 'remote prune'.
        """)
  }

  /// On or off.
  package enum Switch: String, ExpressibleByArgument, CaseIterable, Sendable {
    case on, off
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Option(help: "How many states a prune keeps (at least 1).") package var keep: Int?
  @Option(help: "Whether a push prunes the remote by itself (on or off).") package var autoPrune: Switch?

  package init() {}

  package func validate() throws {
    if let keep, keep < 1 { throw ValidationError("--keep takes a number of states of at least 1, not \(keep)") }
  }

  package func run() throws { try Runner.setRemote(self) }
}

/// `docpkg remote fetch PACKAGE ID`.
package struct RemoteFetch<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "fetch",
      abstract: "Download the files a version keeps on its remote into the version store.",
      discussion: """
        A pull keeps the state it replaces as a version without copying the files the remote holds too (versions \
        list says 'saved (files on NAME)'). This downloads them, checked against their SHA-256, so that the \
        version reads and restores without the remote. versions show, versions restore, and diff, cat, inspect or \
        pack of PACKAGE@ID run it when a version needs it. Prints 'fetched N files'.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The version's id (see versions list).") package var id: Int
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.fetchVersion(self) }
}

/// `docpkg remote check PACKAGE [NAME] [--read-data] [--repair]`.
package struct RemoteCheck<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "check",
      abstract: "Check that the remote holds every object its states need; repair from this device.",
      discussion: """
        Walks the trees of the head, its conflict versions, the history's states and the states devices pin, and \
        checks that every tree is there and reads as its name says, and every blob is there with its size (with \
        --read-data, downloaded and hashed too: the whole remote's bytes). Prints one line 'damaged KEY: PROBLEM' \
        per damaged object, then 'checked N states, M objects: ok' or how many are damaged. With --repair, each \
        damaged object this device has (the package's files, its versions, the tree cache) is uploaded again \
        ('repaired KEY'); what it does not have is said ('cannot repair KEY: no copy on this device'), for \
        another device to repair. Exits 1 while damage remains.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"
  @Flag(help: "Download every blob and check its hash.") package var readData = false
  @Flag(help: "Upload again the damaged objects this device has.") package var repair = false
  @OptionGroup package var quietOption: QuietOption

  package init() {}

  package func run() throws { try Runner.checkRemote(self) }
}

/// `docpkg remote passphrase PACKAGE [NAME]`.
package struct RemotePassphrase<Runner: SyncCommandRunner>: ParsableCommand {
  package static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "passphrase",
      abstract: "Change an encrypted remote's passphrase.",
      discussion: """
        The current passphrase comes as for every command (DOCPKG_SYNC_PASSPHRASE, DOCPKG_SYNC_PASSPHRASE_FILE, or \
        typed at the terminal); the new one from DOCPKG_SYNC_NEW_PASSPHRASE or the file \
        DOCPKG_SYNC_NEW_PASSPHRASE_FILE names, else typed twice at the terminal. The remote's key is sealed anew \
        with it (nothing else on the remote changes); every device needs the new passphrase from then on. If \
        another device changed the passphrase meanwhile, nothing is written and the command says so.
        """)
  }

  @Argument(help: "The package.", completion: .file()) package var package: String
  @Argument(help: "The remote (default origin).") package var name = "origin"

  package init() {}

  package func run() throws { try Runner.changePassphrase(self) }
}
