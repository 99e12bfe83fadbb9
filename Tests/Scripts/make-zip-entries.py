#!/usr/bin/env python3
"""Writes a zip that the central-directory reader accepts, with entries that take each path of
ZipEntryReading, and the expected bytes of each entry beside it.

Usage: make-zip-entries.py OUT.zip EXPECTED-DIR [--damage NAME]

Entries (all under `pkg/`, made on Unix, mode 0644, an extended timestamp in the central header):
* small.txt: deflated text of about 200 KB (inflated whole);
* big.txt: deflated text of 3 MiB (more than the whole-entry limit: streamed);
* raw.bin: 2.5 MiB of pseudo-random bytes, stored (read in several blocks);
* long-extra.txt: deflated text after a local extra field of 300 bytes (longer than the reader
  guesses: the data starts after the first read);
* tiny-long-extra.txt: 3 bytes deflated after a local extra field of 300 bytes;
* stored-long-extra.bin: 5,000 stored bytes after a local extra field of 300 bytes.
--damage NAME flips bytes in the middle of that entry's data (the central directory unchanged).
"""

import os
import random
import struct
import sys
import zlib

MTIME = 1_700_000_000


def text(size, seed):
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "package", "document", "note", "chapter", "line"]
    out = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + "\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()[:size]


def deflate(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def main():
    out, expected = sys.argv[1], sys.argv[2]
    damage = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--damage" else None
    rng = random.Random(7)
    entries = [
        ("small.txt", text(200_000, 1), 8, b""),
        ("big.txt", text(3 << 20, 2), 8, b""),
        ("raw.bin", rng.randbytes(5 << 19), 0, b""),
        ("long-extra.txt", text(20_000, 3), 8, struct.pack("<HH", 0xCAFE, 296) + bytes(296)),
        ("tiny-long-extra.txt", b"hi\n", 8, struct.pack("<HH", 0xCAFE, 296) + bytes(296)),
        ("stored-long-extra.bin", rng.randbytes(5000), 0, struct.pack("<HH", 0xCAFE, 296) + bytes(296)),
    ]
    os.makedirs(expected, exist_ok=True)
    blob = bytearray()
    central = bytearray()
    for name, data, method, local_extra in entries:
        with open(os.path.join(expected, name), "wb") as handle:
            handle.write(data)
        packed = deflate(data) if method == 8 else data
        if name == damage:
            middle = len(packed) // 2
            packed = packed[:middle] + bytes(b ^ 0x5A for b in packed[middle:middle + 16]) + packed[middle + 16:]
        full = ("pkg/" + name).encode()
        crc = zlib.crc32(data)
        offset = len(blob)
        blob += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(packed), len(data),
                            len(full), len(local_extra))
        blob += full + local_extra + packed
        extra = struct.pack("<HHBI", 0x5455, 5, 1, MTIME)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, method, 0, 0x21, crc, len(packed),
                               len(data), len(full), len(extra), 0, 0, 0, 0o100644 << 16, offset)
        central += full + extra
    start = len(blob)
    blob += central
    blob += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0)
    with open(out, "wb") as handle:
        handle.write(blob)


if __name__ == "__main__":
    main()
