#!/usr/bin/env python3
"""Imports libarchive's own zip and tar test archives (its `libarchive/test/*.uu` files) into the committed corpus
that ArchiveDifferentialTests reads (`Tests/Corpora/libarchive/`), from a git clone or bare mirror of
https://github.com/libarchive/libarchive.

usage: import-libarchive-corpus.py LIBARCHIVE_GIT_DIR [OUTDIR]

OUTDIR (default Tests/Corpora/libarchive) is emptied and refilled: each chosen `.uu` file is decoded by
Tests/Scripts/decode-uu-corpus.py (the one decoder; `.tar.Z` becomes `.tar`), libarchive's COPYING is copied
beside them, and README.md names the commit, this script, and each `.uu` of a format we read that was left out,
with why. Chosen: zips (`.zip`, `.zipx`, `.jar`, `.xps`, the self-extractor `test_read_format_zip_sfx`) and tars
(ustar, pax, GNU with sparse files, v7, star; plain, `.Z`, gzip, bzip2, xz, zstd); not tars in a compression
docpkg does not read (lz4, lzop, grzip, lrzip).
"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECODER = os.path.join(ROOT, "Tests", "Scripts", "decode-uu-corpus.py")
TESTS = "libarchive/test/"

ZIP = re.compile(r"\.(zip|zipx|jar|xps)\.uu$|^test_read_format_zip_sfx\.uu$")
TAR = re.compile(r"\.(tar|tar\.Z|tar\.gz|tgz|tar\.bz2|tbz|tar\.xz|txz|tar\.zst|pax\.Z)\.uu$")
# Tars in compressions docpkg does not read (nor Python's tarfile): not a difference in reading tar.
OTHER_COMPRESSION = re.compile(r"\.(lz4|lzo|grz|lrz)\.uu$")
# A `.uu` this large decodes to over 256 KiB: the corpus stays a few MB.
UU_LIMIT = 340_000
# Left out though small, and why.
LEFT_OUT = {}


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True).stdout


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    git_dir = sys.argv[1]
    if os.path.isdir(os.path.join(git_dir, ".git")):
        git_dir = os.path.join(git_dir, ".git")
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(ROOT, "Tests", "Corpora", "libarchive")
    commit = git(git_dir, "rev-parse", "HEAD").decode().strip()
    date = git(git_dir, "show", "-s", "--format=%cs", commit).decode().strip()
    listing = git(git_dir, "ls-tree", "-l", commit, TESTS).decode().splitlines()

    chosen, skipped = [], []
    for line in listing:
        meta, path = line.split("\t", 1)
        name = path[len(TESTS):]
        size = int(meta.split()[3])
        if not name.endswith(".uu") or not (ZIP.search(name) or TAR.search(name) or OTHER_COMPRESSION.search(name)):
            continue
        if OTHER_COMPRESSION.search(name):
            continue  # listed once in the README, not each
        if name in LEFT_OUT:
            skipped.append((name, LEFT_OUT[name]))
        elif size > UU_LIMIT:
            skipped.append((name, f"{size:,} bytes uuencoded: over the corpus's size limit"))
        else:
            chosen.append(name)

    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    with tempfile.TemporaryDirectory() as temp:
        sources = []
        for name in chosen:
            source = os.path.join(temp, name)
            with open(source, "wb") as f:
                f.write(git(git_dir, "show", f"{commit}:{TESTS}{name}"))
            sources.append(source)
        written = subprocess.run([sys.executable, DECODER, out, *sources], check=True, capture_output=True,
                                 text=True).stdout.split()
    for name in chosen:
        decoded = name[:-3][:-2] if name.endswith(".tar.Z.uu") or name.endswith(".pax.Z.uu") else name[:-3]
        if decoded not in written:
            skipped.append((name, "decodes to over 1 MiB (decode-uu-corpus.py's limit)"))
    with open(os.path.join(out, "COPYING"), "wb") as f:
        f.write(git(git_dir, "show", f"{commit}:COPYING"))

    total = sum(os.path.getsize(os.path.join(out, n)) for n in written)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(f"""# libarchive's test archives

The zip and tar archives of libarchive's test suite (`libarchive/test/*.uu` in
https://github.com/libarchive/libarchive, commit {commit}, {date}), decoded by
`Scripts/import-libarchive-corpus.py` (which runs `Tests/Scripts/decode-uu-corpus.py`): {len(written)} archives,
{total:,} bytes. They are libarchive's, under its license (`COPYING`, copied from the same commit).
`ArchiveDifferentialTests` reads each with docpkg, Python's zipfile and tarfile, and bsdtar (`make test`).

A tar compressed with `compress` (`.tar.Z`, `.pax.Z`) is stored uncompressed as `.tar`/`.pax`: neither Python
nor docpkg reads `.Z`. To refresh: `fetch` or clone the repository, then
`Scripts/import-libarchive-corpus.py GIT_DIR`.

Left out:

- tars compressed with lz4, lzop, grzip or lrzip: docpkg reads none of these compressions (nor Python);
- archives of other formats (7-Zip, RAR, cpio, ISO, LHA, CAB, XAR, mtree, ...): docpkg reads zip and tar only;
""")
        for name, why in sorted(skipped):
            f.write(f"- `{name}`: {why};\n")
    print(f"{len(written)} archives, {total:,} bytes, {len(skipped)} left out, from {commit}")


if __name__ == "__main__":
    main()
