#!/usr/bin/env python3
"""Deterministic benchmark corpora (issue 2), generated once and cached.

Each corpus is a directory under ``Benchmarks/work/corpora/``; a stamp file next to it
(``<dir>.stamp``) records the generator version and parameters, so a corpus is rebuilt
only when it is missing or its recipe changed. Corpora are built in ``<dir>.tmp`` and
renamed into place, so an interrupted run never leaves a half corpus that looks done.

Corpora (at scale 1):

* ``typical``: ``Index.json``; 500 dirs ``Pages/pNNNN/`` each with a 4 KiB text file and a
  16 KiB random file; ``Data/`` with 60 random files of 1-5 MiB and 1,000 text files of
  200-8,000 bytes (about 200 MB).
* ``many``: 1,000 dirs ``dNNNN/`` x 100 text files ``fNNN.txt`` of 1 KiB (about 100 MB).
* ``big``: 4 random files ``bigN.raw`` of 256 MiB.

``--scale S`` multiplies the file counts of ``typical`` and ``many`` and the file sizes of
``big`` by S (at least one of each); the directory name then carries the scale
(``many-s0.05``). Random bytes are SHAKE-128 output keyed from ``random.Random(seed)``, text comes from a
Zipf-weighted word list, so text compresses like text and random data does not compress.

Run alone: ``python3 Benchmarks/corpora.py many --scale 0.05`` prints the corpus path.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import time

GENERATOR_VERSION = 1
SEED = 20260402
CHUNK = 1 << 20
KIB = 1024
MIB = 1024 * 1024

NAMES = ("typical", "many", "big")

_COMMON_WORDS = (
    "the of and to a in is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her all she there would their we him been has when who will more no if out so said what up "
    "its about into than them can only other new some could time these two may then do first any my now such "
    "like our over man me even most made after also did many before must through back years where much your way "
    "well down should because each just those people how too little state good very make world still own see "
    "men work long get here between both life being under never day same another know while last might us great "
    "old year off come since against go came right used take three page document package file chapter section "
    "note draft figure table image version editor paragraph revision author title summary index data"
).split()


def _vocabulary(rng):
    """Return (words, cumulative weights): common English words plus synthesized words, Zipf-weighted."""
    syllables = ["ka", "lo", "mi", "ren", "tas", "vel", "or", "an", "ist", "ul", "pre", "con", "ing", "er",
                 "tion", "ment", "al", "ous", "ble", "ly", "de", "re", "sta", "mo", "qui", "dra", "fen", "sol"]
    words = list(_COMMON_WORDS)
    seen = set(words)
    while len(words) < 3000:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    cumulative, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank
        cumulative.append(total)
    return words, cumulative


class TextSource:
    """Generates text that looks like prose: Zipf-distributed words in short sentences, one per line."""

    WORDS_PER_LINE = 11

    def __init__(self, rng):
        self.rng = rng
        self.words, self.cumulative = _vocabulary(rng)

    def text(self, size):
        """Return exactly ``size`` bytes of ASCII prose ending with a newline (if size > 0)."""
        if size <= 0:
            return b""
        per_line = self.WORDS_PER_LINE
        chunks = []
        length = 0
        while length < size:
            picked = self.rng.choices(self.words, cum_weights=self.cumulative, k=size // 5 + per_line)
            lines = [" ".join(picked[i:i + per_line]) for i in range(0, len(picked), per_line)]
            chunk = "".join(line[0].upper() + line[1:] + ".\n" for line in lines).encode("ascii")
            chunks.append(chunk)
            length += len(chunk)
        return b"".join(chunks)[: size - 1] + b"\n"


def _write_random(path, size, rng):
    """Write ``size`` seeded pseudo-random bytes to ``path`` in 1 MiB chunks (bounded memory).

    The bytes are SHAKE-128 output keyed by 128 bits from ``rng`` and a chunk counter:
    deterministic, incompressible, and several times faster than ``Random.randbytes``.
    """
    key = rng.getrandbits(128).to_bytes(16, "little")
    with open(path, "wb") as out:
        left, counter = size, 0
        while left > 0:
            n = min(CHUNK, left)
            out.write(hashlib.shake_128(key + counter.to_bytes(8, "little")).digest(n))
            left -= n
            counter += 1


def _write_bytes(path, data):
    with open(path, "wb") as out:
        out.write(data)


def _count(base, scale):
    return max(1, round(base * scale))


def recipe(name, scale):
    """Return the parameters that define corpus ``name`` at ``scale`` (stored in the stamp)."""
    if name == "typical":
        return {"pages": _count(500, scale), "page_text": 4 * KIB, "page_blob": 16 * KIB,
                "data_random": _count(60, scale), "data_random_min": 1 * MIB, "data_random_max": 5 * MIB,
                "data_text": _count(1000, scale), "data_text_min": 200, "data_text_max": 8000}
    if name == "many":
        return {"dirs": _count(1000, scale), "files_per_dir": 100, "file_size": KIB}
    if name == "big":
        return {"files": 4, "file_size": max(MIB, int(256 * MIB * scale))}
    raise ValueError(f"unknown corpus {name!r} (known: {', '.join(NAMES)})")


def _build_typical(root, params, rng):
    text = TextSource(rng)
    pages = []
    for i in range(params["pages"]):
        page = f"p{i:04d}"
        folder = os.path.join(root, "Pages", page)
        os.makedirs(folder)
        _write_bytes(os.path.join(folder, "content.txt"), text.text(params["page_text"]))
        _write_random(os.path.join(folder, "preview.bin"), params["page_blob"], rng)
        pages.append({"id": page, "text": f"Pages/{page}/content.txt", "preview": f"Pages/{page}/preview.bin"})
    data = os.path.join(root, "Data")
    os.makedirs(data)
    images = []
    for i in range(params["data_random"]):
        name = f"img{i + 1:03d}.raw"
        _write_random(os.path.join(data, name),
                      rng.randint(params["data_random_min"], params["data_random_max"]), rng)
        images.append(f"Data/{name}")
    notes = []
    for i in range(params["data_text"]):
        name = f"note{i + 1:04d}.txt"
        _write_bytes(os.path.join(data, name),
                     text.text(rng.randint(params["data_text_min"], params["data_text_max"])))
        notes.append(f"Data/{name}")
    index = {"format": "bench-typical", "version": 1, "title": "Typical document",
             "pages": pages, "images": images, "notes": notes}
    _write_bytes(os.path.join(root, "Index.json"), json.dumps(index, indent=2).encode() + b"\n")


def _build_many(root, params, rng):
    text = TextSource(rng)
    for d in range(params["dirs"]):
        folder = os.path.join(root, f"d{d:04d}")
        os.makedirs(folder)
        for f in range(params["files_per_dir"]):
            _write_bytes(os.path.join(folder, f"f{f:03d}.txt"), text.text(params["file_size"]))


def _build_big(root, params, rng):
    os.makedirs(root, exist_ok=True)
    for i in range(params["files"]):
        _write_random(os.path.join(root, f"big{i}.raw"), params["file_size"], rng)


_BUILDERS = {"typical": _build_typical, "many": _build_many, "big": _build_big}


def middle_file_of_many(root):
    """Return the entry path ("dNNNN/fNNN.txt") of a file in the middle of a `many` corpus at ``root``."""
    dirs = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    folder = dirs[len(dirs) // 2]
    files = sorted(os.listdir(os.path.join(root, folder)))
    return f"{folder}/{files[len(files) // 2]}"


def corpus_dir(base, name, scale):
    """Return the directory of corpus ``name`` at ``scale`` under ``base`` (not creating it)."""
    suffix = "" if scale == 1 else f"-s{scale:g}"
    return os.path.join(base, f"{name}{suffix}")


def ensure(base, name, scale=1.0, log=print):
    """Build corpus ``name`` at ``scale`` under ``base`` unless a matching stamp exists; return its path."""
    params = recipe(name, scale)
    path = corpus_dir(base, name, scale)
    stamp_path = path + ".stamp"
    stamp = {"generator": GENERATOR_VERSION, "seed": SEED, "name": name, "scale": scale, "params": params}
    try:
        with open(stamp_path) as f:
            if json.load(f) == stamp and os.path.isdir(path):
                return path
    except (OSError, ValueError):
        pass
    log(f"corpus {name} (scale {scale:g}): generating {path} ...")
    started = time.perf_counter()
    for stale in (stamp_path, path + ".tmp", path):
        if os.path.isdir(stale):
            shutil.rmtree(stale)
        elif os.path.exists(stale):
            os.remove(stale)
    os.makedirs(path + ".tmp")
    _BUILDERS[name](path + ".tmp", params, random.Random(f"{SEED}:{name}"))
    os.rename(path + ".tmp", path)
    with open(stamp_path, "w") as f:
        json.dump(stamp, f)
        f.write("\n")
    log(f"corpus {name} (scale {scale:g}): done in {time.perf_counter() - started:.1f} s")
    return path


def main(argv=None):
    """CLI: build the named corpora and print their paths."""
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Generate the benchmark corpora (cached).")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"corpora to build (default: {' '.join(NAMES)})")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--dir", default=os.path.join(here, "work", "corpora"))
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r} (known: {', '.join(NAMES)})")
    for name in args.names or NAMES:
        print(ensure(args.dir, name, args.scale, log=lambda m: print(m, file=sys.stderr)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
