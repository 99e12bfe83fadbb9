#!/usr/bin/env python3
"""Writes the small fixture packages under Fixtures/ (run once; the outputs are committed).

- Fixtures/Notes.mydoc: a notes document as an app would write it: an index, text, a PNG image, a thumbnail.
- Fixtures/Attributes.tar: a package with symlinks (to a file, to a directory, dangling), exec bits,
  empty directories and Unicode names. Git cannot keep empty directories, so this one is a tar that
  tests extract with the system's tar into a temp folder.
"""
import io, json, os, shutil, struct, tarfile, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
MTIME = 1_700_000_000  # fixed, so the fixtures are byte-identical when remade


def png(width, height, pixel):
    """A real RGB PNG whose pixels come from pixel(x, y) -> (r, g, b)."""
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def tram(x, y):
    sky = (120 + y // 2, 170 + y // 4, 230)
    body = 20 <= y < 44 and 8 <= x < 56
    window = body and 24 <= y < 32 and (x - 8) % 12 in range(3, 10)
    if window: return (200, 230, 255)
    if body: return (240, 200, 30)
    if y >= 50: return (90, 90, 90)
    return sky


NOTES_TEXT = """Trip to Lisbon
==============

Day 1. Took tram 28 from Martim Moniz up to Graça. The tram is yellow, wooden inside, and
squeals on every curve. Coffee at the miradouro; the whole city is terracotta and white.

Day 2. Belém: pastéis, the tower, the monastery. Walked back along the river at sunset.

To do: send Ana the photos; book the Sintra train (07:40 from Rossio).
"""


def write_notes():
    path = os.path.join(ROOT, "Notes.mydoc")
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.join(path, "Images"))
    os.makedirs(os.path.join(path, "QuickLook"))
    files = {
        "Index.json": json.dumps({
            "format": "com.example.notes", "version": 2, "title": "Trip to Lisbon",
            "body": "Text.txt", "images": ["Images/tram.png"], "created": "2026-10-03T09:14:00Z",
        }, indent=2).encode() + b"\n",
        "Text.txt": NOTES_TEXT.encode(),
        "Images/tram.png": png(64, 64, tram),
        "QuickLook/Thumbnail.png": png(16, 16, lambda x, y: tram(x * 4, y * 4)),
    }
    for name, data in files.items():
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
        os.utime(os.path.join(path, name), (MTIME, MTIME))


def write_attributes():
    """Attributes.pkg inside a tar, built entry by entry so modes and links are exact."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        def add(name, kind, data=b"", mode=0o644, target=""):
            info = tarfile.TarInfo("Attributes.pkg" + ("/" + name if name else ""))
            info.mtime, info.uname, info.gname = MTIME, "", ""
            info.type, info.mode = kind, mode
            if kind == tarfile.SYMTYPE: info.linkname = target
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)
        add("", tarfile.DIRTYPE, mode=0o755)
        add("README.txt", tarfile.REGTYPE, b"A package that exercises attributes.\n")
        add("bin", tarfile.DIRTYPE, mode=0o755)
        add("bin/run.sh", tarfile.REGTYPE, b"#!/bin/sh\necho running\n", mode=0o755)
        add("bin/private.key", tarfile.REGTYPE, b"not really a key\n", mode=0o600)
        add("Empty", tarfile.DIRTYPE, mode=0o755)
        add("Nested", tarfile.DIRTYPE, mode=0o750)
        add("Nested/Empty", tarfile.DIRTYPE, mode=0o700)
        add("Café ☕.txt", tarfile.REGTYPE, "Unicode name, NFC.\n".encode())
        add("日本語", tarfile.DIRTYPE, mode=0o755)
        add("日本語/ノート.txt", tarfile.REGTYPE, "こんにちは\n".encode())
        add("readme-link", tarfile.SYMTYPE, mode=0o777, target="README.txt")
        add("bin-link", tarfile.SYMTYPE, mode=0o777, target="bin")
        add("dangling", tarfile.SYMTYPE, mode=0o777, target="missing/nowhere.txt")
    with open(os.path.join(ROOT, "Attributes.tar"), "wb") as f:
        f.write(out.getvalue())


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    write_notes()
    write_attributes()
