/// What the sync commands do once parsed. The commands' arguments and help are declared once, in
/// this target: `docpkg` lists them for its help, manual and completions (and hands their command line to
/// `docpkg-sync` unparsed, so that it loads no HTTP stack); `docpkg-sync` parses and runs them with the runner
/// that syncs.
package protocol SyncCommandRunner {
  /// `docpkg clone URL DESTINATION --endpoint URL [--region R] [--quiet]`.
  static func clone(_ command: CloneCommand<Self>) throws
  /// `docpkg push PACKAGE [NAME] [--quiet]`.
  static func push(_ command: PushCommand<Self>) throws
  /// `docpkg pull PACKAGE [NAME] [--quiet]`.
  static func pull(_ command: PullCommand<Self>) throws
  /// `docpkg sync PACKAGE [NAME] [--attempts N] [--watch [--poll-interval MS] [--debounce MS]] [--quiet]`.
  static func sync(_ command: SyncCommand<Self>) throws
  /// `docpkg remote add PACKAGE NAME URL --endpoint URL [--region R]`.
  static func addRemote(_ command: RemoteAdd<Self>) throws
  /// `docpkg remote list PACKAGE`.
  static func listRemotes(_ command: RemoteList<Self>) throws
  /// `docpkg remote set PACKAGE [NAME] [--keep N] [--auto-prune on|off]`.
  static func setRemote(_ command: RemoteSet<Self>) throws
  /// `docpkg remote remove PACKAGE NAME`.
  static func removeRemote(_ command: RemoteRemove<Self>) throws
  /// `docpkg remote prune PACKAGE [NAME] [--keep N]`.
  static func pruneRemote(_ command: RemotePrune<Self>) throws
  /// `docpkg remote fetch PACKAGE ID`.
  static func fetchVersion(_ command: RemoteFetch<Self>) throws
  /// `docpkg remote check PACKAGE [NAME] [--read-data] [--repair]`.
  static func checkRemote(_ command: RemoteCheck<Self>) throws
  /// `docpkg remote passphrase PACKAGE [NAME]`.
  static func changePassphrase(_ command: RemotePassphrase<Self>) throws
}
