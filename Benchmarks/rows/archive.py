"""Rows for issue 6: `docpkg pack` to zip and `docpkg unpack` of a zip, against Info-ZIP, bsdtar and Python.

Targets (issue 6): pack to zip <= 0.5x the best peer on typical and many, at a size within 5% of
`zip -6`; unpack zip <= 0.8x bsdtar on typical and many; big corpus pack and unpack at peak RSS <= 64 MB.
Issue 14 row 4: `docpkg cat` of one entry of the many zip (and of a missing one, and `inspect --depth 1`)
<= 2x `unzip -p`, at peak RSS <= 32 MiB. Row 5: the unpack rows run three times, side by side with bsdtar
each time: on a quiet machine (<= 0.8x), with one core kept busy by a spin loop and with both busy
(<= 1.2x). Row 8: `pack` of the many corpus at peak RSS <= 64 MiB.
Every archive is written to a scratch dir; outputs are removed before each repetition (untimed).
"""

import os
import shutil
import subprocess
import sys

PYTHON_ZIP = (
    "import os, sys, zipfile\n"
    "root = sys.argv[2].rstrip('/')\n"
    "base = os.path.dirname(root) or '.'\n"
    "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=6) as z:\n"
    "    for d, dirs, files in os.walk(root):\n"
    "        dirs.sort()\n"
    "        z.write(d, os.path.relpath(d, base))\n"
    "        for f in sorted(files):\n"
    "            p = os.path.join(d, f)\n"
    "            z.write(p, os.path.relpath(p, base))\n"
)


def _remove(path):
    def setup():
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        os.sync()  # no write-back of the previous run's output during the timed one
    return setup


def _fresh_dir(path):
    def setup():
        if os.path.lexists(path):
            shutil.rmtree(path)
        os.makedirs(path)
        os.sync()
    return setup


def _best(results):
    """The fastest successful (name, Result) among peers."""
    ok = [(name, r) for name, r in results if r.ok]
    return min(ok, key=lambda item: item[1].wall) if ok else results[0]


def _pack_rows(h, name, repeat):
    corpus = h.corpus(name)
    parent, leaf = os.path.split(corpus.rstrip("/"))
    work = h.scratch(f"archive-pack-{name}")
    ours_zip = os.path.join(work, "ours.zip")
    ours = h.run([h.docpkg, "pack", corpus, "-o", ours_zip, "--quiet"], setup=_remove(ours_zip), repeat=repeat)
    peers = []
    info_zip = os.path.join(work, "infozip.zip")
    peers.append(("zip -r -6", h.run(["zip", "-q", "-r", "-6", info_zip, leaf], setup=_remove(info_zip),
                                     repeat=repeat, cwd=parent)))
    bsd_zip = os.path.join(work, "bsdtar.zip")
    peers.append(("bsdtar --format zip", h.run(["bsdtar", "--format", "zip", "-cf", bsd_zip, leaf],
                                               setup=_remove(bsd_zip), repeat=repeat, cwd=parent)))
    py_zip = os.path.join(work, "python.zip")
    peers.append(("python zipfile", h.run(["python3", "-c", PYTHON_ZIP, py_zip, corpus], setup=_remove(py_zip),
                                          repeat=repeat)))
    peer_name, peer = _best(peers)
    others = ", ".join(f"{n} {r.wall:.2f} s" for n, r in peers if r.ok)
    h.row(f"pack {name} -> zip", ours, peer_name, peer, target=0.5,
          rss_limit_mb=64 if name == "many" else None,  # issue 14 row 8
          note=f"best peer of: {others}; ours deflates with libdeflate (small files, both cores) and zlib (large, streamed), stores incompressible data")
    if os.path.exists(ours_zip) and os.path.exists(info_zip):
        ratio = os.path.getsize(ours_zip) / os.path.getsize(info_zip)
        h.row(f"pack {name} -> zip: size / zip -6 size", round(ratio, 4), limit=1.05,
              note=f"ours {os.path.getsize(ours_zip):,} bytes, zip -6 {os.path.getsize(info_zip):,} bytes")
    return ours_zip


class BusyCores:
    """Keeps ``count`` cores busy with spin loops (one Python process each) while in the block.

    A user's machine is rarely idle (issue 14 row 5): unpack is measured on a quiet machine, with
    one core busy and with both busy, each time side by side with bsdtar under the same load.
    """

    SPIN = "while True: pass"

    def __init__(self, count):
        self.count = count
        self.procs = []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", self.SPIN]) for _ in range(self.count)]
        return self

    def __exit__(self, *exc):
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()
        return False


UNPACK_CONDITIONS = (  # (label, spin loops, target ratio to bsdtar under the same load)
    ("quiet", 0, 0.8),
    ("1 core busy", 1, 1.2),
    ("2 cores busy", 2, 1.2),
)


def _load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def _unpack_rows(h, name, archive, repeat):
    """Issue 6 / issue 14 row 5: unpack vs bsdtar -xf, quiet and with one and two cores kept busy."""
    work = h.scratch(f"archive-unpack-{name}")
    ours_out = os.path.join(work, "ours")
    bsd_out = os.path.join(work, "bsdtar")
    for label, spins, target in UNPACK_CONDITIONS:
        load = _load()
        runs = [([h.docpkg, "unpack", archive, "-o", ours_out, "--quiet"], _fresh_dir(ours_out)),
                (["bsdtar", "-xf", archive, "-C", bsd_out], _fresh_dir(bsd_out))]
        if spins == 0:
            unzip_out = os.path.join(work, "unzip")
            runs += [(["unzip", "-q", archive, "-d", unzip_out], _fresh_dir(unzip_out)),
                     ([h.docpkg, "unpack", archive, "-o", ours_out, "--quiet", "--sync"], _fresh_dir(ours_out))]
        with BusyCores(spins):
            ours, bsd, *others = h.run_side_by_side(runs, repeat=repeat)
        info, durable = others if others else (None, None)
        note = (f"the zip docpkg packed; runs alternating with the peer's; {spins} spin loop(s) while both ran; "
                f"load average {load} before")
        if info is not None and info.ok:
            note += f"; Info-ZIP unzip {info.wall:.2f} s"
        h.row(f"unpack {name} zip ({label})", ours, "bsdtar -xf", bsd, target=target, note=note)
        if durable is not None:
            h.row(f"unpack {name} zip --sync ({label})", durable, "bsdtar -xf", bsd,
                  note="the tree made durable (syncfs) before its rename, as --force always does; bsdtar syncs nothing")


def _cat_row(h, name, archive, repeat):
    """Issue 14 row 4: one entry of a zip of the many corpus, through the central directory, vs `unzip -p`."""
    import zipfile
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
    member = names[len(names) // 2]
    tops = {n.split("/", 1)[0] for n in names}
    entry = member.split("/", 1)[1] if len(tops) == 1 and "/" in member else member  # docpkg unwraps one top dir
    ours = h.run([h.docpkg, "cat", archive, entry], repeat=repeat)
    peer = h.run(["unzip", "-p", archive, member], repeat=repeat)
    h.row(f"cat one entry of {name} zip", ours, "unzip -p", peer, target=2, rss_limit_mb=32,
          note=f"{len(names):,} entries; the entry found through the central directory, no tree built")
    missing = h.run(f"'{h.docpkg}' cat '{archive}' no/such/entry 2> /dev/null || true", repeat=repeat)
    h.row(f"cat a missing entry of {name} zip", missing, "unzip -p", peer, target=2, rss_limit_mb=32,
          note="'no such entry' answered from the central directory too")
    top = h.run(f"'{h.docpkg}' inspect --depth 1 '{archive}' > /dev/null", repeat=repeat)
    h.row(f"inspect --depth 1 of {name} zip", top, "unzip -p", peer, target=2, rss_limit_mb=32,
          note="the top level and the totals from the central directory, no tree built")


def rows(h):
    """Pack typical/many to zip vs peers (with the size check), unpack them vs bsdtar, big at bounded RSS."""
    # A quick check of issue 14 row 5: DOCPKG_BENCH_UNPACK_ONLY=1 runs only the unpack rows, and a
    # comma-separated list of corpus names (e.g. "typical") only those corpora's.
    unpack_only = os.environ.get("DOCPKG_BENCH_UNPACK_ONLY", "")
    chosen = None if unpack_only in ("", "1") else set(unpack_only.split(","))
    # Unpacking typical is short and the disk's writeback makes single runs vary: 5 alternating runs each.
    for name, repeat, unpack_repeat in (("typical", 3, 5), ("many", 3, 3)):
        if unpack_only:
            if chosen is not None and name not in chosen:
                continue
            archive = os.path.join(h.scratch(f"archive-pack-{name}"), "ours.zip")
            subprocess.run([h.docpkg, "pack", h.corpus(name), "-o", archive, "--quiet"], check=True)
            _unpack_rows(h, name, archive, unpack_repeat)
            continue
        archive = _pack_rows(h, name, repeat)
        if os.path.exists(archive):
            _unpack_rows(h, name, archive, unpack_repeat)
            if name == "many":
                _cat_row(h, name, archive, 5)

    if unpack_only or os.environ.get("DOCPKG_BENCH_SKIP_BIG"):  # a quick check of the typical and many rows only
        h.row("pack/unpack big zip (RSS)", None, note="skipped: DOCPKG_BENCH_SKIP_BIG or DOCPKG_BENCH_UNPACK_ONLY is set")
        return
    big = h.corpus("big")
    work = h.scratch("archive-big")
    big_zip = os.path.join(work, "big.zip")
    pack = h.run([h.docpkg, "pack", big, "-o", big_zip, "--quiet"], setup=_remove(big_zip), repeat=1)
    h.row("pack big -> zip (RSS)", pack, rss_limit_mb=64, note="4 x 256 MiB incompressible files, streamed")
    out = os.path.join(work, "out")
    unpack = h.run([h.docpkg, "unpack", big_zip, "-o", out, "--quiet"], setup=_fresh_dir(out), repeat=1)
    h.row("unpack big zip (RSS)", unpack, rss_limit_mb=64, note="read through a 1 MiB buffer; large files written from 4 reused 1 MiB buffers")
