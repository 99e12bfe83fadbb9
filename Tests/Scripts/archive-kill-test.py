#!/usr/bin/env python3
"""Kills `docpkg pack` and `docpkg unpack` at random moments (issue 10).

A generated package (--size-mb, 100 by default: large random files and many small ones) is packed
to a zip and a tar.gz and unpacked again, each run killed by SIGKILL or SIGTERM at a random moment
(a delay drawn from the time a full run takes; --seed replays the choices). After each kill:
  * pack: OUT is absent or the old archive (byte for byte) — never a part — and nothing else is
    beside it (the archive is written unnamed, O_TMPFILE, and linked in when complete);
  * unpack: DEST holds nothing new after SIGTERM (the CLI cancels and cleans up); after SIGKILL
    at most one `.docpkg-unpack-*` folder, which the next unpack into DEST removes;
  * the same command run again succeeds, and DEST then holds exactly the package.

Prints one line per run and PASS or FAIL. Exit status 0 when everything passed.
"""

import argparse
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def make_package(path, size_mb):
    """About size_mb MiB: a few large incompressible files, and small ones in nested folders."""
    os.makedirs(path)
    large = max(1, size_mb // 8)
    for i in range(large):
        with open(os.path.join(path, f"large-{i}.bin"), "wb") as f:
            f.write(os.urandom(7 << 20 if size_mb >= 8 else size_mb << 19))
    for i in range(400):
        folder = os.path.join(path, "Pages", f"p{i % 20}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"note-{i}.txt"), "wb") as f:
            f.write((f"page {i}\n" * 200).encode() + os.urandom(1000))


def tree_digest(path):
    """A digest of the names and bytes under path."""
    digest = hashlib.sha256()
    for directory, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(directory, name)
            digest.update(os.path.relpath(full, path).encode() + b"\0")
            with open(full, "rb") as f:
                while chunk := f.read(1 << 20):
                    digest.update(chunk)
    return digest.hexdigest()


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Runner:
    def __init__(self, docpkg, work, rng):
        self.docpkg, self.work, self.rng = docpkg, work, rng
        self.failures = []

    def duration(self, argv):
        """How long a full run of argv takes, in seconds."""
        start = time.monotonic()
        subprocess.run(argv, check=True, capture_output=True)
        return time.monotonic() - start

    def killed(self, argv, sig, delay):
        """Runs argv and sends sig after delay seconds (a random moment of the run)."""
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.send_signal(sig)
        process.wait()
        return process

    def fail(self, what, message):
        print(f"FAIL {what}: {message}", flush=True)
        self.failures.append((what, message))

    def pack(self, package, out, runs):
        folder = os.path.dirname(out)
        argv = [self.docpkg, "pack", package, "-o", out, "--quiet", "--reproducible"]
        total = self.duration(argv)
        new = file_digest(out)
        for run in range(runs):
            old_exists = run % 2 == 1
            if old_exists:
                with open(out, "wb") as f:
                    f.write(b"the old archive")
                old = file_digest(out)
            elif os.path.exists(out):
                os.unlink(out)
            failures = len(self.failures)
            sig = self.rng.choice([signal.SIGKILL, signal.SIGTERM])
            delay = self.rng.uniform(0, total)
            what = f"pack {os.path.basename(out)} {sig.name} at {delay:.2f}/{total:.2f} s"
            result = self.killed(argv, sig, delay)
            if result.returncode == 0:
                print(f"{what}: finished before the kill", flush=True)
            elif result.returncode != -sig:
                self.fail(what, f"ended with status {result.returncode}: {result.stderr.read().decode()}")
            state = file_digest(out) if os.path.exists(out) else None
            if state not in ((old if old_exists else None), new):
                self.fail(what, "OUT is neither the old archive nor the complete new one")
            debris = sorted(set(os.listdir(folder)) - {os.path.basename(out)})
            if debris:
                self.fail(what, f"left beside OUT: {debris}")
            again = subprocess.run(argv, capture_output=True)
            if again.returncode != 0 or file_digest(out) != new:
                self.fail(what, f"the next pack failed or differs: {again.stderr.decode()}")
            if len(self.failures) == failures:
                print(f"{what}: ok", flush=True)

    def unpack(self, archive, reference, runs):
        for run in range(runs):
            dest = os.path.join(self.work, f"dest-{os.path.basename(archive)}-{run}")
            os.makedirs(dest)
            argv = [self.docpkg, "unpack", archive, "-o", dest, "--quiet"]
            if run == 0:
                self.total = self.duration(argv)
                shutil.rmtree(dest)
                os.makedirs(dest)
            sig = self.rng.choice([signal.SIGKILL, signal.SIGTERM])
            delay = self.rng.uniform(0, self.total)
            what = f"unpack {os.path.basename(archive)} {sig.name} at {delay:.2f}/{self.total:.2f} s"
            result = self.killed(argv, sig, delay)
            left = sorted(os.listdir(dest))
            debris = len([name for name in left if name.startswith(".docpkg-unpack-")])
            if result.returncode == 0:
                print(f"{what}: finished before the kill", flush=True)
            elif result.returncode != -sig:
                self.fail(what, f"ended with status {result.returncode}: {result.stderr.read().decode()}")
            elif sig == signal.SIGTERM and left:
                self.fail(what, f"SIGTERM left {left}")
            elif sig == signal.SIGKILL and debris > 1:
                self.fail(what, f"SIGKILL left {left}")
            again = subprocess.run(argv + ["--force"], capture_output=True)
            left = sorted(os.listdir(dest))
            if again.returncode != 0:
                self.fail(what, f"the next unpack failed: {again.stderr.decode()}")
            elif left != ["Big.pkg"]:
                self.fail(what, f"after the next unpack DEST holds {left}")
            elif tree_digest(os.path.join(dest, "Big.pkg")) != reference:
                self.fail(what, "the next unpack's tree differs from the package")
            else:
                print(f"{what}: ok ({debris} temporary folder{'' if debris == 1 else 's'} left, then removed)", flush=True)
            shutil.rmtree(dest, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docpkg", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "docpkg"))
    parser.add_argument("--size-mb", type=int, default=100, help="size of the generated package (MiB)")
    parser.add_argument("--runs", type=int, default=6, help="kills per command and format")
    parser.add_argument("--seed", type=int, default=None, help="replay a run")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print(f"seed {seed}", flush=True)
    rng = random.Random(seed)
    docpkg = os.path.abspath(args.docpkg)
    work = tempfile.mkdtemp(prefix="docpkg-archive-kill-")
    try:
        package = os.path.join(work, "Big.pkg")
        make_package(package, args.size_mb)
        reference = tree_digest(package)
        runner = Runner(docpkg, work, rng)
        for name in ("Big.zip", "Big.tar.gz"):
            out_folder = os.path.join(work, "out-" + name)
            os.makedirs(out_folder)
            out = os.path.join(out_folder, name)
            runner.pack(package, out, args.runs)
            runner.unpack(out, reference, args.runs)
        print(f"{len(runner.failures)} failures", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if not runner.failures else "FAIL")
    return 0 if not runner.failures else 1


if __name__ == "__main__":
    sys.exit(main())
