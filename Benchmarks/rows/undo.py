"""Rows for issue 5: memory of the undo stack (1,000 edits to a package holding a 100 MB file)."""

import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRODUCT = "undo-memory"
BIG_MB = 100


def build_tool():
    """Build the release `undo-memory` tool (Benchmarks/Tools/UndoMemory) and return its path."""
    done = subprocess.run(["swift", "build", "-c", "release", "--product", PRODUCT], cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"swift build --product {PRODUCT} failed with status {done.returncode}")
    return os.path.join(REPO, ".build", "release", PRODUCT)


def make_package(directory, big_mb):
    """Copy Fixtures/Notes.mydoc into `directory` and add `Big.bin` of `big_mb` MB of random bytes."""
    package = os.path.join(directory, "Notes.mydoc")
    shutil.copytree(os.path.join(REPO, "Fixtures", "Notes.mydoc"), package)
    with open(os.path.join(package, "Big.bin"), "wb") as out:
        for _ in range(big_mb):
            out.write(os.urandom(1 << 20))
    return package


def rows(h):
    """Peak RSS of 1,000 undoable edits, then undo all and redo all, with a 100 MB file in the package (≤ 150 MB)."""
    try:
        tool = build_tool()
    except RuntimeError as error:
        h.row("undo: 1,000 edits + undo/redo all, 100 MB file", None, note=f"not measured: {error}")
        return
    package = make_package(h.scratch("undo"), BIG_MB)
    # Each run starts from the same package on disk: the tool edits the model only, never saves.
    edits = h.run([tool, package, "1000"], repeat=3)
    baseline = h.run([tool, package, "0"], repeat=3)
    h.row("undo: 1,000 edits + undo/redo all, 100 MB file", edits, "same tool, 0 edits", baseline,
          rss_limit_mb=150,
          note=f"`undo-memory PKG 1000`: edits (text, moves of the {BIG_MB} MB file, permissions, new files, "
               "renames), each its own undo step, then undo all and redo all; the big file is never read "
               "(the tool fails if it was). Peer = the same process making no edits: "
               f"baseline peak RSS {baseline.rss_mb:.1f} MB.")

    # The same with an atomic save every 100 edits, after undoing all and after redoing all: undo
    # across saves keeps earlier versions of edited files, never the big file. Each run edits a
    # hard-linked copy (saves never change files in place, so the original stays as it was).
    work = h.scratch("undo-save")
    copy = os.path.join(work, "Notes.mydoc")

    def fresh_copy():
        # A new package at the same path: its predecessor's version store must go too, or the
        # store (rightly) refuses to attach itself to a package that is not the one it recorded.
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(os.path.join(work, ".Notes.mydoc.docpkg-versions"), ignore_errors=True)
        shutil.copytree(package, copy, copy_function=os.link)

    saving = h.run([tool, copy, "1000", "100"], setup=fresh_copy, repeat=3)
    h.row("undo: 1,000 edits, save every 100, 100 MB file", saving, "same tool, 0 edits", baseline,
          rss_limit_mb=150,
          note="`undo-memory PKG 1000 100`: as above, plus 12 atomic saves (PackageFile) with "
               "PackageFile telling the PackageEditor; the big file is hard-linked, never read.")
