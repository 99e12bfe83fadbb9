import ArgumentParser

/// `docpkg versions ...`: a package's previous states and conflict versions.
struct Versions: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "versions",
    abstract: "List, show, restore, resolve and prune a package's versions.",
    discussion: """
      Saves (put, rm, restore) keep the state they replace in .NAME.docpkg-versions beside the package \
      (the last 10 by default): the save moves what it replaced into the store, and a detached process then copies \
      the rest once per content, so that no later write to the package changes a version (a file written in place \
      before its copy exists is reported by check as not kept). A conflicting save \
      keeps its side as an unresolved conflict version. PACKAGE@ID names a version wherever a package is read \
      (inspect, cat, diff).
      """,
    subcommands: [
      VersionsList.self, VersionsShow.self, VersionsRestore.self, VersionsResolve.self, VersionsPrune.self,
      VersionsRemove.self, VersionsAdopt.self, VersionsSettle.self,
    ]
  )
}
