"""Rows for issue 25: what adopting the library costs a newcomer on this machine.

Each row starts from a fresh clone of the repository's committed HEAD (no .build), as a new user's
first build does; SwiftPM's shared cache of fetched packages is left as it is, as it is for a user
who has built any Swift package before. Measured once each (a first build cannot be warmed up):
- `make demo` on the clone (target ≤ 180 s);
- a new app package that depends on the clone by path and links only the DocumentPackage product,
  built in debug with an empty build folder (target ≤ 90 s);
- `make install` into a scratch prefix: the installed binaries' sizes (info);
- `make test` on the clone (target ≤ 10 minutes), only with DOCPKG_BENCH_ADOPTION_TEST=1, since it
  takes longest.
"""

import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

APP_MANIFEST = """// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "NotesApp",
  dependencies: [
    .package(path: "{repo}"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
  ],
  targets: [
    .executableTarget(name: "NotesApp", dependencies: [
      .product(name: "DocumentPackage", package: "DocumentPackage"),
      .product(name: "SystemPackage", package: "swift-system"),
    ]),
  ]
)
"""

APP_MAIN = """import DocumentPackage
import Foundation
import SystemPackage

// Opens a package, changes one file and saves it: what a first app does with the library.
let path = FilePath(CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Notes.mydoc")
let file = try PackageFile(at: path)
try file.root.setFile(at: "Hello.txt", contents: Data("hello".utf8))
try file.save()
print(try file.root.sortedChildren().map(\\.name))
"""


def timed(h, command, cwd, log):
    """Runs `command` once in `cwd`, its output in the file `log`; returns the harness's Result with its wall
    time, or a failed one naming the log and its last lines (the wall time of a failed run is logged too)."""
    Result = sys.modules[type(h).__module__].Result
    start = time.perf_counter()
    with open(log, "w") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    h.log(f"  {' '.join(command)}: {wall:.1f} s (log: {log})")
    if done.returncode != 0:
        with open(log, errors="replace") as out:
            lines = [line.rstrip() for line in out if line.strip()]
        failures = [line for line in lines if "failed" in line or "error:" in line][-3:] or lines[-3:]
        return Result(error=f"{' '.join(command)} exited {done.returncode} after {wall:.0f} s ({log}): "
                            + " | ".join(failures), command=" ".join(command))
    return Result(walls=[wall], command=" ".join(command))


def rows(h):
    work = h.scratch("adoption")
    clone = os.path.join(work, "DocumentPackage")
    subprocess.run(["git", "clone", "--quiet", REPO, clone], check=True)

    demo = timed(h, ["make", "demo"], clone, os.path.join(work, "demo.log"))
    h.row("adoption: `make demo` on a fresh clone", demo, limit_s=180,
          note="Builds docpkg alone in release (the demo does not sync), then runs it on Fixtures/Notes.mydoc.")

    app = os.path.join(work, "NotesApp")
    os.makedirs(os.path.join(app, "Sources", "NotesApp"))
    with open(os.path.join(app, "Package.swift"), "w") as manifest:
        manifest.write(APP_MANIFEST.format(repo=clone))
    with open(os.path.join(app, "Sources", "NotesApp", "main.swift"), "w") as main:
        main.write(APP_MAIN)
    build = timed(h, ["swift", "build", "--product", "NotesApp"], app, os.path.join(work, "app-build.log"))
    h.row("adoption: an app linking only DocumentPackage, first debug build", build, limit_s=90,
          note="A package made by this row, `.package(path:)` on the clone, `swift build` with no .build: "
               "DocumentPackage, swift-system and the app.")

    prefix = os.path.join(work, "prefix")
    install = timed(h, ["make", "install", f"PREFIX={prefix}"], clone, os.path.join(work, "install.log"))
    if install.ok:
        for name in ["docpkg", "docpkg-sync"]:
            size = os.path.getsize(os.path.join(prefix, "bin", name)) / 1e6
            h.row(f"adoption: installed {name} (stripped)", size, note="MB, as `make install` installs it.")
    else:
        h.row("adoption: installed binaries", install)

    if os.environ.get("DOCPKG_BENCH_ADOPTION_TEST") == "1":
        test = timed(h, ["make", "test"], clone, os.path.join(work, "test.log"))
        h.row("adoption: `make test` on a fresh clone", test, limit_s=600)
