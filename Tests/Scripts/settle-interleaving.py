#!/usr/bin/env python3
"""Interleavings of a save and a settle (issue 35): every version holds exactly the state its save replaced.

`docpkg put`/`rm` keep the state they replace as a *pending* version, and `docpkg versions settle` copies it later
while saves go on (see Sources/DocumentPackage/Versions/SaveSequence.swift for the protocol). This script pauses
one of the two processes after each of its system calls in turn and runs the other one whole meanwhile:

  * save paused: the save runs under ``strace -e inject=CALL:signal=SIGSTOP:when=N``; once it is stopped, a settle
    runs (it may finish, or wait for the package lock, which the paused save may hold); then the save goes on;
  * settle paused: the same with the roles swapped: the settle stops after its Nth CALL, a save runs whole, and
    the settle goes on.
  * settle killed (--kill): the settle is killed after its Nth CALL while the save is paused after its own Mth.
  * settle killed while it removes a settled version (always, after each unlink in `pending/`): its unlinks
    move the change times of the package files a save carried over by hard links; the next settle must not take
    them for another program's change. Then the save runs whole.
  * a save that fails after its pending record is in place (the flush of `pending/` fails, ``inject=fsync:error=EIO``)
    is paused right after the record's rename; a settle, the earlier versions settled already, is paused after each
    of its steps from its reading of that record on (its `openat`s and `getdents64`s, 24 of each); the save goes on
    and fails (it removes its record and swaps back), then the settle goes on: it must make no version of that save.

After each case a last settle runs, `docpkg check` must exit 0 without naming damage, and every version must hold
the state before the save that made it, byte for byte (`docpkg diff PACKAGE@ID SNAPSHOT` finds nothing), which a
copy of the package taken before each save records. Before the paused save, three saves leave pending versions in
nested folders, a removal and a root entry, so that the settle has several to walk.

Steps of the settle are sampled (it makes thousands of calls): --points K keeps K of each call's steps, spread
evenly, with --seed shifting them; --points 0 takes every step. --phases runs some of the four kinds of case
(save-paused, settle-paused, settle-removal, settle-killed; all by default, the last only with --kill), so that the
test suite can run them side by side. Prints the cases run and " N failures".
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from paused import resume, stopped

SAVE_CALLS = ["openat", "linkat", "mkdirat", "renameat2", "renameat", "unlinkat", "fsync"]
PHASES = ["save-paused", "settle-paused", "settle-removal", "failed-save", "settle-killed"]
SETTLE_CALLS = ["openat", "newfstatat", "getdents64", "renameat", "unlinkat", "copy_file_range", "write"]


def make_package(path):
    """Nested folders, a root file and enough files that a settle's walk takes a while."""
    for section in range(4):
        for sub in range(2):
            folder = os.path.join(path, f"sec{section}", f"sub{sub}")
            os.makedirs(folder)
            for number in range(6):
                with open(os.path.join(folder, f"f{number}.txt"), "w") as f:
                    f.write(f"section {section} sub {sub} file {number}\n" * (number + 1))
    with open(os.path.join(path, "root0.txt"), "w") as f:
        f.write("root, first state\n")


# The saves before the paused one, then the paused one's candidates (one per case, in turn).
EARLIER = [
    ["put", "{P}", "sec1/sub1/new1.txt", "{new}"],
    ["rm", "{P}", "sec2/sub0/f3.txt"],
    ["put", "{P}", "root1.txt", "{new}"],
]
PAUSED = [
    ["put", "{P}", "root0.txt", "{changed}"],
    ["put", "{P}", "sec1/sub1/f2.txt", "{changed}"],
    ["rm", "{P}", "sec3", "-r"],
]


class Case:
    def __init__(self, docpkg, work, index):
        self.docpkg = docpkg
        self.dir = tempfile.mkdtemp(prefix="case-", dir=work)
        self.package = os.path.join(self.dir, "Q.mydoc")
        self.new = os.path.join(self.dir, "new.txt")
        self.changed = os.path.join(self.dir, "changed.txt")
        self.env = dict(os.environ, DOCPKG_NO_BACKGROUND_SETTLE="1")
        self.snapshots = []
        self.save = [a.format(P=self.package, new=self.new, changed=self.changed) for a in PAUSED[index % len(PAUSED)]]
        make_package(self.package)
        with open(self.new, "w") as f:
            f.write("a new file\n")
        with open(self.changed, "w") as f:
            f.write("changed contents\n")
        for argv in EARLIER:
            self.snapshot()
            self.run([a.format(P=self.package, new=self.new, changed=self.changed) for a in argv])
        self.snapshot()  # the state the paused save replaces

    def snapshot(self):
        target = os.path.join(self.dir, f"snap{len(self.snapshots) + 1}")
        shutil.copytree(self.package, target, symlinks=True)
        self.snapshots.append(target)

    def run(self, argv, check=True):
        result = subprocess.run([self.docpkg] + argv, env=self.env, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {result.stderr.strip()}")
        return result

    def traced(self, argv, call, n, action="SIGSTOP"):
        inject = f"inject={call}:signal={action}:when={n}"
        return subprocess.Popen(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={call}", "-e", inject, self.docpkg] + argv,
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def count(self, argv, calls):
        """How many times `argv` makes each call (run on this case, which is then thrown away)."""
        trace = os.path.join(self.dir, "count.trace")
        subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=" + ",".join(calls), self.docpkg] + argv,
                       env=self.env, capture_output=True, timeout=120)
        counts = {c: 0 for c in calls}
        with open(trace) as f:
            for line in f:
                rest = line.split(None, 1)[1] if line[:1].isdigit() else line
                name = rest.split("(", 1)[0]
                if name in counts:
                    counts[name] += 1
        return counts

    def record_steps(self):
        """(N of the `renameat` that puts the paused save's pending record in place, N of the `fsync` after it: the
        flush of `pending/`), counted on this case (which is then thrown away)."""
        trace = os.path.join(self.dir, "record.trace")
        subprocess.run(["strace", "-f", "-qq", "-y", "-o", trace, "-e", "trace=renameat,fsync", self.docpkg] + self.save,
                       env=self.env, capture_output=True, timeout=120)
        renames = fsyncs = 0
        record = None
        with open(trace) as f:
            for line in f:
                if "renameat(" in line:
                    renames += 1
                    if record is None and re.search(r'/pending/[0-9]+"\) = 0', line):
                        record = renames
                elif "fsync(" in line:
                    fsyncs += 1
                    if record is not None:
                        return record, fsyncs
        raise RuntimeError("the save renamed no pending record into place: the case no longer tests its failure")

    def failing_save(self, record, flush):
        """The paused save, set to fail at the flush of `pending/` after its record's rename (`record`, `flush`: the
        calls' numbers), started and stopped right after that rename."""
        save = subprocess.Popen(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat,fsync",
             "-e", f"inject=renameat:signal=SIGSTOP:when={record}", "-e", f"inject=fsync:error=EIO:when={flush}",
             self.docpkg] + self.save, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not stopped(save):
            raise RuntimeError(f"{' '.join(self.save)} was not paused at its record's rename")
        return save

    def settle_steps_after_record(self, record, flush, calls, span):
        """{call: the numbers of the settle's calls from its reading of the failing save's record on}, `span` of
        each, from a settle traced beside that save paused (this case is then thrown away): before it, the settle
        has not read the record, as if it started after the save."""
        trace = os.path.join(self.dir, "settle.trace")
        self.settle_beside(self.failing_save(record, flush), 3,
                           ["strace", "-f", "-qq", "-y", "-o", trace, "-e", "trace=" + ",".join(calls)])
        counts = {c: 0 for c in calls}
        first = None
        with open(trace) as f:
            for line in f:
                rest = line.split(None, 1)[1] if line[:1].isdigit() else line
                name = rest.split("(", 1)[0]
                if name not in counts:
                    continue
                counts[name] += 1
                if first is None and name == "openat" and re.search(r'/pending/[0-9]+"', rest):
                    first = dict(counts)
        if first is None:
            raise RuntimeError("the settle never read the failing save's record: the case no longer tests it")
        return {c: list(range(max(first[c], 1), min(counts[c], first[c] + span) + 1)) for c in calls}

    def settle_beside(self, save, grace, prefix=()):
        """Runs a settle (under `prefix`, a tracer) beside `save`, paused: it may finish within `grace` seconds, or
        wait for the package lock the paused save holds; then the save goes on, and both end."""
        settle = subprocess.Popen(list(prefix) + [self.docpkg, "versions", "settle", self.package], env=self.env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            settle.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        resume(save)
        settle.wait(timeout=120)

    def removal_unlinks(self):
        """The numbers of the settle's `unlinkat` calls in `pending/`: a settled version's record, the files and
        folders of its replaced tree (`pending/ID.old`), counted on this case (which is then thrown away)."""
        trace = os.path.join(self.dir, "removal.trace")
        subprocess.run(["strace", "-f", "-qq", "-y", "-o", trace, "-e", "trace=unlinkat", self.docpkg, "versions",
                        "settle", self.package], env=self.env, capture_output=True, timeout=120)
        numbers = []
        with open(trace) as f:
            calls = [line for line in f if "unlinkat(" in line]
        for number, line in enumerate(calls, start=1):
            if "/pending" in line.split(",", 1)[0] and "= 0" in line.rsplit(")", 1)[-1]:
                numbers.append(number)
        return numbers

    def check(self):
        """Returns a failure message, or None."""
        self.run(["versions", "settle", self.package], check=False)
        check = self.run(["check", self.package], check=False)
        if check.returncode != 0 or "damaged" in check.stdout + check.stderr:
            return "check: " + (check.stdout + check.stderr).strip().replace("\n", " | ")
        listing = self.run(["versions", "list", self.package]).stdout.split("\n")[1:]
        ids = [int(line.split()[0]) for line in listing if line.strip()]
        if ids != list(range(1, len(self.snapshots) + 1)):
            return f"versions {ids}, expected 1...{len(self.snapshots)}"
        for version, snapshot in zip(ids, self.snapshots):
            diff = self.run(["diff", f"{self.package}@{version}", snapshot], check=False)
            if diff.returncode != 0:
                return f"version {version} is not the state its save replaced: " + diff.stdout.strip().replace("\n", " | ")
        return None


def steps(count, points, rng):
    if points == 0 or count <= points:
        return list(range(1, count + 1))
    stride = count / points
    offset = rng.random()
    return sorted({min(count, int((i + offset) * stride) + 1) for i in range(points)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docpkg", required=True)
    parser.add_argument("--work", default=None)
    parser.add_argument("--points", type=int, default=6, help="steps of each settle call to pause at (0: all)")
    parser.add_argument("--save-points", type=int, default=0, help="steps of each save call (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kill", action="store_true", help="also kill the settle beside a paused save")
    parser.add_argument("--phases", default=",".join(PHASES),
                        help=f"comma-separated kinds of case to run (default: all of {', '.join(PHASES)})")
    args = parser.parse_args()
    phases = args.phases.split(",")
    if not phases or any(phase not in PHASES for phase in phases):
        parser.error(f"--phases {args.phases}: each must be one of {', '.join(PHASES)}")
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="settle-interleaving-", dir=args.work)
    cases = failures = 0

    def judge(case, kind, process, role):
        """One case done: the paused or killed process's outcome, then the versions."""
        nonlocal cases, failures
        cases += 1
        message = None
        if process is not None and process.returncode != 0:
            message = f"the {role} failed: " + process.stderr.read().strip()
        else:
            message = case.check()
        if message is None:
            shutil.rmtree(case.dir)
        else:
            failures += 1
            print(f"FAIL {kind}: {message}", flush=True)

    try:
        # The save paused after each of its steps, a settle run whole beside it.
        for variant in range(len(PAUSED) if "save-paused" in phases else 0):
            probe = Case(args.docpkg, work, variant)
            counts = probe.count(probe.save, SAVE_CALLS)
            shutil.rmtree(probe.dir)
            for call in SAVE_CALLS:
                for n in steps(counts[call], args.save_points, rng):
                    case = Case(args.docpkg, work, variant)
                    save = case.traced(case.save, call, n)
                    if stopped(save):
                        case.settle_beside(save, 1.5)
                    else:
                        save.wait(timeout=120)
                    kind = f"{' '.join(PAUSED[variant][:1] + PAUSED[variant][2:3])} paused after {call} #{n}"
                    judge(case, kind, save, "save")

        # The settle paused after each of its (sampled) steps, a save run whole beside it.
        for variant in range(len(PAUSED) if "settle-paused" in phases else 0):
            probe = Case(args.docpkg, work, variant)
            counts = probe.count(["versions", "settle", probe.package], SETTLE_CALLS)
            shutil.rmtree(probe.dir)
            for call in SETTLE_CALLS:
                for n in steps(counts[call], args.points, rng):
                    case = Case(args.docpkg, work, variant)
                    settle = case.traced(["versions", "settle", case.package], call, n)
                    if stopped(settle):
                        # In the background: a settle paused holding off saves (its last try) makes it wait.
                        save = subprocess.Popen([case.docpkg] + case.save, env=case.env, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL)
                        try:
                            save.wait(timeout=5)
                        except subprocess.TimeoutExpired:
                            pass
                        resume(settle)
                        if save.wait(timeout=120) != 0:
                            raise RuntimeError(f"{' '.join(case.save)} failed beside a paused settle")
                    else:
                        settle.wait(timeout=120)
                        case.run(case.save)
                    judge(case, f"settle paused after {call} #{n} beside {PAUSED[variant][0]}", settle, "settle")

        # The settle killed after each unlink of a settled version's replaced tree, then the save (issue 35: a
        # settle killed there, before it noted the unlinks, made the next one name the carried-over files).
        for variant in range(len(PAUSED) if "settle-removal" in phases else 0):
            probe = Case(args.docpkg, work, variant)
            unlinks = probe.removal_unlinks()
            shutil.rmtree(probe.dir)
            if not unlinks:
                raise RuntimeError("the settle removed no replaced tree: the case no longer tests its removal")
            for n in unlinks:
                case = Case(args.docpkg, work, variant)
                settle = case.traced(["versions", "settle", case.package], "unlinkat", n, action="SIGKILL")
                settle.wait(timeout=120)
                case.run(case.save)
                judge(case, f"settle killed after unlinkat #{n} (its removal) before {PAUSED[variant][0]}", None,
                      "settle")

        # A save that fails once its record is in place, paused there; a settle paused after each of its steps (the
        # record it reads is that save's); the save fails whole, then the settle goes on (issue 35: it made a version
        # of the record the failed save had removed, naming its folder not kept).
        for variant in range(len(PAUSED) if "failed-save" in phases else 0):
            probe = Case(args.docpkg, work, variant)
            probe.run(["versions", "settle", probe.package])
            record, flush = probe.record_steps()
            shutil.rmtree(probe.dir)
            probe = Case(args.docpkg, work, variant)
            probe.run(["versions", "settle", probe.package])
            after_record = probe.settle_steps_after_record(record, flush, ["openat", "getdents64"], 24)
            shutil.rmtree(probe.dir)
            for call, numbers in after_record.items():
                for n in numbers:
                    case = Case(args.docpkg, work, variant)
                    case.run(["versions", "settle", case.package])
                    case.snapshots.pop()  # the failed save makes no version
                    save = case.failing_save(record, flush)
                    settle = case.traced(["versions", "settle", case.package], call, n)
                    stopped(settle, limit=3)  # or done, or waiting for the package lock the paused save holds
                    resume(save)
                    if save.returncode == 0:
                        raise RuntimeError(f"{' '.join(case.save)} did not fail at the flush of pending/")
                    resume(settle)  # (stopped now or later, or never)
                    judge(case, f"settle paused after {call} #{n} beside {PAUSED[variant][0]} failing after its record",
                          settle, "settle")

        # The settle killed at a step while a save is paused at one (sampled pairs).
        if args.kill and "settle-killed" in phases:
            for variant in range(len(PAUSED)):
                probe = Case(args.docpkg, work, variant)
                save_counts = probe.count(probe.save, SAVE_CALLS)
                settle_counts = probe.count(["versions", "settle", probe.package], SETTLE_CALLS)
                shutil.rmtree(probe.dir)
                for _ in range(max(args.points, 1) * 2):
                    save_call = rng.choice([c for c in SAVE_CALLS if save_counts[c]])
                    settle_call = rng.choice([c for c in SETTLE_CALLS if settle_counts[c]])
                    m = rng.randint(1, save_counts[save_call])
                    n = rng.randint(1, settle_counts[settle_call])
                    case = Case(args.docpkg, work, variant)
                    settle = case.traced(["versions", "settle", case.package], settle_call, n, action="SIGKILL")
                    save = case.traced(case.save, save_call, m)
                    if stopped(save):
                        try:
                            settle.wait(timeout=3)  # killed, done, or waiting for the lock the paused save holds
                        except subprocess.TimeoutExpired:
                            pass
                        resume(save)
                        settle.wait(timeout=120)
                    else:
                        save.wait(timeout=120)
                        settle.wait(timeout=120)
                    judge(case, f"settle killed after {settle_call} #{n}, save paused after {save_call} #{m}", save,
                          "save")
    finally:
        if failures == 0:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{cases} interleavings, {failures} failures")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
