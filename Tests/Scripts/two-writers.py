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
    # A put that fails says which one and how it ended (its status; 128+N for signal N) on stderr.
    script = (
        'put() { echo "$1" | "%s" put --merge --append "%s" "$2"; status=$?; '
        'if [ $status -ne 0 ]; then echo "writer %s: put $2 (\\"$1\\") exited $status" >&2; exit $status; fi; }; '
        'for i in $(seq 1 %d); do put "%s shared $i" shared.txt; put "%s own $i" own-%s.txt; done'
        % (docpkg, package, name, cycles, name, name, name))
    return subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(arguments, **kwargs):
    """Runs a docpkg command of the check; on failure prints the command, its status and its output."""
    result = subprocess.run(arguments, capture_output=True, **kwargs)
    if result.returncode != 0:
        print(f"{' '.join(arguments)} exited {result.returncode}\nstdout: {result.stdout.decode(errors='replace')}"
              f"\nstderr: {result.stderr.decode(errors='replace')}", flush=True)
        sys.exit(1)
    return result


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
            run([docpkg, "put", "--create", package, entry], input=b"")
        processes = {name: writer(docpkg, package, name, args.cycles) for name in ("A", "B")}
        outputs = {name: process.communicate() for name, process in processes.items()}
        failed = [name for name, process in processes.items() if process.returncode != 0]
        for name in failed:  # both writers' output, so that one failing does not hide how the other ended
            for other in processes:
                out, err = outputs[other]
                print(f"writer {other} exited {processes[other].returncode}"
                      f"\nstdout: {out.decode(errors='replace').strip()}"
                      f"\nstderr: {err.decode(errors='replace').strip()}", flush=True)
            return 1
        outcomes = {}
        for out, _ in outputs.values():
            for line in out.decode().splitlines():
                key = line.split()[0]
                outcomes[key] = outcomes.get(key, 0) + 1

        def lines(source, entry):
            result = run([docpkg, "cat", source, entry])
            return set(result.stdout.decode().splitlines())

        current = {e: lines(package, e) for e in ("shared.txt", "own-A.txt", "own-B.txt")}
        # Settled first (a writer's background settle may still run); then every version must be whole.
        run([docpkg, "versions", "settle", package])
        versions = json.loads(run([docpkg, "versions", "list", package, "--json"]).stdout)
        unreadable = [v for v in versions if "origin" not in v]
        if unreadable:
            print("versions not whole after both writers:", json.dumps(unreadable, sort_keys=True), flush=True)
            run([docpkg, "check", package])
            return 1
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
