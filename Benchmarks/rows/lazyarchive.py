"""Rows for issue 40's archives read lazily: a zip read in place keeps a compact index of its central directory and
makes the nodes of a directory only when it is listed. `docpkg serve` of a 100,000-entry zip (peak RSS after the
first page, <= 64 MiB) and `docpkg inspect` of a 1,000,000-entry zip (peak RSS <= 128 MiB), the latter side by side
with `unzip -l` and `bsdtar -tvf` listing the same zip.

A tar has no central directory: reading one in place walks and judges every header first (what `inspect` lists is
what `unpack` writes). `docpkg cat` of one entry of a 100,000-entry GNU tar, beside `bsdtar -xOf` of the same entry
and `bsdtar -tf` listing the tar; and `docpkg inspect` of a 1,000,000-entry tar (peak RSS), beside `bsdtar -tvf`.

The zips are written by Python's zipfile as `docpkg pack` writes them (entries in path order, Unix modes, an
extended timestamp each, stored): 1,000 files of 100 bytes per folder, 100 or 1,000 folders in one top folder.
"""

import io
import os
import struct
import tarfile
import time
import zipfile

from rows.serve import first_pages

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPE = "zip-v1: Pkg.mydoc/dNNNNN/fNNN.txt, 1,000 per folder, 100 bytes each, stored, UT 1700000000"


def make_zip(count):
    """The zip of `count` files under Benchmarks/work/lazyarchive/N.zip, made once (stamped)."""
    folder = os.path.join(HERE, "work", "lazyarchive")
    path = os.path.join(folder, f"{count}.zip")
    stamp = path + ".stamp"
    if os.path.exists(stamp) and open(stamp).read() == RECIPE:
        return path
    os.makedirs(folder, exist_ok=True)
    seconds = 1_700_000_000
    extended_time = b"UT" + struct.pack("<HBI", 5, 1, seconds)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        def add(name, data, mode):
            info = zipfile.ZipInfo(name, date_time=time.gmtime(seconds)[:6])
            info.create_system = 3  # Unix: the mode in the high 16 bits
            info.external_attr = mode << 16
            info.extra = extended_time
            archive.writestr(info, data)
        add("Pkg.mydoc/", b"", 0o40755)
        for number in range(count):
            folder_name = f"Pkg.mydoc/d{number // 1000:05d}/"
            if number % 1000 == 0:
                add(folder_name, b"", 0o40755)
            add(f"{folder_name}f{number % 1000:03d}.txt", (f"file {number} " * 10).encode()[:100], 0o100644)
    with open(stamp, "w") as out:
        out.write(RECIPE)
    return path


TAR_RECIPE = "tar-v1: GNU format, Pkg.mydoc/dNNNNN/fNNN.txt, 1,000 per folder, 100 bytes each, mtime 1700000000"


def make_tar(count):
    """The GNU tar of `count` files under Benchmarks/work/lazyarchive/N.tar (as `tar -cf` writes it), made once."""
    folder = os.path.join(HERE, "work", "lazyarchive")
    path = os.path.join(folder, f"{count}.tar")
    stamp = path + ".stamp"
    if os.path.exists(stamp) and open(stamp).read() == TAR_RECIPE:
        return path
    os.makedirs(folder, exist_ok=True)
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as archive:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.mtime = 1_700_000_000
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))
        add("Pkg.mydoc", None)
        for number in range(count):
            folder_name = f"Pkg.mydoc/d{number // 1000:05d}"
            if number % 1000 == 0:
                add(folder_name, None)
            add(f"{folder_name}/f{number % 1000:03d}.txt", (f"file {number} " * 10).encode()[:100])
    with open(stamp, "w") as out:
        out.write(TAR_RECIPE)
    return path


def tar_rows(h):
    """One entry of a 100,000-entry tar (every header judged first) beside bsdtar; inspect of 1,000,000 entries."""
    small = make_tar(100_000)
    member = "Pkg.mydoc/d00050/f500.txt"
    ours, extract, listing = h.run_side_by_side(
        [([h.docpkg, "cat", small, member.split("/", 1)[1]], None), (["bsdtar", "-xOf", small, member], None),
         (["bsdtar", "-tf", small], None)], repeat=5)
    h.row("cat one entry of a tar of 100,000 entries", ours, "bsdtar -xOf", extract,
          note=f"the tar read in place: every header read and judged (duplicates, links, names) before the entry "
               f"is read; `bsdtar -tf` lists the same tar in {listing.wall * 1000:.0f} ms (CPU "
               f"{listing.cpu * 1000:.0f} ms). GNU format, as `tar -cf` writes it (docpkg reads its headers itself "
               f"too, for what libarchive does not report).")
    large = make_tar(1_000_000)
    ours, bsdtar = h.run_side_by_side([([h.docpkg, "inspect", large], None), (["bsdtar", "-tvf", large], None)],
                                      repeat=1)
    h.row("inspect: tar of 1,000,000 entries", ours, "bsdtar -tvf", bsdtar,
          note=f"peak RSS: the walk's table of accepted paths (about 50 bytes a path) and the index read in place; "
               f"bsdtar {bsdtar.rss_mb:.0f} MB.")


def rows(h):
    """Serve of 100k entries <= 64 MiB; inspect of 1M entries <= 128 MiB, beside `unzip -l` and `bsdtar -tvf`."""
    small = make_zip(100_000)
    try:
        pages, peaks = first_pages(h.docpkg, small)
        h.row("serve: memory, zip of 100,000 entries", max(peaks), limit=64,
              note=f"peak RSS (VmHWM, MiB) of `docpkg serve` on the zip after the first page; the largest of 3 "
                   f"(first page {min(pages) * 1000:.0f}-{max(pages) * 1000:.0f} ms).")
    except (RuntimeError, OSError) as error:
        h.row("serve: memory, zip of 100,000 entries", None, note=f"not measured: {error}")
    large = make_zip(1_000_000)
    ours, unzip, bsdtar = h.run_side_by_side(
        [([h.docpkg, "inspect", large], None), (["unzip", "-l", large], None), (["bsdtar", "-tvf", large], None)])
    h.row("inspect: zip of 1,000,000 entries", ours, "unzip -l", unzip, rss_limit_mb=128,
          note=f"side by side with `unzip -l` and `bsdtar -tvf` (bsdtar {bsdtar.wall:.2f} s, "
               f"{bsdtar.rss_mb:.0f} MB; unzip {unzip.rss_mb:.0f} MB). Ours checks every local header against the "
               f"central directory before it lists (one pread each), as unpack does.")
    tar_rows(h)
