#!/usr/bin/env python3
"""Versions under load (issue 35): every listed version holds exactly a state the package had.

For --seconds, with both cores kept busy by spin loops and the disk by a writer that fsyncs, several writer processes
change one package with `docpkg put` (a new file, or a new version of one of their files), `rm` (one of their files)
and `versions restore` (a random version), each followed by the detached settle `docpkg` starts; a reader runs `cat`
and `inspect`; a killer sends SIGKILL to running `docpkg versions settle` processes at random moments; another
writer saves the package elsewhere with `pack`/`unpack` (save-as by copy).

Every file the writers write says where it belongs: `w3/n17.txt` holds `w3 n17 rREV` (its REV-th write). A state is
the set of (path, contents) pairs. The oracle, once the writers stop and a last `versions settle` ran:
  * `docpkg check` exits 0 and names no damage ("not kept" included);
  * each version's files hold their own names (no bytes of another file, no torn contents);
  * versions in id order form the save chain: the state after version K's save is version K+1's state (the last
    one's is the package now), and it differs from version K by exactly one writer operation, or equals an
    earlier version (a restore);
  * no save a writer saw succeed is missing from the chain (puts and removals keep every version; a restore
    prunes to the default ten, oldest first, so the chain is then checked from the oldest one kept).
With --kill-writers, writers are killed too; a killed save may then keep no version (never a wrong one), so the
chain check allows a gap there and the rest still holds.

Prints a summary line "stress: N saves, M versions, K settles killed, F failures". Exit status 0 when F is 0.
"""

import argparse
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time


def run(docpkg, argv, env, **kwargs):
    return subprocess.run([docpkg] + argv, env=env, capture_output=True, timeout=300, **kwargs)


def state_of(docpkg, location, env, work):
    """{path: bytes} of a package or PACKAGE@ID, unpacked by docpkg itself into a scratch folder."""
    scratch = tempfile.mkdtemp(prefix="state-", dir=work)
    archive = os.path.join(scratch, "s.zip")
    result = run(docpkg, ["pack", location, "-o", archive], env)
    if result.returncode != 0:
        raise RuntimeError(f"pack {location}: {result.stderr.decode().strip()}")
    import zipfile
    files = {}
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            if not info.is_dir():
                name = info.filename.split("/", 1)[1] if "/" in info.filename else info.filename
                files[name] = z.read(info)
    subprocess.run(["rm", "-rf", scratch])
    return files


def one_operation(before, after):
    """Whether `after` is `before` changed by one writer operation (one file added, rewritten or removed)."""
    changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)]
    return len(changed) == 1


class Writer(threading.Thread):
    def __init__(self, number, args, package, env, stop, log, rng):
        super().__init__(daemon=True)
        self.number, self.args, self.package, self.env, self.stop, self.log = number, args, package, env, stop, log
        self.rng = rng
        self.files = {}  # path -> revision
        self.saves = 0
        self.errors = []

    def run(self):
        scratch = tempfile.mkdtemp(prefix=f"w{self.number}-", dir=self.args.work)
        while not self.stop.is_set():
            choice = self.rng.random()
            if choice < 0.6 or not self.files:
                path = f"w{self.number}/n{self.rng.randint(0, 9)}.txt"
                revision = self.files.get(path, 0) + 1
                source = os.path.join(scratch, "in.txt")
                with open(source, "w") as f:
                    f.write(f"{path} r{revision}\n")
                result = run(self.args.docpkg, ["put", self.package, path, source, "--versions", "all"], self.env)
                operation = ("put", path, revision)
            elif choice < 0.85:
                path = self.rng.choice(sorted(self.files))
                result = run(self.args.docpkg, ["rm", self.package, path, "--versions", "all"], self.env)
                operation = ("rm", path, None)
            else:
                listing = run(self.args.docpkg, ["versions", "list", self.package, "--json"], self.env)
                ids = [v["id"] for v in __import__("json").loads(listing.stdout or b"[]") if v.get("state") == "saved"]
                if not ids:
                    continue
                result = run(self.args.docpkg, ["versions", "restore", self.package, str(self.rng.choice(ids))],
                             self.env)
                operation = ("restore", None, None)
            if result.returncode == 0:
                self.saves += 1
                self.log.append(operation)
                if operation[0] == "put":
                    self.files[operation[1]] = operation[2]
                elif operation[0] == "rm":
                    self.files.pop(operation[1], None)
                else:
                    self.files = {}  # a restore may bring back or remove any of this writer's files
            elif result.returncode < 0 and self.args.kill_writers:
                pass  # killed: the package is old or new, checked at the end
            else:
                message = result.stderr.decode().strip()
                if operation[0] == "rm" and "no such entry" in message:
                    self.files.pop(operation[1], None)  # another writer's restore took it away
                elif "is being" not in message and "locked" not in message:  # busy: tried again later
                    self.errors.append(f"{' '.join(map(str, operation))}: {message}")


def disk(stop, work):
    path = os.path.join(work, "disk-load")
    block = os.urandom(1 << 20)
    while not stop.is_set():
        with open(path, "wb") as f:
            for _ in range(32):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
    os.unlink(path)


def killer(stop, rng, counts, kill_writers, docpkg, package):
    # This run's processes only: the binary's name and this package's path.
    while not stop.is_set():
        time.sleep(rng.uniform(0.01, 0.2))
        settles = f"{os.path.basename(docpkg)} versions settle {package}"
        writes = f"{os.path.basename(docpkg)} (versions settle|put|rm) {package}"
        pattern = writes if kill_writers and rng.random() < 0.2 else settles
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        for pid in found[:1]:
            try:
                os.kill(int(pid), signal.SIGKILL)
                counts["killed"] += 1
            except (ProcessLookupError, ValueError):
                pass


def reader(stop, args, package, env, failures):
    while not stop.is_set():
        for argv in (["inspect", package, "--depth", "1"], ["versions", "list", package]):
            result = run(args.docpkg, argv, env)
            if result.returncode != 0 and b"no such" not in result.stderr:
                failures.append(f"reader {' '.join(argv[:1])}: {result.stderr.decode().strip()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docpkg", required=True)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", default=None)
    parser.add_argument("--kill-writers", action="store_true")
    parser.add_argument("--no-load", action="store_true", help="leave the cores and the disk alone")
    args = parser.parse_args()
    args.work = tempfile.mkdtemp(prefix="version-stress-", dir=args.work)
    rng = random.Random(args.seed)
    package = os.path.join(args.work, "Stress.mydoc")
    os.makedirs(os.path.join(package, "base"))
    for n in range(40):
        with open(os.path.join(package, "base", f"b{n}.txt"), "w") as f:
            f.write(f"base/b{n}.txt r0\n")
    env = dict(os.environ)
    env.pop("DOCPKG_NO_BACKGROUND_SETTLE", None)
    stop, load_stop = threading.Event(), threading.Event()
    counts = {"killed": 0}
    failures = []
    loads = []
    if not args.no_load:
        loads = [threading.Thread(target=disk, args=(load_stop, args.work), daemon=True)]
        # Spin loops in threads would share one core under Python's lock: two processes keep both busy.
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    for thread in loads:
        thread.start()
    log = []
    writers = [Writer(n, args, package, env, stop, log, random.Random(rng.random())) for n in range(args.writers)]
    helpers = [threading.Thread(target=killer, args=(stop, random.Random(rng.random()), counts, args.kill_writers, args.docpkg,
                                      package),
                                daemon=True),
               threading.Thread(target=reader, args=(stop, args, package, env, failures), daemon=True)]
    for thread in writers + helpers:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in writers + helpers:
        thread.join(timeout=300)
    load_stop.set()
    if not args.no_load:
        for spinner in spinners:
            spinner.kill()
    for writer in writers:
        failures.extend(f"writer {writer.number}: {e}" for e in writer.errors)

    quiet = dict(env, DOCPKG_NO_BACKGROUND_SETTLE="1")
    run(args.docpkg, ["versions", "settle", package], quiet)
    check = run(args.docpkg, ["check", package], quiet)
    text = (check.stdout + check.stderr).decode()
    if check.returncode != 0 or "damaged" in text or "not kept" in text:
        failures.append("check: " + text.strip().replace("\n", " | ")[:2000])
    listing = __import__("json").loads(run(args.docpkg, ["versions", "list", package, "--json"], quiet).stdout)
    ids = [v["id"] for v in listing if v.get("state") == "saved"]
    states = [state_of(args.docpkg, f"{package}@{i}", quiet, args.work) for i in ids]
    states.append(state_of(args.docpkg, package, quiet, args.work))
    for i, state in zip(ids + ["now"], states):
        for path, data in state.items():
            if not data.decode(errors="replace").startswith(path + " r"):
                failures.append(f"version {i}: {path} holds {data[:60]!r}")
    gaps = 0
    for index in range(len(ids)):
        before, after = states[index], states[index + 1]
        if one_operation(before, after) or any(after == earlier for earlier in states[:index + 1]):
            continue
        if args.kill_writers:
            gaps += 1  # a killed save kept no version
            continue
        failures.append(f"version {ids[index]} → {ids[index + 1] if index + 1 < len(ids) else 'now'}: "
                        "not one save apart")
    saves = sum(w.saves for w in writers)
    # A restore prunes to the default ten versions (the oldest go): the chain is checked where it is kept.
    restores = sum(1 for operation in log if operation[0] == "restore")
    if not args.kill_writers and (len(ids) > saves or (restores == 0 and len(ids) != saves)):
        failures.append(f"{saves} saves succeeded but {len(ids)} versions are listed")
    for failure in failures[:50]:
        print("FAIL " + failure)
    print(f"stress: {saves} saves, {len(ids)} versions, {counts['killed']} processes killed, {gaps} gaps, "
          f"{len(failures)} failures")
    if not failures:
        subprocess.run(["rm", "-rf", args.work])
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
