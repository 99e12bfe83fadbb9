"""Rows for issue 7: `docpkg diff` against `diff -rq` on the same inputs.

* many vs a copy with 1 file changed: the copy is made with `cp -a` (new inodes, same times), so
  no hard-link shortcut applies and every same-size file pair must be read. Target ≤ 1x diff -rq.
* typical package vs its zip (read in place, not extracted): ≤ 1.2x `diff -rq` against an
  extracted copy (issue 14 row 6: ≤ 1.2x). Needs `docpkg pack`; skipped with a note until it exists.
  Measured twice: as the machine is, and with one core kept busy by a spin loop (ours compares on
  two workers, `diff -rq` on one thread: the parallel path must not collapse when a core is taken).

Both tools exit 1 when the inputs differ, which the harness counts as a failure, so each command
runs under `sh -c` and maps the expected status to 0 (same wrapper for ours and the peer).
"""

import os
import shutil
import subprocess
import sys


def expect_status(command, status):
    """A shell command that succeeds only if ``command`` exits with ``status``."""
    return f"{command} > /dev/null; test $? -eq {status}"


def changed_copy(h, corpus, label):
    """Copy ``corpus`` with `cp -a` and append a line to one file in the middle; return the copy."""
    work = h.scratch(label)
    copy = os.path.join(work, "copy")
    subprocess.run(["cp", "-a", corpus, copy], check=True)
    files = []
    for directory, _, names in os.walk(copy):
        files.extend(os.path.join(directory, name) for name in names)
    files.sort()
    target = files[len(files) // 2]
    with open(target, "ab") as handle:
        handle.write(b"one more line\n")
    return copy, os.path.relpath(target, copy)


class SpinLoop:
    """One Python process spinning (one core kept busy) while in the block."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        return False


def load_average():
    """The 1-minute load average, for the note."""
    with open("/proc/loadavg") as handle:
        return handle.read().split()[0]


def has_pack(h):
    """Whether this docpkg has a `pack` subcommand (its help names it in the usage line)."""
    done = subprocess.run([h.docpkg, "pack", "--help"], capture_output=True, text=True)
    return done.returncode == 0 and "docpkg pack" in done.stdout


def rows(h):
    """many vs 1-file-changed copy (≤ 1x diff -rq); typical vs its zip (≤ 1.2x diff -rq on extracted),
    as the machine is and with one core busy."""
    many = h.corpus("many")
    copy, changed = changed_copy(h, many, "diff-many")
    ours = h.run(expect_status(f"'{h.docpkg}' diff --name-status '{many}' '{copy}'", 1), repeat=5)
    peer = h.run(expect_status(f"diff -rq '{many}' '{copy}'", 1), repeat=5)
    h.row("diff many vs copy, 1 file changed", ours, "diff -rq", peer, target=1.0, rss_limit_mb=300,
          note=f"copy by cp -a (new inodes); changed {changed}; every same-size pair is read")

    typical = h.corpus("typical")
    if not has_pack(h):
        h.row("diff typical vs its zip", None,
              note="skipped: `docpkg pack` is not in this build (the archive issue adds it)")
        return
    work = h.scratch("diff-typical-zip")
    archive = os.path.join(work, "typical.zip")
    done = subprocess.run([h.docpkg, "pack", typical, "-o", archive, "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        h.row("diff typical vs its zip", None, note=f"skipped: docpkg pack failed: {done.stderr.strip()[-200:]}")
        return
    extracted = os.path.join(work, "extracted")
    os.makedirs(extracted)
    subprocess.run(["unzip", "-q", archive, "-d", extracted], check=True)
    # `docpkg pack` puts the package folder at the top of the zip; compare like with like.
    entries = os.listdir(extracted)
    if len(entries) == 1 and os.path.isdir(os.path.join(extracted, entries[0])) and not os.path.exists(
            os.path.join(typical, entries[0])):
        extracted = os.path.join(extracted, entries[0])
    ours_command = expect_status(f"'{h.docpkg}' diff --name-status '{typical}' '{archive}'", 0)
    peer_command = expect_status(f"diff -rq '{typical}' '{extracted}'", 0)
    load = load_average()
    ours = h.run(ours_command, repeat=9)
    peer = h.run(peer_command, repeat=9)
    h.row("diff typical vs its zip", ours, "diff -rq extracted", peer, target=1.2, rss_limit_mb=300,
          note="ours reads the zip in place; the peer compares against a copy unzipped beforehand (untimed); "
               f"load average {load} before")
    load = load_average()
    with SpinLoop():
        ours = h.run(ours_command, repeat=9)
        peer = h.run(peer_command, repeat=9)
    h.row("diff typical vs its zip (1 core busy)", ours, "diff -rq extracted", peer, target=1.2, rss_limit_mb=300,
          note=f"a spin loop kept one core busy while both ran; load average {load} before")
    shutil.rmtree(work, ignore_errors=True)
