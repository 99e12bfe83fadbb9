#!/usr/bin/env python3
"""Crash and error injection tests for `docpkg put`/`rm` (issue 3).

Crash at every step: for each mutating system call S and each N = 1, 2, ... the command runs under
``strace -f -e inject=S:signal=KILL:when=N`` until a run completes without reaching the Nth call.
After each kill:
  * the package is byte-for-byte and mode-for-mode the old or the new state (files whose mtime both
    states share must keep it); with the exchange refused (--fallback) the package may also be
    missing for the instant between the two renames, which `check` must then repair;
  * `docpkg check` exits 0 and leaves exactly the old or new package and no leftovers beside it;
  * the same command run again succeeds and gives the new state.
--fallback adds ``-e inject=renameat2:error=EINVAL`` to every run: without the exchange, saves go by journal
(the package is changed in place, file by file, after a plan is committed), so right after a kill the package may
be part old, part new, never missing; `check` (recovery) must then complete the save.
--work DIR runs everything in a folder made in DIR (a mount of the file system to test); --plain leaves out what
FAT cannot hold (symbolic links, modes) and copies the package without them.

Settling (--settle): the same, killing `docpkg versions settle` at every step while it copies a pending version
(left by a put run with DOCPKG_NO_BACKGROUND_SETTLE=1); after each kill, `check` settles again and every version
must read back whole with the previous state's bytes.

With a pending version (--pending): the put/rm scenarios, each run while a pending version (left by an earlier
put, as --settle) still reads files the scenario's save replaces; after each kill, `check` (recovery, then the
settle) must leave every version whole: version 1 holds the package as made, and no version names a path as not
kept (a save killed between its swap and its record must hand the subtree it replaced to the store, not remove it,
and must leave a record of the root entry it added, or the earlier pending version takes that entry for its own).

A change only its change time shows (--hidden-change, with --pending): after the pending version is made, another
program writes `Data/a.bin` in place and sets its time back, and `chmod`s `Data/b.bin`; a scenario that rebuilds
`Data/` is added. Version 1 must then hold each of them as made, or name it as not kept (never the changed bytes or
mode, which only the files' change times tell apart: the build's own links and recovery's removal move them again).

Errors (--errors): EIO and ENOSPC at each write, fsync, link and rename call from the lock on (--syscalls picks
others, such as openat) → non-zero exit, one line ``docpkg: error: ...`` naming a path, the original package
intact, no temporary tree left; or, where the program gets past the failure, exit 0 and the new state; either way
`check` exits 0. With --pending, a pending version waits while the save fails: a save that fails after its swap
swaps back, and the pending version must still be whole (the renames moved its directory's times).

Concurrency (--concurrency K): two processes each put K distinct entries into one package at once;
all 2K must be there.

A seeded sample (--sample F --seed S): kill (or fail, with --errors) at each point with probability F, the same points for the same seed,
scenario and system call (the first and last call of each system call always); the seed is printed, so a failure
seen in a sample can be run again. `make crash-sweeps` (CI) samples; `make crash-test` and `make stress` kill at all.

Prints the number of crash points. Exit status 0 when everything passed.
"""

import argparse
import json
import hashlib
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile

SYSCALLS = ["openat", "write", "pwrite64", "fsync", "fdatasync", "syncfs", "linkat", "link", "mkdirat", "mkdir",
            "renameat2", "rename", "renameat", "unlinkat", "unlink", "rmdir", "fchmod", "fchmodat", "utimensat",
            "copy_file_range", "ioctl", "symlinkat", "symlink", "flock", "ftruncate"]
QUICK_SYSCALLS = ["openat", "write", "fsync", "linkat", "mkdirat", "renameat2", "renameat", "unlinkat", "fchmod"]
ERROR_SYSCALLS = ["write", "fsync", "linkat", "renameat2", "renameat", "copy_file_range", "mkdirat"]


def make_package(path, plain=False):
    """A small package with nested and never-listed directories, odd modes and a symlink (with `plain`, no
    symlink and no modes: FAT has neither)."""
    def write(rel, data, mode=0o644, mtime=1_600_000_000):
        full = os.path.join(path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        if not plain:
            os.chmod(full, mode)
        os.utime(full, ns=(mtime * 10**9 + 123, mtime * 10**9 + 123))
    write("Index.json", b'{"pages": 2}\n')
    write("Text.txt", b"Hello, world.\n" * 20, 0o600)
    write("Images/tram.png", bytes(range(256)) * 4)
    write("Images/bus.png", b"\x89PNG" + b"\x00" * 500, 0o444)
    write("Pages/p1/text.txt", b"page one\n")
    write("Pages/p2/text.txt", b"page two\n", 0o640)
    write("Pages/p2/deep/er/note.txt", b"deep\n", 0o755)
    write("Data/a.bin", bytes(range(200)), 0o640)
    write("Data/b.bin", b"b" * 300)
    if not plain:
        os.symlink("../Index.json", os.path.join(path, "Pages/index-link"))
        os.chmod(os.path.join(path, "Pages/p1"), 0o750)
    for d in ("Pages/p2/deep/er", "Pages/p2/deep", "Pages/p2", "Pages/p1", "Pages", "Images", "Data"):
        os.utime(os.path.join(path, d), ns=(1_500_000_000 * 10**9, 1_500_000_000 * 10**9))


def snapshot(path):
    """{relative path: (kind, mode, sha256 or link target, mtime_ns or None)}, or None if missing."""
    if not os.path.lexists(path):
        return None
    result = {}
    for directory, dirs, files in os.walk(path):
        for name in dirs + files:
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, path)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                result[rel] = ("link", None, os.readlink(full), None)
            elif stat.S_ISDIR(st.st_mode):
                result[rel] = ("dir", stat.S_IMODE(st.st_mode), None, None)
            else:
                with open(full, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                result[rel] = ("file", stat.S_IMODE(st.st_mode), digest, st.st_mtime_ns)
    return result


def same(state, reference, stable):
    """Whether `state` is `reference`, comparing mtimes only of files in `stable`."""
    if state is None or reference is None or state.keys() != reference.keys():
        return False
    for rel, (kind, mode, content, mtime) in reference.items():
        k, m, c, t = state[rel]
        if (k, m, c) != (kind, mode, content):
            return False
        if rel in stable and t != mtime:
            return False
    return True


class Scenario:
    """One command applied to the base package: `args` with PKG standing for the package."""

    def __init__(self, name, args, stdin=b""):
        self.name, self.args, self.stdin = name, args, stdin


def scenarios(source_file, quick):
    all_ = [
        Scenario("replace root file (stdin)", ["put", "PKG", "Text.txt"], b"rewritten text\n" * 3),
        Scenario("replace nested file (source)", ["put", "PKG", "Images/tram.png", source_file]),
        Scenario("add file to directory", ["put", "PKG", "Pages/p1/new.txt"], b"new page text\n"),
        Scenario("add file, new directories", ["put", "PKG", "Notes/2026/n.txt"], b"note\n"),
        Scenario("remove directory", ["rm", "PKG", "Pages", "-r"]),
        # One new root entry beside three subdirectories: renamed into the live root, the
        # subdirectories left in place (issue 14 row 3).
        Scenario("add root entry beside subdirectories", ["put", "PKG", "New.txt"], b"new root entry\n"),
        # One file of a folder the model never lists: renamed out of it to beside the package (issue 40).
        Scenario("remove nested file, no versions", ["rm", "--versions", "none", "PKG", "Data/a.bin"]),
        # The same with versions deferred (the default): the file renamed out goes into the store as the
        # pending version's replaced entry; a kill after the rename leaves it for recovery to hand over.
        Scenario("remove nested file, versions deferred", ["rm", "PKG", "Data/a.bin"]),
    ]
    return [all_[0], all_[3], all_[5]] if quick else all_


# Rebuilds `Data/`, linking the files --hidden-change changed into the new tree.
BESIDE_HIDDEN_CHANGE = Scenario("add file beside files changed by another program", ["put", "PKG", "Data/c.bin"],
                                b"c" * 100)


RESTORE = Scenario("restore version 1", ["versions", "restore", "PKG", "1"])
SETTLE = Scenario("settle a pending version", ["versions", "settle", "PKG"])
NO_SETTLER = dict(os.environ, DOCPKG_NO_BACKGROUND_SETTLE="1")


class Sample:
    """Which kill points a run visits: all of them, or each with probability `fraction`, the same ones for the
    same seed."""
    def __init__(self, fraction=1.0, seed=0):
        self.fraction, self.seed = fraction, seed

    def visits(self, scenario, syscall, n, first, last):
        if self.fraction >= 1 or n in (first, last) or n > last:
            return True
        return random.Random(f"{self.seed}:{scenario.name}:{syscall}:{n}").random() < self.fraction


class Runner:
    def __init__(self, docpkg, work, fallback, restore=False, settle=False, plain=False, pending=False,
                 sample=Sample(), hidden_change=False):
        self.docpkg, self.work, self.fallback, self.restore = docpkg, work, fallback, restore
        self.hidden_change = hidden_change
        self.sample = sample
        self.settle, self.plain, self.pending = settle, plain, pending
        # Saved by journal: between a kill and the recovery, the package may be part old, part new.
        self.journaled = fallback or plain
        self.base = os.path.join(work, "base", "Doc.pkg")
        os.makedirs(os.path.dirname(self.base))
        make_package(self.base, plain)
        if restore:
            # Version 1 is the package as made; the package then differs in two files. The versions
            # are settled here, in the foreground: each reset copies this store, and a detached settler
            # still copying a pending version would make some copies torn (a pending version also
            # names its files by their times, which a copy changes).
            for rel, data in (("Text.txt", b"changed\n"), ("Pages/p1/new.txt", b"new\n")):
                subprocess.run([docpkg, "put", self.base, rel], input=data, check=True, env=NO_SETTLER)
            subprocess.run([docpkg, "versions", "settle", self.base], check=True, env=NO_SETTLER)
        self.parent = os.path.join(work, "run")
        self.package = os.path.join(self.parent, "Doc.pkg")
        self.failures = []

    def reset(self):
        shutil.rmtree(self.parent, ignore_errors=True)
        os.makedirs(self.parent)
        copy = ["cp", "-r", "--preserve=timestamps"] if self.plain else ["cp", "-a"]
        subprocess.run(copy + [self.base, self.package], check=True)
        if self.settle or self.pending:
            # A pending version made here and now (its capture time must follow the copy's change times).
            subprocess.run([self.docpkg, "put", self.package, "Pages/p1/text.txt"], input=b"changed page\n",
                           check=True, env=NO_SETTLER)
        if self.hidden_change:
            # Another program, after the capture: a write in place with the time set back, and a chmod.
            changed = os.path.join(self.package, "Data/a.bin")
            status = os.stat(changed)
            with open(changed, "r+b") as f:
                f.write(b"CHANGED")
            os.utime(changed, ns=(status.st_atime_ns, status.st_mtime_ns))
            os.chmod(os.path.join(self.package, "Data/b.bin"), 0o600)
        if self.restore:
            store = os.path.join(os.path.dirname(self.base), ".Doc.pkg.docpkg-versions")
            subprocess.run(copy + [store, self.parent], check=True)
            subprocess.run([self.docpkg, "versions", "adopt", self.package], check=True,
                           env=NO_SETTLER)  # cp made a new inode

    def command(self, scenario):
        return [self.docpkg] + [self.package if a == "PKG" else a for a in scenario.args]

    def strace(self, inject, trace):
        if not inject and not self.fallback:
            return []
        extra = []
        if self.fallback:
            trace = sorted(set(trace) | {"renameat2"})
            extra = ["-e", "inject=renameat2:error=EINVAL"]
        return ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + ",".join(trace)] + extra + \
               (["-e", "inject=" + inject] if inject else [])

    def run(self, argv, stdin):
        # No detached settler: it would outlive the run and race with the next reset (the settle
        # itself is crash-tested with --settle; `check` settles after each kill).
        return subprocess.run(argv, input=stdin, capture_output=True, env=NO_SETTLER)

    def leftovers(self):
        return sorted(n for n in os.listdir(self.parent)
                      if n not in ("Doc.pkg", ".Doc.pkg.docpkg-lock", ".Doc.pkg.docpkg-versions"))

    def check_store(self, scenario, syscall, n):
        """Every listed version reads back whole (blobs checked against their hashes)."""
        listing = self.run([self.docpkg, "versions", "list", self.package, "--json"], b"")
        # (It exits 1 when a version names entries as not kept: as --hidden-change's may.)
        if listing.returncode != 0 and not (self.hidden_change and listing.returncode == 1 and listing.stdout):
            return self.fail(scenario, syscall, n, f"versions list failed: {listing.stderr.decode().strip()}")
        for version in json.loads(listing.stdout):
            shown = self.run([self.docpkg, "versions", "show", self.package, str(version["id"]), "Text.txt"], b"")
            if shown.returncode != 0:
                self.fail(scenario, syscall, n, f"version {version['id']} unreadable: {shown.stderr.decode().strip()}")
            if self.settle or self.pending:
                page = self.run([self.docpkg, "versions", "show", self.package, "1", "Pages/p1/text.txt"], b"")
                unkept = set(version.get("unkeptPaths") or [])
                if self.hidden_change and version["id"] == 1:
                    unkept -= self.hidden_change_kept(scenario, syscall, n)
                if page.stdout != b"page one\n" or unkept:
                    self.fail(scenario, syscall, n, f"version {version['id']} is not whole: {page.stdout!r}, "
                                                    f"not kept: {sorted(unkept)}")
            if self.pending and version["id"] == 1 and shown.stdout != b"Hello, world.\n" * 20:
                self.fail(scenario, syscall, n, f"version 1 has Text.txt {shown.stdout[:40]!r}")
        if (self.settle or self.pending) and not json.loads(listing.stdout):
            self.fail(scenario, syscall, n, "the pending version was not settled")

    def hidden_change_kept(self, scenario, syscall, n):
        """Checks that version 1 holds the files --hidden-change changed as made, or names them; returns those
        it names."""
        listing = json.loads(self.run([self.docpkg, "versions", "list", self.package, "--json"], b"").stdout)
        named = set(next((v.get("unkeptPaths") or [] for v in listing if v["id"] == 1), []))
        if "Data/a.bin" not in named:
            shown = self.run([self.docpkg, "versions", "show", self.package, "1", "Data/a.bin"], b"").stdout
            if shown != bytes(range(200)):
                self.fail(scenario, syscall, n, f"version 1 holds Data/a.bin as changed: {shown[:12]!r}")
        if "Data/b.bin" not in named:
            tree = self.run([self.docpkg, "versions", "show", self.package, "1"], b"").stdout.decode()
            line = next((l for l in tree.splitlines() if l.endswith(" b.bin")), "")
            if not line.startswith("file      0644 "):
                self.fail(scenario, syscall, n, f"version 1 holds Data/b.bin as changed: {line!r}")
        return {"Data/a.bin", "Data/b.bin"} & named

    def references(self, scenario):
        self.reset()
        old = snapshot(self.package)
        result = self.run(self.strace(None, ["write"]) + self.command(scenario), scenario.stdin)
        if result.returncode != 0:
            raise SystemExit(f"{scenario.name}: reference run failed: {result.stderr.decode()}")
        new = snapshot(self.package)
        stable = {rel for rel, v in old.items() if v[0] == "file" and rel in new and new[rel] == v}
        if self.settle or self.pending:
            stable.discard("Pages/p1/text.txt")  # written anew by each reset's put
        return old, new, stable

    def first_calls(self, scenario, syscalls):
        """{syscall: (N of its first call once the lock file is opened, N of its last call)}: earlier calls
        (loading the program's libraries) happen before anything touches the package, so killing there proves
        nothing. The last is that of this run: another may make a few more or fewer."""
        self.reset()
        trace = os.path.join(self.work, "trace.txt")
        traced = set(syscalls) | {"openat"} | ({"renameat2"} if self.fallback else set())
        argv = ["strace", "-f", "-qq", "-o", trace, "-e", "trace=" + ",".join(sorted(traced))]
        argv += ["-e", "inject=renameat2:error=EINVAL"] if self.fallback else []
        self.run(argv + self.command(scenario), scenario.stdin)
        before, counts = None, {}
        marker = "docpkg-versions/lock" if self.settle else "docpkg-lock"
        with open(trace) as f:
            for line in f:
                if before is None and marker in line:
                    before = dict(counts)
                name = line.split("(", 1)[0].split()[-1] if "(" in line else ""
                counts[name] = counts.get(name, 0) + 1
        before = counts if before is None else before
        return {name: (before.get(name, 0) + 1, counts.get(name, 0)) for name in syscalls}

    def crash(self, scenario, syscalls):
        old, new, stable = self.references(scenario)
        first = self.first_calls(scenario, syscalls)
        points = 0
        for syscall in syscalls:
            if self.fallback and syscall == "renameat2":
                continue
            n, last = first[syscall]
            while True:
                if not self.sample.visits(scenario, syscall, n, first[syscall][0], last):
                    n += 1
                    continue
                self.reset()
                argv = self.strace(f"{syscall}:signal=KILL:when={n}", [syscall]) + self.command(scenario)
                result = self.run(argv, scenario.stdin)
                if result.returncode == 0:
                    if not same(snapshot(self.package), new, stable):
                        self.fail(scenario, syscall, n, "completed run did not give the new state")
                    break
                if result.returncode not in (-9, 137):
                    self.fail(scenario, syscall, n, f"exit {result.returncode}: {result.stderr.decode().strip()}")
                    break
                points += 1
                self.after_kill(scenario, syscall, n, old, new, stable)
                n += 1
        return points

    def after_kill(self, scenario, syscall, n, old, new, stable):
        state = snapshot(self.package)
        if state is None:
            self.fail(scenario, syscall, n, "after the kill the package is missing")
        elif not (same(state, old, stable) or same(state, new, stable) or self.journaled):
            self.fail(scenario, syscall, n, "after the kill the package is neither old nor new")
        check = self.run([self.docpkg, "check", self.package], b"")
        damage = [line for line in check.stdout.decode().splitlines() if line.startswith("damaged: ")]
        hidden = ("damaged: version 1: Data/a.bin: not kept ", "damaged: version 1: Data/b.bin: not kept ")
        if self.hidden_change and check.returncode == 1 and damage and all(l.startswith(hidden) for l in damage):
            pass  # named, as they may be (check_store looks at the rest)
        elif check.returncode != 0:
            self.fail(scenario, syscall, n, f"check failed: {check.stderr.decode().strip()} {damage}")
        state = snapshot(self.package)
        if not (same(state, old, stable) or same(state, new, stable)):
            self.fail(scenario, syscall, n, "after check the package is neither old nor new")
        if self.leftovers():
            self.fail(scenario, syscall, n, f"check left {self.leftovers()}")
        if self.restore or self.settle or self.pending:
            self.check_store(scenario, syscall, n)
        again = self.run(self.strace(None, ["write"]) + self.command(scenario), scenario.stdin)
        was_new = same(state, new, stable)
        if again.returncode != 0 and not (was_new and scenario.args[0] == "rm"):
            self.fail(scenario, syscall, n, f"next run failed: {again.stderr.decode().strip()}")
        elif not same(snapshot(self.package), new, stable):
            self.fail(scenario, syscall, n, "next run did not give the new state")

    def errors(self, scenario, syscalls):
        old, new, stable = self.references(scenario)
        first = self.first_calls(scenario, syscalls)
        points = 0
        for syscall in syscalls:
            for error in ("EIO", "ENOSPC"):
                # Every call from the lock on: a failure the program handles (a best-effort step) must leave
                # the new state, one it does not must leave the old one, and either way `check` must pass.
                start, last = first[syscall]
                for n in range(start, last + 1):
                    if not self.sample.visits(scenario, f"{syscall}={error}", n, start, last):
                        continue
                    self.reset()
                    argv = self.strace(f"{syscall}:error={error}:when={n}", [syscall]) + self.command(scenario)
                    result = self.run(argv, scenario.stdin)
                    failure = f"{syscall}={error}"
                    if result.returncode == 0:
                        if not same(snapshot(self.package), new, stable):
                            self.fail(scenario, failure, n, "succeeded, but the package is not the new state")
                    else:
                        points += 1
                        lines = result.stderr.decode().strip().splitlines()
                        if len(lines) != 1 or not lines[0].startswith("docpkg: error: ") or "'" not in lines[0]:
                            self.fail(scenario, failure, n, f"not one error line naming a path: {lines}")
                        if not same(snapshot(self.package), old, stable):
                            self.fail(scenario, failure, n, "original package changed")
                        if self.leftovers():
                            self.fail(scenario, failure, n, f"left {self.leftovers()}")
                    # A failed save leaves no version behind that is not whole (a record whose replaced tree
                    # went back into the package named it "not kept"); nor does a save that swapped and swapped
                    # back leave the versions before it naming what it touched.
                    check = self.run([self.docpkg, "check", self.package], b"")
                    if check.returncode != 0:
                        damage = [l for l in check.stdout.decode().splitlines() if l.startswith("damaged: ")]
                        self.fail(scenario, failure, n, f"check failed: {check.stderr.decode().strip()} {damage}")
        return points

    def fail(self, scenario, syscall, n, message):
        line = f"FAIL {scenario.name}: {syscall} #{n}: {message}"
        print(line, flush=True)
        self.failures.append(line)


def concurrency(docpkg, work, count):
    parent = os.path.join(work, "concurrent")
    os.makedirs(parent)
    package = os.path.join(parent, "C.pkg")
    subprocess.run([docpkg, "put", package, "seed.txt", "--create"], input=b"seed\n", check=True)
    script = "for i in $(seq 1 %d); do echo \"$1 $i\" | %s put %s \"$1/e$i.txt\" || exit 1; done" % (count, docpkg, package)
    procs = [subprocess.Popen(["sh", "-c", script, "sh", who]) for who in ("a", "b")]
    codes = [p.wait() for p in procs]
    present = sum(len(files) for d, _, files in os.walk(package)) - 1
    ok = codes == [0, 0] and present == 2 * count
    print(f"concurrency: 2 processes x {count} puts -> {present} entries present "
          f"({'ok' if ok else 'FAIL, exit codes %s' % codes})")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docpkg", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "docpkg"))
    parser.add_argument("--quick", action="store_true", help="fewer scenarios and system calls (for the test suite)")
    parser.add_argument("--fallback", action="store_true", help="refuse RENAME_EXCHANGE (inject EINVAL)")
    parser.add_argument("--errors", action="store_true", help="also inject EIO/ENOSPC")
    parser.add_argument("--concurrency", type=int, default=0, metavar="K", help="also run 2 x K concurrent puts")
    parser.add_argument("--restore", action="store_true",
                        help="crash-test `docpkg versions restore` instead of put/rm")
    parser.add_argument("--scenario", metavar="TEXT", help="only the put/rm scenarios whose name contains TEXT")
    parser.add_argument("--settle", action="store_true",
                        help="crash-test `docpkg versions settle` of a pending version instead of put/rm")
    parser.add_argument("--syscalls", metavar="LIST",
                        help="kill only at these system calls (comma-separated; default: all, or the --quick set)")
    parser.add_argument("--pending", action="store_true",
                        help="crash-test put/rm while a pending version reads what they replace")
    parser.add_argument("--hidden-change", action="store_true",
                        help="with --pending: another program changes two files in ways only their change times show")
    parser.add_argument("--crash", action=argparse.BooleanOptionalAction, default=True, help="run the crash test")
    parser.add_argument("--work", metavar="DIR", help="run in a folder made in DIR (a mount of the file system to test)")
    parser.add_argument("--plain", action="store_true", help="no symbolic links or modes in the package (for FAT)")
    parser.add_argument("--sample", type=float, default=float(os.environ.get("DOCPKG_CRASH_SAMPLE", "1")),
                        metavar="F", help="kill at each point with probability F (default: $DOCPKG_CRASH_SAMPLE or 1)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("DOCPKG_CRASH_SEED", "0")) or None,
                        help="the sample's seed (default: $DOCPKG_CRASH_SEED, else a new one, printed)")
    args = parser.parse_args()
    if args.hidden_change and not args.pending:
        parser.error("--hidden-change goes with --pending")
    if not 0 < args.sample <= 1:
        parser.error(f"--sample {args.sample}: must be above 0 and at most 1")
    sample = Sample(args.sample, args.seed or random.randrange(1, 1 << 31))
    if sample.fraction < 1:
        print(f"kill points sampled: {sample.fraction:g} of them, seed {sample.seed} "
              f"(again: --sample {sample.fraction:g} --seed {sample.seed})", flush=True)
    docpkg = os.path.abspath(args.docpkg)
    work = tempfile.mkdtemp(prefix="docpkg-crash-", dir=args.work)
    ok = True
    try:
        source = os.path.join(work, "source.bin")
        with open(source, "wb") as f:
            f.write(os.urandom(3000))
        if args.crash:
            for fallback in ([True] if args.fallback else [False]):
                runner = Runner(docpkg, os.path.join(work, "crash-fallback" if fallback else "crash"), fallback,
                                args.restore, args.settle, args.plain, args.pending, sample, args.hidden_change)
                syscalls = args.syscalls.split(",") if args.syscalls else QUICK_SYSCALLS if args.quick else SYSCALLS
                total = 0
                chosen = [RESTORE] if args.restore else [SETTLE] if args.settle else [
                    s for s in scenarios(source, args.quick) + ([BESIDE_HIDDEN_CHANGE] if args.hidden_change else [])
                    if args.scenario is None or args.scenario in s.name]
                for scenario in chosen:
                    points = runner.crash(scenario, syscalls)
                    total += points
                    print(f"crash{' (fallback)' if fallback else ''}: {scenario.name}: {points} crash points", flush=True)
                print(f"crash{' (fallback)' if fallback else ''}: {total} crash points, "
                      f"{len(runner.failures)} failures", flush=True)
                ok = ok and not runner.failures
        if args.errors:
            runner = Runner(docpkg, os.path.join(work, "errors"), args.fallback, plain=args.plain,
                            pending=args.pending, sample=sample)
            total = 0
            syscalls = args.syscalls.split(",") if args.syscalls else ERROR_SYSCALLS
            for scenario in scenarios(source, args.quick):
                if args.scenario is None or args.scenario in scenario.name:
                    total += runner.errors(scenario, syscalls)
            print(f"errors: {total} injected failures, {len(runner.failures)} problems", flush=True)
            ok = ok and not runner.failures
        if args.concurrency:
            ok = concurrency(docpkg, work, args.concurrency) and ok
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", work])
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
