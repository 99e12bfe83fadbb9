#!/usr/bin/env python3
"""Two writers at once on one package (issue 4): each process runs CYCLES load-edit-save cycles
with `docpkg put --merge --append` (load without holding the lock, append one line, save merging
with whatever the other process saved meanwhile): one line to the shared file `shared.txt`, one
line to its own file `own-A.txt` / `own-B.txt`.

At the end every line written must be in the current package or in a conflict version
(`docpkg versions list --json`, `docpkg versions show PKG ID ENTRY`). Prints the counts.

    python3 Tests/Scripts/two-writers.py [--cycles 100] [--docpkg .build/debug/docpkg]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def writer(docpkg, package, name, cycles):
    script = (
        'for i in $(seq 1 %d); do '
        'echo "%s shared $i" | "%s" put --merge --append "%s" shared.txt || exit 1; '
        'echo "%s own $i" | "%s" put --merge --append "%s" own-%s.txt || exit 1; '
        'done' % (cycles, name, docpkg, package, name, docpkg, package, name))
    return subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docpkg", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "docpkg"))
    parser.add_argument("--cycles", type=int, default=100)
    args = parser.parse_args()
    docpkg = os.path.abspath(args.docpkg)
    work = tempfile.mkdtemp(prefix="docpkg-writers-")
    try:
        package = os.path.join(work, "Doc.pkg")
        for entry in ("shared.txt", "own-A.txt", "own-B.txt"):
            subprocess.run([docpkg, "put", "--create", package, entry], input=b"", check=True)
        processes = [writer(docpkg, package, name, args.cycles) for name in ("A", "B")]
        outcomes = {}
        for process in processes:
            out, err = process.communicate()
            if process.returncode != 0:
                print(f"writer failed: {err.decode().strip()}")
                return 1
            for line in out.decode().splitlines():
                key = line.split()[0]
                outcomes[key] = outcomes.get(key, 0) + 1

        def lines(source, entry):
            result = subprocess.run([docpkg, "cat", source, entry], capture_output=True, check=True)
            return set(result.stdout.decode().splitlines())

        current = {e: lines(package, e) for e in ("shared.txt", "own-A.txt", "own-B.txt")}
        versions = json.loads(subprocess.run([docpkg, "versions", "list", package, "--json"],
                                             capture_output=True, check=True).stdout)
        conflicts = [v for v in versions if v["origin"] == "conflict"]
        in_conflicts = {e: set() for e in current}
        for version in conflicts:
            for entry in current:
                in_conflicts[entry] |= lines(f"{package}@{version['id']}", entry)
        missing = []
        found = {"current": 0, "conflict version only": 0}
        for name in ("A", "B"):
            for i in range(1, args.cycles + 1):
                for entry, line in ((f"shared.txt", f"{name} shared {i}"), (f"own-{name}.txt", f"{name} own {i}")):
                    if line in current[entry]:
                        found["current"] += 1
                    elif line in in_conflicts[entry]:
                        found["conflict version only"] += 1
                    else:
                        missing.append(line)
        total = 2 * 2 * args.cycles
        print(f"two writers x {args.cycles} cycles (2 saves each): outcomes {outcomes}; "
              f"{total} edits: {found['current']} in the current package, "
              f"{found['conflict version only']} only in one of {len(conflicts)} conflict versions, "
              f"{len(missing)} lost")
        if missing:
            print("lost:", ", ".join(missing[:10]))
        print("PASS" if not missing else "FAIL")
        return 0 if not missing else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
