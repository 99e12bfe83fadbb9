"""Rows for issue 11: push and clone through an S3-compatible store, side by side with `aws s3 sync` to and from
the same server, and a push after changing one file of the many corpus.

Starts Scripts/objectstore.sh (a one-node Ceph cluster and its S3 gateway on loopback) and stops it at the end,
unless it was running already (`make sync-test` or a by-hand run may be using it). Needs the AWS CLI
(`pip install awscli`); without it the rows are skipped, saying so.

The two-device stress figure (2 x 50 concurrent edit/push/pull rounds: edits lost, heads overwritten) is a test,
not a row: `DOCPKG_SYNC_ROUNDS=50 make sync-test` prints it.
"""

import os
import shutil
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORE = os.path.join(REPO, "Scripts", "objectstore.sh")


def store_running():
    """Whether the store's gateway answers already (then this run leaves it running)."""
    port = os.environ.get("OBJECTSTORE_PORT", "17480")
    return subprocess.run(["curl", "-fsS", "-o", "/dev/null", "--max-time", "2", f"http://127.0.0.1:{port}/"],
                          capture_output=True).returncode == 0


def start_store():
    """Starts the store and puts its endpoint and keys into this process's environment (children inherit it)."""
    out = subprocess.run([STORE, "start"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            os.environ[key] = value
    return os.environ["DOCPKG_S3_ENDPOINT"]


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
        turn = [0]

        def next_turn():
            turn[0] += 1
            with open(counter, "w") as f:
                f.write(str(turn[0]))
            return turn[0]

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
        pull_rows(h, endpoint, bucket, aws, work)
    finally:
        if not was_running:
            subprocess.run([STORE, "stop"], check=False)


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
