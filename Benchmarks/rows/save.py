"""Rows for issue 3: atomic incremental save (`docpkg put`) on the `many` and `big` corpora.

The corpora stay pristine: every save goes into a scratch copy made once with `cp -a`.
"""

import os
import subprocess

from corpora import middle_file_of_many


def rows(h):
    """many: save after changing 1 file vs `cp -al` (≤ 2×) and vs `cp -a` (≤ 0.1×); one new root
    entry vs `cp -al` (≤ 1×, issue 14 row 3); big: peak RSS of a save that changes one byte (≤ 64 MB)."""
    many = h.corpus("many")
    work = h.scratch("save")
    copy = os.path.join(work, "Many.pkg")
    subprocess.run(["cp", "-a", many, copy], check=True)
    entry = middle_file_of_many(many)
    source = os.path.join(work, "source.txt")
    turn = [0]

    def next_contents():
        """New contents before every run (untimed), so that every timed put really changes the file."""
        turn[0] += 1
        with open(source, "wb") as f:
            f.write((f"version {turn[0]}\n" * 100).encode())

    ours = h.run([h.docpkg, "put", copy, entry, source], setup=next_contents, repeat=5)
    link_target = os.path.join(work, "linked")
    copy_target = os.path.join(work, "copied")
    remove = lambda path: (lambda: subprocess.run(["rm", "-rf", path], check=True))
    linked = h.run(["cp", "-al", many, link_target], setup=remove(link_target))
    h.row("save many: change 1 file", ours, "cp -al", linked, target=2.0, rss_limit_mb=64,
          note=f"`docpkg put MANYCOPY {entry} SOURCE` (1 KiB; lock, conflict check, write, fsync, exchange, "
               "fsync dir; process start included) vs hard-linking the whole tree")
    copied = h.run(["cp", "-a", many, copy_target], setup=remove(copy_target), repeat=1)
    h.row("save many: change 1 file vs full rewrite", ours, "cp -a", copied, target=0.1,
          note="the same save vs rewriting the whole tree")
    subprocess.run(["rm", "-rf", link_target, copy_target])

    # One new entry at the root: renamed into the live root (RootEntryChange), the 1,000 dirs left
    # in place. Before issue 14 this rebuilt the root: 100k linkat + 100k unlinkat + one syncfs.
    whole = h.run(f"'{h.docpkg}' put '{copy}' \"root-$(date +%s%N).txt\" '{source}'", repeat=3)
    h.row("save many: new root entry (issue 14 row 3)", whole, "cp -al", linked, target=1.0, rss_limit_mb=64,
          note="adds an entry at the root: built beside the package and renamed into the live root "
               "(RENAME_NOREPLACE), the root's 1,000 dirs untouched; versions kept (default policy), so "
               "the version store's capture of the previous state is included")

    big = h.corpus("big")
    big_copy = os.path.join(work, "Big.pkg")
    subprocess.run(["cp", "-a", big, big_copy], check=True)
    name = sorted(os.listdir(big))[0]
    changed = os.path.join(work, "changed.raw")
    subprocess.run(["cp", os.path.join(big, name), changed], check=True)
    with open(changed, "r+b") as f:
        f.seek(os.path.getsize(changed) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    saved = h.run([h.docpkg, "put", big_copy, name, changed], repeat=1)
    plain = h.run(["cp", changed, os.path.join(work, "plain-copy.raw")], repeat=1)
    h.row("save big: change 1 byte of 1 file", saved, "cp FILE", plain, rss_limit_mb=64,
          note=f"`docpkg put BIGCOPY {name} CHANGED` ({os.path.getsize(changed) >> 20} MiB file streamed with "
               "copy_file_range, the other files untouched); RSS must not grow with file size")
    subprocess.run(["rm", "-rf", big_copy, changed, os.path.join(work, "plain-copy.raw")])
