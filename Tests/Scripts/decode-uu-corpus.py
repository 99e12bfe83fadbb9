#!/usr/bin/env python3
"""Decodes uuencoded test archives (as libarchive keeps them in its test/ folder: `begin MODE NAME`, lines,
`end`) into a corpus folder for the differential test's `corpus` group (make-others-archives.py).

usage: decode-uu-corpus.py OUTDIR FILE.uu...

Each FILE.uu becomes OUTDIR/FILE (its name less `.uu`); a tar compressed with `compress` (`.tar.Z`, `.pax.Z`) is
uncompressed (`gzip -dc` reads the format) into a `.tar`, which Python's tarfile can read. A decoded file over
1 MiB is left out. Prints the names written.
"""
import binascii, os, subprocess, sys

LIMIT = 1 << 20


def uudecode(text):
    """The bytes of the first `begin ... end` block of `text`."""
    out = bytearray()
    inside = False
    for line in text.splitlines():
        if not inside:
            inside = line.startswith(b"begin ")
            continue
        if line.strip() in (b"end", b"`", b""):
            if line.strip() == b"end":
                break
            continue
        try:
            out += binascii.a2b_uu(line)
        except binascii.Error:
            # Some encoders pad lines short: decode by the length byte alone.
            length = (line[0] - 32) & 63
            out += binascii.a2b_uu(line[: 1 + (length + 2) // 3 * 4])
    if not inside:
        raise SystemExit("no `begin` line")
    return bytes(out)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for source in sys.argv[2:]:
        name = os.path.basename(source)
        name = name[:-3] if name.endswith(".uu") else name
        with open(source, "rb") as f:
            data = uudecode(f.read())
        if name.endswith((".tar.Z", ".pax.Z")):
            data = subprocess.run(["gzip", "-dc"], input=data, capture_output=True, check=True).stdout
            name = name[:-2]
        if len(data) > LIMIT:
            continue
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(name)


if __name__ == "__main__":
    main()
