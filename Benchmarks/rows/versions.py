"""Rows for issue 4: the version store's space and the cost of keeping versions on save.

The corpora stay pristine: every save goes into a scratch copy made with `cp -a`.
"""

import os
import subprocess
import time

from corpora import middle_file_of_many


def kib(*paths):
    """Disk usage in KiB of `paths` together: `du` counts each hard-linked inode once."""
    out = subprocess.run(["du", "-sk", "--total", *paths], capture_output=True, text=True, check=True).stdout
    return int(out.strip().splitlines()[-1].split()[0])


def rows(h):
    """typical: package + 10 versions differing by one file each cost ≤ 2.1× one copy (the store's own
    copy of every content, issue 14); many: the first save with no store yet vs `cp -al` (≤ 0.5×, issue 14
    row 1) and a later save vs `--versions none` (≤ 2×, row 2)."""
    typical = h.corpus("typical")
    work = h.scratch("versions")
    copy = os.path.join(work, "Typical.pkg")
    subprocess.run(["cp", "-a", typical, copy], check=True)
    pages = sorted(os.listdir(os.path.join(typical, "Pages")))
    for turn in range(11):  # 11 saves: the store keeps the 10 states they replaced
        page = pages[turn % len(pages)]
        subprocess.run([h.docpkg, "put", copy, f"Pages/{page}/text.txt"],
                       input=(f"edit {turn}\n" * 200).encode(), check=True)
    store = os.path.join(work, ".Typical.pkg.docpkg-versions")
    listed = subprocess.run([h.docpkg, "versions", "list", copy, "--json"], capture_output=True, text=True,
                            check=True).stdout.count('"id"')
    together = kib(copy, store)
    one = kib(typical)
    h.row("versions typical: package + 10 versions, disk", together, "one copy (KiB)", one, target=2.1,
          note=f"`du -sk PACKAGE STORE` after 11 puts of one page each; {listed} versions listed; store alone "
               f"{kib(store)} KiB. Since issue 14 the store holds its own copy of each content (no write to the "
               "package may change a version), so the floor is 2 copies; on btrfs/xfs the copies are reflinks "
               "sharing blocks, which du does not see")

    many = h.corpus("many")
    many_copy = os.path.join(work, "Many.pkg")
    subprocess.run(["cp", "-a", many, many_copy], check=True)
    entry = middle_file_of_many(many)  # at any scale
    source = os.path.join(work, "source.txt")
    turn = [0]

    def next_contents():
        turn[0] += 1
        with open(source, "wb") as f:
            f.write((f"version {turn[0]}\n" * 100).encode())

    many_store = os.path.join(work, ".Many.pkg.docpkg-versions")
    linked_target = os.path.join(work, "linked")

    def settled():
        """Waits (untimed) for the detached `docpkg versions settle` a timed save started, so that its
        copies do not run during the next measurement."""
        subprocess.run([h.docpkg, "versions", "settle", many_copy], check=True)

    def first_save():
        """No store yet: the save that keeps the first version of a package (untimed setup)."""
        settled()
        subprocess.run(["rm", "-rf", many_store], check=True)
        next_contents()

    first = h.run([h.docpkg, "put", many_copy, entry, source], setup=first_save, repeat=1)
    settle_start = time.monotonic()
    settled()
    settle_wait = time.monotonic() - settle_start
    linked = h.run(["cp", "-al", many, linked_target],
                   setup=lambda: subprocess.run(["rm", "-rf", linked_target], check=True), repeat=1)
    subprocess.run(["rm", "-rf", linked_target], check=True)
    h.row("versions many: first save, no store yet (issue 14 row 1)", first, "cp -al", linked, target=0.5,
          rss_limit_mb=64,
          note="`docpkg put` of 1 file into the many corpus with no `.NAME.docpkg-versions` yet, default policy: "
               "the save moves the subtree it replaced into the store and records a pending version (O(changed)); "
               "a detached `docpkg versions settle` then gives the kept state its own copy of every file (FICLONE "
               f"where the file system has reflinks, else a copy) off the critical path: here it was still busy "
               f"for {settle_wait:.1f} s after the timed save (waited for, untimed, before the next measurement)")
    pending_env = dict(os.environ, DOCPKG_NO_BACKGROUND_SETTLE="1")

    def first_pending():
        """No store yet, then a save that leaves the first version pending (untimed setup)."""
        settled()
        subprocess.run(["rm", "-rf", many_store], check=True)
        next_contents()
        subprocess.run([h.docpkg, "put", many_copy, entry, source], check=True, env=pending_env)

    settle = h.run([h.docpkg, "versions", "settle", many_copy], setup=first_pending, repeat=1)
    copied = os.path.join(work, "copied")
    full_copy = h.run(["cp", "-a", many, copied], setup=lambda: subprocess.run(["rm", "-rf", copied], check=True),
                      repeat=1)
    subprocess.run(["rm", "-rf", copied], check=True)
    h.row("versions many: settling the first version (off the critical path)", settle, "cp -a", full_copy,
          rss_limit_mb=64,
          note="`docpkg versions settle` of the pending version a first save left: the store's own copy of all "
               "100,000 files (a copy on ext4, FICLONE on btrfs/xfs), in a detached process; its memory is "
               "bounded (a compact hash cache, objects committed 8,192 at a time)")

    next_contents()
    subprocess.run([h.docpkg, "put", many_copy, entry, source], check=True)
    def next_settled():
        settled()
        next_contents()

    kept = h.run([h.docpkg, "put", many_copy, entry, source], setup=next_settled, repeat=3)
    plain = h.run([h.docpkg, "put", "--versions", "none", many_copy, entry, source], setup=next_contents, repeat=3)
    h.row("versions many: later save keeping the previous state (issue 14 row 2)", kept, "put --versions none",
          plain, target=2.0, rss_limit_mb=64,
          note="the save records a pending version in O(changed) (the replaced subtree moved into the store, "
               "no cache loaded, no package walk); the detached settler (waited for, untimed, before each run) "
               "walks the package and copies only contents the store does not hold yet")
    subprocess.run(["rm", "-rf", copy, store, many_copy, os.path.join(work, ".Many.pkg.docpkg-versions")])
