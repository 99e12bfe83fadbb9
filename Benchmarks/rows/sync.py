"""Rows for issue 11: push and clone through an S3-compatible store, side by side with `aws s3 sync` to and from
the same server, and a push after changing one file of the many corpus.

Starts Scripts/objectstore.sh (a one-node Ceph cluster and its S3 gateway on loopback) and stops it at the end,
unless it was running already (`make sync-test` or a by-hand run may be using it). Needs the AWS CLI
(`pip install awscli`); without it the rows are skipped, saying so.

The two-device stress figure (2 x 50 concurrent edit/push/pull rounds: edits lost, heads overwritten) is a test,
not a row: `DOCPKG_SYNC_ROUNDS=50 make sync-test` prints it.

Issue 26's 4 GiB file: push and clone of one file of 4 GiB + 5 random bytes (generated once into
Benchmarks/work/sync-big/, scaled with --scale) against `aws s3 cp` up and down, with docpkg's peak RSS and the
clone's SHA-256 checked. It needs more than the default 4 GiB store: once the other rows are done it starts
stores with OBJECTSTORE_BYTES = 10 GiB unless set, a fresh one before every upload (memory-backed: the OSD holds
about 1.5 bytes of memory per byte stored and keeps what deleted objects held), after checking that twice the
file's size and 2 GiB of memory are available. Skipped when a store was running already.
"""

import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORE = os.path.join(REPO, "Scripts", "objectstore.sh")


def store_running():
    """Whether the store's gateway answers already (then this run leaves it running)."""
    port = os.environ.get("OBJECTSTORE_PORT", "17480")
    return subprocess.run(["curl", "-fsS", "-o", "/dev/null", "--max-time", "2", f"http://127.0.0.1:{port}/"],
                          capture_output=True).returncode == 0


def start_store(attempts=1):
    """Starts the store and puts its endpoint and keys into this process's environment (children inherit it).

    With more than one attempt, a start that fails (a daemon that did not come up on a busy machine) is tried
    again from nothing; the last failure raises, with the script's last lines of stderr."""
    for attempt in range(attempts):
        done = subprocess.run([STORE, "start"], capture_output=True, text=True)
        if done.returncode == 0:
            break
        if attempt == attempts - 1:
            raise RuntimeError(f"{STORE} start exited {done.returncode}: {done.stderr.strip()[-300:]}")
    out = done.stdout
    for line in out.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            os.environ[key] = value
    return os.environ["DOCPKG_S3_ENDPOINT"]


def turn_counter(path):
    """A function that counts turns and writes the current one to ``path``, where the timed shell commands read it."""
    turn = [0]

    def next_turn():
        turn[0] += 1
        with open(path, "w") as f:
            f.write(str(turn[0]))
        return turn[0]

    return next_turn


def disk_bytes(folder):
    """Bytes of disk the entries of ``folder`` take (allocated blocks, as `du` counts them)."""
    out = subprocess.run(["du", "-s", "-B1", folder], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def pull_rows(h, endpoint, bucket, aws, work):
    """Issue 26: the first pull of a 1 KB change into a fresh clone of a 1 GiB package (the big corpus and a
    note) adds less than 10 MB of disk: the state it replaces is kept as a version whose files stay on the remote.
    The peer is `aws s3 sync` down into an up-to-date copy after the same change (it keeps no previous state)."""
    big = h.corpus("big")
    source = os.path.join(work, "Big.pkg")
    subprocess.run(["cp", "-a", big, source], check=True)
    note = os.path.join(source, "note.txt")
    with open(note, "w") as f:
        f.write("x" * 1024)
    subprocess.run([h.docpkg, "remote", "add", source, "origin", f"s3://{bucket}/big", "--endpoint", endpoint],
                   check=True)
    subprocess.run([h.docpkg, "push", source, "--quiet"], check=True, capture_output=True)
    side = os.path.join(work, "pull-side")  # the clone and its sync folder and version store, alone in a folder
    clone = os.path.join(side, "Big.pkg")
    subprocess.run(["rm", "-rf", side], check=True)
    os.makedirs(side)
    subprocess.run([h.docpkg, "clone", f"s3://{bucket}/big", clone, "--endpoint", endpoint, "--quiet"], check=True)
    with open(note, "w") as f:
        f.write("y" * 1024)
    subprocess.run([h.docpkg, "push", source, "--quiet"], check=True, capture_output=True)
    before = disk_bytes(side)
    pull = h.run([h.docpkg, "pull", clone, "--quiet"], repeat=1)
    added = (disk_bytes(side) - before) / 1e6

    copy = os.path.join(work, "aws-big")
    subprocess.run(["rm", "-rf", copy], check=True)
    subprocess.run(aws + ["--only-show-errors", "s3", "sync", big, f"s3://{bucket}/aws-big"], check=True)
    subprocess.run(aws + ["--only-show-errors", "s3", "sync", f"s3://{bucket}/aws-big", copy], check=True)
    changed = os.path.join(work, "aws-note.txt")
    with open(changed, "w") as f:
        f.write("z" * 1024)
    subprocess.run(aws + ["--only-show-errors", "s3", "cp", changed, f"s3://{bucket}/aws-big/note.txt"], check=True)
    down = h.run(aws + ["--only-show-errors", "s3", "sync", f"s3://{bucket}/aws-big", copy], repeat=1)
    h.row("sync big: first pull of a 1 KB change into a fresh clone", pull, "aws s3 sync down (1 changed)", down,
          note="1 GiB package (4 x 256 MiB and a 1 KB note); one run; the pull keeps the replaced state as a "
               "version whose unchanged files stay on the remote")
    h.row("sync big: disk added by that pull (MB)", added, limit=10,
          note=f"du -B1 of the folder holding the clone, its sync folder and version store, before and after "
               f"the pull ({before / 1e6:.0f} MB before)")


def first_save_rows(h, endpoint, bucket, work, typical, next_turn):
    """Issue 40: the push right after a package's first one-file save (`docpkg put` makes the store's first,
    pending version, settled in the background) beside the push right after a later save: each reads the
    changed file only. Before the fix the first one settled that version itself, copying all 2,061 files."""
    package = os.path.join(work, "FirstSave.pkg")
    source = os.path.join(work, "first-save.txt")

    def put():
        with open(source, "w") as f:
            f.write(f"edit {next_turn()}\n")
        subprocess.run([h.docpkg, "put", package, "Data/note0001.txt", source], check=True)

    def fresh():  # a fresh copy of the corpus, pushed once, then its first save
        for name in ("FirstSave.pkg", ".FirstSave.pkg.docpkg-sync", ".FirstSave.pkg.docpkg-versions"):
            subprocess.run(["rm", "-rf", os.path.join(work, name)], check=True)
        subprocess.run(["cp", "-a", typical, package], check=True)
        subprocess.run([h.docpkg, "remote", "add", package, "origin", f"s3://{bucket}/first-save-{next_turn()}",
                        "--endpoint", endpoint], check=True)
        subprocess.run([h.docpkg, "push", package, "--quiet"], check=True, capture_output=True)
        put()

    def later():  # the previous version settled, then another one-file save
        subprocess.run([h.docpkg, "versions", "settle", package], check=True)
        put()

    first = h.run([h.docpkg, "push", package, "--quiet"], setup=fresh, repeat=3)
    then = h.run([h.docpkg, "push", package, "--quiet"], setup=later, repeat=3)
    h.row("sync typical: push after the first one-file save", first, "push after a later save", then, target=2.0,
          note="`docpkg put` of one note, then the push at once (the background settle of the first version copies "
               "the package into the store meanwhile); the push reads the changed file only, as after a later save")


def available_memory():
    """MemAvailable of /proc/meminfo, in bytes (0 if unknown)."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def big_file_rows(h):
    """Issue 26: a 4 GiB file pushed and cloned (multipart upload, parts in flight in parallel; streamed download),
    side by side with `aws s3 cp` of the same file up and down, on a store of its own.

    The store keeps its objects in memory, and its OSD does not give back what deleted objects held (measured
    here: 1 GiB stored took the OSD to 1.6 GiB; holding one 4 GiB copy at a time, deleting each before the next
    upload, still took it to 12.8 GB by the fourth upload). So every upload (each run's set-up) starts on a fresh
    store: the OSD holds one copy, about 6 GiB."""
    size = int((4 << 30) * h.scale) + 5
    needed = 2 * size + (2 << 30)
    if available_memory() < needed:
        h.row(f"sync {size} B file", bench_result(h, error=f"skipped: {needed >> 20} MiB of available memory "
                                                          f"needed for the memory-backed store, "
                                                          f"{available_memory() >> 20} MiB available"))
        return
    home = os.path.join(REPO, "Benchmarks", "work", "sync-big")  # kept between runs: generated once
    package = os.path.join(home, "Big.pkg")
    big = os.path.join(package, "big.raw")
    digest_file = os.path.join(home, "big.raw.sha256")
    if not (os.path.exists(big) and os.path.getsize(big) == size and os.path.exists(digest_file)):
        h.log(f"sync: generating {size} random bytes into {big}")
        subprocess.run(["rm", "-rf", home], check=True)
        os.makedirs(package)
        subprocess.run(f"head -c {size} /dev/urandom > {big}", shell=True, check=True)
        digest = subprocess.run(["sha256sum", big], check=True, capture_output=True, text=True).stdout.split()[0]
        with open(digest_file, "w") as f:
            f.write(digest + "\n")
    with open(digest_file) as f:
        digest = f.read().strip()

    os.environ.setdefault("OBJECTSTORE_BYTES", str(10 << 30))
    endpoint = start_store()
    try:
        aws = ["aws", "--endpoint-url", endpoint, "--region", "us-east-1"]
        bucket = f"bench-big-{int(time.time())}"
        work = h.scratch("sync-big")
        counter = os.path.join(work, "n")
        next_turn = turn_counter(counter)

        started = [True]  # the store just started is empty

        def fresh_store():
            if not started[0]:
                subprocess.run([STORE, "stop"], check=False)
                start_store(attempts=3)
            started[0] = False
            subprocess.run(aws + ["s3api", "create-bucket", "--bucket", bucket], check=True, capture_output=True)
            # A first multipart upload, so that the gateway's pools exist before the timed one (it makes them on
            # first use, which takes a second or two).
            warm = os.path.join(work, "warm")
            with open(warm, "wb") as f:
                f.write(b"w" * (9 << 20))
            subprocess.run(aws + ["--only-show-errors", "s3", "cp", warm, f"s3://{bucket}/warm"], check=True,
                           capture_output=True)
            subprocess.run(aws + ["--only-show-errors", "s3", "rm", f"s3://{bucket}/warm"], check=True,
                           capture_output=True)

        loads = {"push": [], "up": [], "clone": [], "down": []}  # the load average as each run starts

        def fresh_remote():
            fresh_store()
            next_turn()
            subprocess.run(["rm", "-rf", os.path.join(home, ".Big.pkg.docpkg-sync")], check=True)
            subprocess.run([h.docpkg, "remote", "add", package, "origin", f"s3://{bucket}/big", "--endpoint",
                            endpoint], check=True, capture_output=True)
            loads["push"].append(os.getloadavg()[0])

        def fresh_aws_prefix():
            fresh_store()
            next_turn()
            loads["up"].append(os.getloadavg()[0])

        def fresh_destination(tool):
            next_turn()
            subprocess.run(f"rm -rf {work}/clone-* {work}/.clone-* {work}/down-*", shell=True, check=True)
            loads[tool].append(os.getloadavg()[0])

        def spread(values):
            return f"{min(values):.1f}–{max(values):.1f}" if values else "-"

        aws_up = (f"aws --endpoint-url {endpoint} --region us-east-1 --only-show-errors s3 cp {big} "
                  f"s3://{bucket}/aws-big")
        # The uploads take turns (aws, docpkg, aws, docpkg, ...), so that a change of the machine's load falls on
        # both; the last one leaves docpkg's copy for the clones.
        up, push = h.run_side_by_side([(aws_up, fresh_aws_prefix), ([h.docpkg, "push", package, "--quiet"],
                                                                     fresh_remote)], repeat=2)
        h.row(f"sync {size} B file: push", push, "aws s3 cp up", up, target=1.0, rss_limit_mb=256,
              note=f"one file of random bytes; docpkg: multipart upload, 8 MiB parts, 4 in flight, each part's and "
                   f"the whole file's SHA-256 computed as it is read; aws: its defaults (8 MiB parts, 10 requests in "
                   f"flight); runs taking turns, each upload to a fresh store of its own (Ceph RGW, loopback); load "
                   f"average {spread(loads['push'])} as docpkg's runs started, {spread(loads['up'])} as aws's")
        clone = h.run(f"{h.docpkg} clone s3://{bucket}/big {work}/clone-$(cat {counter}).pkg "
                      f"--endpoint {endpoint} --quiet", setup=lambda: fresh_destination("clone"), repeat=2)
        if clone.ok:  # checked before the next run's set-up removes the clone
            with open(counter) as f:
                clone_copy = os.path.join(work, f"clone-{f.read().strip()}.pkg", "big.raw")
            cloned = subprocess.run(["sha256sum", clone_copy], capture_output=True, text=True).stdout.split()
            if not cloned or cloned[0] != digest:
                clone = bench_result(h, error=f"the clone's big.raw does not hash to {digest} (got {cloned[:1]})")
        fresh_store()  # untimed: aws's copy for its downloads
        subprocess.run(aws_up, shell=True, check=True, capture_output=True)
        down = h.run(f"aws --endpoint-url {endpoint} --region us-east-1 --only-show-errors s3 cp "
                     f"s3://{bucket}/aws-big {work}/down-$(cat {counter})", setup=lambda: fresh_destination("down"),
                     repeat=2)
        h.row(f"sync {size} B file: clone", clone, "aws s3 cp down", down, target=1.0, rss_limit_mb=256,
              note=f"streamed to disk, the whole file's SHA-256 checked, the package made durable before its rename "
                   f"(aws cp does not sync); the clone's big.raw hashes to the file's ({digest[:16]}…, sha256sum); "
                   f"load average {spread(loads['clone'])} as docpkg's runs started, {spread(loads['down'])} as aws's")
        subprocess.run(f"rm -rf {work}/clone-* {work}/.clone-* {work}/down-*", shell=True, check=False)
    finally:
        subprocess.run([STORE, "stop"], check=False)


def bench_result(h, **fields):
    """The harness's Result (bench.py is the harness's module, loaded as __main__ or by name)."""
    return sys.modules[type(h).__module__].Result(**fields)


def rows(h):
    """typical: first push and clone vs `aws s3 sync` up and down (target: no slower), and the same to an
    encrypted remote (target: 1.2x the unencrypted `aws s3 sync`); many: push after one changed file (target:
    under 1 s)."""
    if shutil.which("aws") is None:
        h.log("sync: skipped: no `aws` (pip install awscli)")
        return
    was_running = store_running()
    endpoint = start_store()
    try:
        aws = ["aws", "--endpoint-url", endpoint, "--region", "us-east-1"]
        bucket = f"bench-{int(time.time())}"
        subprocess.run(aws + ["s3api", "create-bucket", "--bucket", bucket], check=True, capture_output=True)
        work = h.scratch("sync")
        counter = os.path.join(work, "n")
        typical = h.corpus("typical")
        copy = os.path.join(work, "Typical.pkg")
        subprocess.run(["cp", "-a", typical, copy], check=True)
        next_turn = turn_counter(counter)

        last_push = [0]

        def fresh_remote():  # each timed push goes to an empty prefix: a first push
            n = next_turn()
            last_push[0] = n
            subprocess.run(["rm", "-rf", os.path.join(work, ".Typical.pkg.docpkg-sync")], check=True)
            subprocess.run([h.docpkg, "remote", "add", copy, "origin", f"s3://{bucket}/push-{n}", "--endpoint",
                            endpoint], check=True)

        push = h.run([h.docpkg, "push", copy, "--quiet"], setup=fresh_remote, repeat=3)
        up = h.run(f"aws --endpoint-url {endpoint} --region us-east-1 --only-show-errors s3 sync {typical} "
                   f"s3://{bucket}/aws-$(cat {counter})", setup=next_turn, repeat=3)
        h.row("sync typical: first push", push, "aws s3 sync up", up, target=1.0,
              note="each run to an empty prefix of the same bucket on Ceph RGW (loopback)")

        def fresh_destination():
            next_turn()
            subprocess.run(f"rm -rf {work}/clone-* {work}/.clone-* {work}/down-*", shell=True, check=True)

        # Both sides download a prefix that holds the corpus: the last push's, and one `aws s3 sync` filled (the
        # timed uploads' prefixes are numbered by turn; an empty prefix would make the peer download nothing).
        subprocess.run(aws + ["--only-show-errors", "s3", "sync", typical, f"s3://{bucket}/aws-down"], check=True,
                       capture_output=True)
        clone = h.run(f"{h.docpkg} clone s3://{bucket}/push-{last_push[0]} {work}/clone-$(cat {counter}).pkg "
                      f"--endpoint {endpoint} --quiet", setup=fresh_destination, repeat=3)
        down = h.run(f"aws --endpoint-url {endpoint} --region us-east-1 --only-show-errors s3 sync "
                     f"s3://{bucket}/aws-down {work}/down-$(cat {counter})", setup=fresh_destination, repeat=3)
        h.row("sync typical: clone", clone, "aws s3 sync down", down, target=1.0)

        # Issue 26: the same with an encrypted remote (every object sealed on the device), against the same
        # unencrypted `aws s3 sync` figures; the target is 1.2x.
        os.environ["DOCPKG_SYNC_PASSPHRASE"] = "benchmark passphrase"
        sealed_copy = os.path.join(work, "Sealed.pkg")
        subprocess.run(["cp", "-a", typical, sealed_copy], check=True)
        last_sealed = [0]

        def fresh_encrypted_remote():
            n = next_turn()
            last_sealed[0] = n
            subprocess.run(["rm", "-rf", os.path.join(work, ".Sealed.pkg.docpkg-sync")], check=True)
            subprocess.run([h.docpkg, "remote", "add", sealed_copy, "origin", f"s3://{bucket}/sealed-{n}",
                            "--endpoint", endpoint, "--encrypt"], check=True)

        sealed_push = h.run([h.docpkg, "push", sealed_copy, "--quiet"], setup=fresh_encrypted_remote, repeat=3)
        h.row("sync typical: first push, encrypted", sealed_push, "aws s3 sync up", up, target=1.2,
              note="remote add --encrypt: ChaCha20-Poly1305 in 64 KiB segments, keyed names; aws unencrypted")
        sealed_clone = h.run(f"{h.docpkg} clone s3://{bucket}/sealed-{last_sealed[0]} {work}/clone-$(cat {counter}).pkg "
                             f"--endpoint {endpoint} --quiet", setup=fresh_destination, repeat=3)
        h.row("sync typical: clone, encrypted", sealed_clone, "aws s3 sync down", down, target=1.2)
        del os.environ["DOCPKG_SYNC_PASSPHRASE"]

        many = h.corpus("many")
        many_copy = os.path.join(work, "Many.pkg")
        subprocess.run(["cp", "-a", many, many_copy], check=True)
        subprocess.run([h.docpkg, "remote", "add", many_copy, "origin", f"s3://{bucket}/many", "--endpoint",
                        endpoint], check=True)
        subprocess.run([h.docpkg, "push", many_copy, "--quiet"], check=True, capture_output=True)
        folder = sorted(d for d in os.listdir(many) if os.path.isdir(os.path.join(many, d)))[0]
        entry = os.path.join(many_copy, folder, sorted(os.listdir(os.path.join(many, folder)))[0])

        def change_one():
            with open(entry, "w") as f:
                f.write(f"change {next_turn()}\n")

        one = h.run([h.docpkg, "push", many_copy, "--quiet"], setup=change_one, repeat=3)
        h.row("sync many: push after one changed file", one, limit_s=1.0,
              note="one file rewritten in place; the push stats every entry, reads the changed file only (the version "
                   "store's stat cache), compares trees with the synced head's and sends one blob and the trees on its "
                   "path (no listing of the remote)")
        first_save_rows(h, endpoint, bucket, work, typical, next_turn)
        pull_rows(h, endpoint, bucket, aws, work)
    finally:
        if not was_running:
            subprocess.run([STORE, "stop"], check=False)
    if was_running:
        h.log("sync: the 4 GiB file rows skipped: they start a store of their own (10 GiB), and one was running")
        return
    big_file_rows(h)
