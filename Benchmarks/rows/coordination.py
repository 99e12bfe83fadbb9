"""Rows for issue 12 (coordinated reading): how much readers reading in a loop slow a writer down."""

import json
import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRODUCT = "read-write-stress"
READERS = 2


def build_tool():
    """Build the release `read-write-stress` tool (Benchmarks/Tools/ReadWriteStress) and return its path."""
    done = subprocess.run(["swift", "build", "-c", "release", "--product", PRODUCT], cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"swift build --product {PRODUCT} failed with status {done.returncode}")
    return os.path.join(REPO, ".build", "release", PRODUCT)


def saves_per_second(tool, package, saves):
    """Run the writer for `saves` saves; return its saves per second (it must have no failed save)."""
    done = subprocess.run([tool, "write", package, str(saves)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"writer failed: {done.stderr.strip()[-300:]}")
    counts = json.loads(done.stdout)
    if counts["errors"]:
        raise RuntimeError(f"writer had {counts['errors']} failed saves: {done.stderr.strip()[-300:]}")
    return counts["savesPerSecond"]


def rows(h):
    """Saves/s of one writer alone and with 2 coordinated readers reading the whole package in a loop."""
    try:
        tool = build_tool()
    except RuntimeError as error:
        h.row("coordination: writer with 2 readers", None, note=f"not measured: {error}")
        return
    work = h.scratch("coordination")
    package = os.path.join(work, "Doc.pkg")
    files = max(30, int(300 * h.scale))
    subprocess.run([tool, "init", package, str(files)], check=True)
    saves = max(50, int(300 * h.scale))
    saves_per_second(tool, package, 10)  # warm-up: page cache, first save's store
    alone = saves_per_second(tool, package, saves)

    stop = os.path.join(work, "stop")
    readers = [subprocess.Popen([tool, "read", package, stop], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for _ in range(READERS)]
    try:
        with_readers = saves_per_second(tool, package, saves)
    finally:
        open(stop, "w").close()
        outcomes = [reader.communicate() for reader in readers]
    reads = [json.loads(out) for out, _ in outcomes]
    torn = sum(r["torn"] + r["errors"] for r in reads)
    if torn:
        raise RuntimeError(f"{torn} reads mixed two saved states or failed: {outcomes[0][1].strip()[-300:]}")
    h.row(f"coordination: s/save, {READERS} readers looping", 1 / with_readers, "writer alone", 1 / alone,
          target=3.0,
          note=f"`read-write-stress`: {saves} saves, each changing 3 files and renaming 2 in 3 directories "
               f"(odd saves swap Data/, even ones the whole package) of a package of {3 * files + 6} files; "
               f"{alone:.1f} saves/s alone, {with_readers:.1f} with {READERS} library readers reading "
               f"the whole package in a loop ({sum(r['reads'] for r in reads)} reads, none torn or failed)")
