#!/usr/bin/env python3
"""Issue 39's watch benchmark: N devices, each saving once a second, each with `docpkg sync --watch` running.

    python3 Benchmarks/watch.py [--devices 20] [--seconds 60] [--docpkg .build/release/docpkg] [--row]

Each device is a package cloned from one remote on the real store (Scripts/objectstore.sh, started and stopped
here unless DOCPKG_S3_ENDPOINT names a running one). Every device runs `docpkg sync --watch` (default poll
interval, 1 s) and, once a second for --seconds, saves a new file `edits/D<k>-<n>.txt` with `docpkg put` (a save
that takes the package lock, as an app's would). A watcher of this script lists every device's `edits/` every
50 ms and notes when each edit first appears there. After the saving stops it waits up to --settle seconds for
every edit to reach every device, then clones the remote once more.

Reports:
  save-to-arrival  p50 / p99 seconds from the end of a device's `put` to the edit appearing on another device
                   (every pair of an edit and another device)
  head updates/s   pushes that moved the head (the watchers' `synced: ... pushed` lines) per second of saving
  lost             edits missing from the final clone of the remote, and (edit, device) pairs never arrived
  peer CAS rate    a loop of `aws s3api put-object --if-match ETAG` on one object, each write conditional on the
                   previous one's ETag, for --peer-seconds: the compare-and-swap rate one client gets from the store
                   (every head update of a sync is one such write, after a pull); and the same loop in one
                   process with botocore (no process start per write)
With --row, also prints the row as Benchmarks/RESULTS.md writes them (area | row | ours | peer | ... | note).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STORE = os.path.join(REPO, "Scripts", "objectstore.sh")


def start_store():
    done = subprocess.run([STORE, "start"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"watch: {STORE} start exited {done.returncode}: {done.stderr.strip()[-300:]}")
    for line in done.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            os.environ[key] = value


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def peer_cas_rate(aws, bucket, seconds):
    """Conditional writes per second of one `aws s3api put-object --if-match` loop on one object."""
    key = "cas-peer"
    body = tempfile.NamedTemporaryFile(delete=False)
    body.write(b"0")
    body.close()
    put = aws + ["s3api", "put-object", "--bucket", bucket, "--key", key, "--body", body.name, "--query", "ETag",
                 "--output", "text"]
    etag = subprocess.run(put, check=True, capture_output=True, text=True).stdout.strip().strip('"')
    writes, refused = 0, 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        # Ceph's gateway compares If-Match with the bare ETag (Sources/DocumentSync/S3/ETagForm.swift).
        done = subprocess.run(put + ["--if-match", etag], capture_output=True, text=True)
        if done.returncode == 0:
            etag = done.stdout.strip().strip('"')
            writes += 1
        else:
            refused += 1
    os.unlink(body.name)
    return writes / (time.monotonic() - start), writes, refused


def botocore_cas_rate(endpoint, bucket, seconds):
    """The same loop in one process (botocore, which the AWS CLI is built on): the store's rate without a process
    start per write. None when botocore cannot be imported (the CLI installed apart from this Python)."""
    try:
        import botocore.session
    except ImportError:
        return None
    client = botocore.session.get_session().create_client(
        "s3", endpoint_url=endpoint, region_name=os.environ.get("AWS_REGION", "us-east-1"))
    etag = client.put_object(Bucket=bucket, Key="cas-botocore", Body=b"0")["ETag"].strip('"')
    writes = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        etag = client.put_object(Bucket=bucket, Key="cas-botocore", Body=b"%d" % writes, IfMatch=etag)["ETag"]
        etag = etag.strip('"')
        writes += 1
    return writes / (time.monotonic() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=120, help="most seconds to wait for edits to arrive")
    parser.add_argument("--peer-seconds", type=float, default=20)
    parser.add_argument("--docpkg", default=os.path.join(REPO, ".build", "release", "docpkg"))
    parser.add_argument("--work", default=None, help="folder for the devices (default: a temporary one)")
    parser.add_argument("--row", action="store_true", help="print the RESULTS.md row")
    args = parser.parse_args()
    if shutil.which("aws") is None:
        sys.exit("watch: needs the AWS CLI (pip install awscli)")
    started = False
    if not os.environ.get("DOCPKG_S3_ENDPOINT"):
        start_store()
        started = True
    endpoint = os.environ["DOCPKG_S3_ENDPOINT"]
    aws = ["aws", "--endpoint-url", endpoint, "--region", os.environ.get("AWS_REGION", "us-east-1")]
    docpkg = args.docpkg
    work = args.work or tempfile.mkdtemp(prefix="docpkg-watch-bench-")
    bucket = "docpkg-watch-" + uuid.uuid4().hex[:12]
    watchers = []
    try:
        subprocess.run(aws + ["s3api", "create-bucket", "--bucket", bucket], check=True, capture_output=True)
        url = f"s3://{bucket}/doc"
        devices = [os.path.join(work, f"D{k}.mydoc") for k in range(args.devices)]
        os.makedirs(os.path.join(devices[0], "edits"))
        with open(os.path.join(devices[0], "Index.txt"), "w") as f:
            f.write("the watch benchmark\n")
        subprocess.run([docpkg, "remote", "add", devices[0], "origin", url, "--endpoint", endpoint], check=True)
        subprocess.run([docpkg, "push", devices[0], "--quiet"], check=True, capture_output=True)
        for device in devices[1:]:
            subprocess.run([docpkg, "clone", url, device, "--endpoint", endpoint, "--quiet"], check=True,
                           capture_output=True)
        logs = []
        for k, device in enumerate(devices):
            log = open(os.path.join(work, f"watch-D{k}.log"), "w")
            logs.append(log)
            watchers.append(subprocess.Popen([docpkg, "sync", "--watch", device], stdout=log,
                                             stderr=subprocess.STDOUT))

        saved = {}  # edit name -> (device index, time its put returned)
        seen = {}  # (edit name, device index) -> first time seen there
        lock = threading.Lock()
        stop_seeing = threading.Event()

        def observe():
            while not stop_seeing.is_set():
                now = time.monotonic()
                for k, device in enumerate(devices):
                    try:
                        names = os.listdir(os.path.join(device, "edits"))
                    except OSError:
                        continue  # mid-exchange: the next look sees it
                    with lock:
                        for name in names:
                            seen.setdefault((name, k), now)
                time.sleep(0.05)

        observer = threading.Thread(target=observe, daemon=True)
        observer.start()
        load_before = os.getloadavg()

        def save_loop(k):
            source = os.path.join(work, f"source-{k}.txt")
            n = 0
            start = time.monotonic()
            while time.monotonic() - start < args.seconds:
                due = start + n
                if time.monotonic() < due:
                    time.sleep(due - time.monotonic())
                name = f"D{k}-{n:04d}.txt"
                with open(source, "w") as f:
                    f.write(f"device {k} edit {n}\n")
                done = subprocess.run([docpkg, "put", devices[k], f"edits/{name}", source], capture_output=True)
                if done.returncode == 0:
                    with lock:
                        saved[name] = (k, time.monotonic())
                n += 1

        savers = [threading.Thread(target=save_loop, args=(k,)) for k in range(args.devices)]
        saving_start = time.monotonic()
        for saver in savers:
            saver.start()
        for saver in savers:
            saver.join()
        saving_time = time.monotonic() - saving_start
        load_during = os.getloadavg()

        # Wait for every edit on every device.
        deadline = time.monotonic() + args.settle
        while time.monotonic() < deadline:
            with lock:
                missing = sum(1 for name, (k, _) in saved.items() for d in range(args.devices)
                              if d != k and (name, d) not in seen)
            if missing == 0:
                break
            time.sleep(0.5)
        stop_seeing.set()
        observer.join()
        for watcher in watchers:
            watcher.terminate()
        for watcher in watchers:
            watcher.wait(timeout=30)
        for log in logs:
            log.close()

        check = os.path.join(work, "Check.mydoc")
        subprocess.run([docpkg, "clone", url, check, "--endpoint", endpoint, "--quiet"], check=True,
                       capture_output=True)
        final = set(os.listdir(os.path.join(check, "edits")))
        lost = sorted(set(saved) - final)
        latencies = [seen[(name, d)] - at for name, (k, at) in saved.items() for d in range(args.devices)
                     if d != k and (name, d) in seen]
        never = sum(1 for name, (k, _) in saved.items() for d in range(args.devices) if d != k and (name, d) not in seen)
        pushes, unreachable, not_landed, conflicts = 0, 0, 0, 0
        for k in range(args.devices):
            with open(os.path.join(work, f"watch-D{k}.log")) as f:
                for line in f:
                    pushes += line.startswith("synced:") and "; pushed " in line
                    unreachable += line.startswith("unreachable:")
                    not_landed += line.startswith("not landed:")
                    conflicts += line.startswith("conflict ")
        head_rate = pushes / saving_time
        cas_rate, cas_writes, cas_refused = peer_cas_rate(aws, bucket, args.peer_seconds)
        in_process = botocore_cas_rate(endpoint, bucket, args.peer_seconds)
        in_process_words = f"{in_process:.1f}/s" if in_process is not None else "not measured (no botocore)"

        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(f"devices {args.devices}, {args.seconds:g} s of saving ({saving_time:.1f} s), {len(saved)} edits saved")
        print(f"save-to-arrival: p50 {p50:.2f} s, p99 {p99:.2f} s over {len(latencies)} (edit, device) arrivals; "
              f"{never} never arrived")
        print(f"head updates: {pushes} ({head_rate:.2f}/s); not landed {not_landed}, unreachable {unreachable}, "
              f"conflicts {conflicts}")
        print(f"lost edits (missing from a fresh clone): {len(lost)}{' ' + ', '.join(lost[:5]) if lost else ''}")
        print(f"peer: aws s3api put-object --if-match loop: {cas_rate:.2f} writes/s ({cas_writes} writes, "
              f"{cas_refused} refused); the same loop in one process (botocore): {in_process_words}")
        print(f"load average before {load_before[0]:.1f}, at the end of saving {load_during[0]:.1f}; nproc "
              f"{os.cpu_count()}")
        if args.row:
            result = "PASS" if not lost and never == 0 else "FAIL"
            setting = (f"{args.devices} devices each running `docpkg sync --watch` (head polled every 1 s) and saving a"
                       f" new file once a second with `docpkg put` for {args.seconds:g} s ({len(saved)} edits) against"
                       f" Ceph RGW on loopback; load {load_before[0]:.1f} before, {load_during[0]:.1f} at the end of"
                       f" saving (2 shared cores)")
            print(f"| sync | sync --watch, {args.devices} devices saving 1/s: save to arrival p50 / p99 | "
                  f"{p50:.2f} s / {p99:.2f} s | - | - | - | 0 lost | - | {result} | {setting}; "
                  f"{len(latencies)} (edit, other device) arrivals, {never} never arrived; lost {len(lost)} (a fresh "
                  f"clone holds every edit); {not_landed} syncs not landed after 8 rounds (retried), {conflicts} "
                  f"conflicts |")
            print(f"| sync | sync --watch, {args.devices} devices saving 1/s: head updates per second | "
                  f"{head_rate:.2f}/s | aws s3api put-object --if-match loop | {cas_rate:.2f}/s | "
                  f"{head_rate / cas_rate if cas_rate else float('nan'):.2f} | - | - | info | {pushes} pushes that "
                  f"moved the head in {saving_time:.0f} s; the peer is one client's compare-and-swap loop on one "
                  f"object for {args.peer_seconds:g} s ({cas_writes} writes, {cas_refused} refused): each a new "
                  f"`aws` process, as each head update of a sync is one conditional write after a pull; the same loop in one "
                  f"process (botocore): {in_process_words} |")
        return 0 if not lost else 1
    finally:
        for watcher in watchers:
            if watcher.poll() is None:
                watcher.kill()
        subprocess.run(aws + ["s3", "rb", f"s3://{bucket}", "--force"], capture_output=True)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
        if started:
            subprocess.run([STORE, "stop"], capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
