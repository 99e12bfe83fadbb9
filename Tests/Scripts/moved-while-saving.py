#!/usr/bin/env python3
"""A package renamed at each step of a journaled save (issue 35): it ends old or new at its new name, no journal left.

A journaled save (what FAT, exFAT and sshfs get: here forced by refusing the exchange, ``renameat2`` → EINVAL; with
--exchange, the exchange ext4 does) of
`docpkg versions restore Q.mydoc 1` and of `docpkg put` runs under ``strace -e inject=CALL:signal=SIGSTOP:when=N``;
once it is stopped, the package is renamed (`mv Q.mydoc R.mydoc`, as a file manager does at any moment) and the
save goes on (with --kill, it is killed instead, as a crash or a power cut would leave it). Then
`docpkg check R.mydoc` runs, and:
  * the save either succeeded and R.mydoc is its new state, or failed with one line and R.mydoc is the old or the
    new state once `check` ran; `check` says ok only then;
  * no journal, temporary tree or lock file is left beside either name (a killed save's, left beside the old name,
    are found from the new one: its lock file says whose they are).
With --kill --unstable-inodes (exFAT through FUSE, sshfs: a renamed package gets another inode, and the journal cannot
be told its own), `check` at the new name may instead name the journal and exit 1, never saying ok; the package is then
renamed back, as that message says, and checked there, where it must end old or new. --kill --remounted makes that
happen on any file system: the killed save's journal is made to name another root, as a remount would leave it.
With --elsewhere the package is moved to another folder instead, its version store with it (as the README asks):
a save that cannot put the previous state back then keeps it beside the old name as `.Q.mydoc.docpkg-previous`,
which its error names and which must hold the old state. The crash sweeps run it for the restore; a put paused
after its swap and moved fails to write its pending record (by the store's old path) and swaps back, and the
earlier pending versions must stay whole (its marker records the times its renames left: 4 of 99 steps, every 2nd,
named the folder it renamed in not kept before; crash-test.py --errors --pending fails such a put on a full disk).
--work DIR runs in a folder made in DIR (a mount of the file system to test, where the exchange may be refused
for real). --scenarios restore or put runs one of the two (the test suite runs them side by side). Prints the cases
and " N failures".
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from paused import kill, resume, stopped

CALLS = ["openat", "mkdirat", "renameat", "unlinkat", "fsync"]


def make(path):
    for section in range(3):
        for sub in range(2):
            folder = os.path.join(path, f"sec{section}", f"sub{sub}")
            os.makedirs(folder)
            for number in range(5):
                with open(os.path.join(folder, f"f{number}.txt"), "w") as f:
                    f.write(f"{section} {sub} {number} first\n")


def state(path):
    files = {}
    for directory, _, names in os.walk(path):
        for name in names:
            full = os.path.join(directory, name)
            with open(full, "rb") as f:
                files[os.path.relpath(full, path)] = f.read()
    return files


class Case:
    def __init__(self, args, scenario):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="moved-", dir=args.work)
        self.q = os.path.join(self.dir, "Q.mydoc")
        self.r = os.path.join(self.dir, "away", "Q.mydoc") if args.elsewhere else os.path.join(self.dir, "R.mydoc")
        os.makedirs(os.path.dirname(self.r), exist_ok=True)
        self.env = dict(os.environ, DOCPKG_NO_BACKGROUND_SETTLE="1")
        make(self.q)
        first = state(self.q)
        self.docpkg(["put", self.q, "sec0/sub0/f0.txt", "-"], input=b"second\n")  # version 1: the first state
        for section in range(3):  # the second state: more files
            self.docpkg(["put", self.q, f"sec{section}/sub1/extra.txt", "-"], input=b"extra\n")
        self.before = state(self.q)
        if scenario == "restore":
            self.save = ["versions", "restore", self.q, "1"]
            self.after = first
        else:
            self.save = ["put", self.q, "sec2/sub0/f4.txt", "-"]
            self.after = dict(self.before, **{"sec2/sub0/f4.txt": b"put\n"})
        self.input = b"" if scenario == "restore" else b"put\n"

    def docpkg(self, argv, input=b""):
        result = subprocess.run([self.args.docpkg] + argv, input=input, env=self.env, capture_output=True,
                                timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{argv}: {result.stderr.decode().strip()}")
        return result

    def traced(self, call, n):
        inject = ([] if self.args.exchange else ["-e", "inject=renameat2:error=EINVAL"]) + [
            "-e", f"inject={call}:signal=SIGSTOP:when={n}"]
        return subprocess.Popen(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={call},renameat2"] + inject
            + [self.args.docpkg] + self.save,
            env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def count(args, scenario, call):
    case = Case(args, scenario)
    trace = os.path.join(case.dir, "trace")
    inject = [] if args.exchange else ["-e", "inject=renameat2:error=EINVAL"]
    subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", f"trace={call}"] + inject + [args.docpkg] + case.save,
                   input=case.input, env=case.env, capture_output=True, timeout=120)
    with open(trace) as f:
        calls = sum(1 for line in f if f"{call}(" in line)
    shutil.rmtree(case.dir)
    return calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docpkg", required=True)
    parser.add_argument("--work", default=None)
    parser.add_argument("--every", type=int, default=1, help="pause at every Kth step of each call")
    parser.add_argument("--calls", default=",".join(CALLS),
                        help=f"comma-separated system calls to pause after (default: {','.join(CALLS)})")
    parser.add_argument("--kill", action="store_true", help="kill the save once the package is renamed")
    parser.add_argument("--exchange", action="store_true",
                        help="let the save exchange (ext4's own way) instead of forcing the journal")
    parser.add_argument("--elsewhere", action="store_true",
                        help="move the package and its version store to another folder instead of renaming it")
    parser.add_argument("--unstable-inodes", action="store_true",
                        help="with --kill: the file system gives a renamed package another inode (exFAT through FUSE, "
                             "sshfs), so check may name the journal instead; the package is then renamed back")
    parser.add_argument("--remounted", action="store_true",
                        help="with --kill: the journal's record of the root names another inode, as after a remount "
                             "of a file system whose inode numbers do not last (implies --unstable-inodes)")
    parser.add_argument("--scenarios", default="restore,put",
                        help="comma-separated saves to pause: restore, put (default: both)")
    args = parser.parse_args()
    scenarios = args.scenarios.split(",")
    calls = args.calls.split(",")
    if any(call not in CALLS for call in calls):
        parser.error(f"--calls {args.calls}: each must be one of {','.join(CALLS)}")
    if args.elsewhere and args.kill:
        parser.error("--elsewhere --kill: a killed save's leftovers are found from a new name in the same folder only")
    if not scenarios or any(scenario not in ("restore", "put") for scenario in scenarios):
        parser.error(f"--scenarios {args.scenarios}: each must be restore or put")
    cases = failures = 0
    for scenario in scenarios:
        for call in calls:
            for n in range(1, count(args, scenario, call) + 1, args.every):
                case = Case(args, scenario)
                save = case.traced(call, n)
                save.stdin.write(case.input)
                save.stdin.close()
                moved = stopped(save)
                if moved:
                    os.rename(case.q, case.r)
                    if args.elsewhere:
                        store = ".Q.mydoc.docpkg-versions"
                        os.rename(os.path.join(case.dir, store), os.path.join(case.dir, "away", store))
                    if args.kill:
                        kill(save)
                        root = os.path.join(case.dir, ".Q.mydoc.docpkg-journal", "root")
                        if args.remounted and os.path.exists(root):
                            with open(root, "w") as f:
                                f.write("1 1\n")  # the inode numbers a remount gives are not those recorded
                    else:
                        resume(save)
                else:
                    save.wait(timeout=120)
                cases += 1
                where = case.r if moved else case.q
                check = subprocess.run([args.docpkg, "check", where], env=case.env, capture_output=True, timeout=120)
                told = moved and args.kill and (args.unstable_inodes or args.remounted) and check.returncode != 0 and b"unfinished: " in check.stdout
                if told:
                    # The journal could not be told this package's: check named it instead of calling the package
                    # ok. As it says, the package goes back to its old name and is checked there.
                    os.rename(where, case.q)
                    where = case.q
                    check = subprocess.run([args.docpkg, "check", where], env=case.env, capture_output=True,
                                           timeout=120)
                after = state(where)
                problems = []
                killed = moved and args.kill
                # strace's own complaints (a busy machine: "Unexpected wait status") are not the save's error.
                error = "\n".join(line for line in save.stderr.read().decode().strip().split("\n")
                                  if not line.startswith("strace: "))
                if not killed and save.returncode != 0 and len(error.split("\n")) != 1:
                    problems.append("the save's error is not one line: " + error.replace("\n", " | "))
                if check.returncode != 0:
                    problems.append("check: " + (check.stdout + check.stderr).decode().strip().replace("\n", " | "))
                if moved and os.path.exists(case.q) and not told:
                    problems.append("a package was made at the old name")
                previous = os.path.join(case.dir, ".Q.mydoc.docpkg-previous")
                if os.path.exists(previous):
                    if previous not in error:
                        problems.append("a previous state was kept that the error does not name: " + error)
                    elif state(previous) != case.before:
                        problems.append("the previous state kept is not the package's previous state")
                if not killed and save.returncode == 0 and after != case.after:
                    problems.append("the save succeeded, but the package is not its new state")
                elif after not in (case.before, case.after):
                    problems.append("neither old nor new after check")
                # Nothing a save made is left beside either name (a killed save's journal, temporary tree and lock
                # file beside the old name are found from the new one); only the version store stays.
                left = [n for n in sorted(set(os.listdir(case.dir)) | set(os.listdir(os.path.dirname(case.r))))
                        if n.startswith((".Q.mydoc.docpkg-", ".R.mydoc.docpkg-"))
                        and not n.endswith((".docpkg-versions", ".docpkg-previous"))]
                if left:
                    problems.append("left beside: " + ", ".join(left))
                if problems:
                    failures += 1
                    print(f"FAIL {scenario} paused after {call} #{n}{' and moved' if moved else ''}"
                          f"{' and killed' if killed else ''}: "
                          + "; ".join(problems), flush=True)
                else:
                    shutil.rmtree(case.dir)
    print(f"{cases} renames during saves, {failures} failures")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
