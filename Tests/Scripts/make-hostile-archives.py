#!/usr/bin/env python3
"""Writes one hostile archive per class of attack into OUTDIR, for the unpack security tests.

usage: make-hostile-archives.py OUTDIR [CASE ...]

Every file an attack tries to plant is called `evil.txt` (or lives in OUTDIR/outside/), so a test
can check that none was written. Absolute paths point into OUTDIR/outside/, never at real system
files. Prints the names of the archives written, one a line.
"""
import struct, io, os, sys, tarfile, time, zipfile

OUT = os.path.abspath(sys.argv[1])
WANTED = set(sys.argv[2:])
OUTSIDE = os.path.join(OUT, "outside")
MTIME = 1_700_000_000


def info(name, kind=tarfile.REGTYPE, data=b"", mode=0o644, link=""):
    member = tarfile.TarInfo(name)
    member.type = kind
    member.mode = mode
    member.mtime = MTIME
    member.linkname = link
    member.size = len(data) if kind == tarfile.REGTYPE else 0
    return member, (io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def tar(name, members, fmt=tarfile.PAX_FORMAT, encoding="utf-8"):
    if WANTED and name.split(".")[0] not in WANTED:
        return
    path = os.path.join(OUT, name)
    with tarfile.open(path, "w", format=fmt, encoding=encoding) as archive:
        for member, data in members:
            archive.addfile(member, data)
    print(name)


def zipped(name, entries, method=zipfile.ZIP_DEFLATED, fix=None):
    """entries: (name, data, mode) triples, or (name, data, mode, extra field) for both headers of an entry;
    mode's type bits make links and directories."""
    if WANTED and name.split(".")[0] not in WANTED:
        return
    path = os.path.join(OUT, name)
    import warnings
    warnings.simplefilter("ignore")
    with zipfile.ZipFile(path, "w", method) as archive:
        for entry_name, data, mode, *extra in entries:
            entry = zipfile.ZipInfo(entry_name, time.gmtime(MTIME)[:6])
            entry.external_attr = mode << 16
            entry.compress_type = method
            if extra:
                entry.extra = extra[0]
            archive.writestr(entry, data)
    if fix:
        with open(path, "r+b") as f:
            raw = bytearray(f.read())
            raw = fix(raw)
            f.seek(0)
            f.truncate()
            f.write(raw)
    print(name)


FILE, DIR, LINK = 0o100644, 0o040755, 0o120777
os.makedirs(OUTSIDE, exist_ok=True)

# Paths that leave the destination.
zipped("dotdot.zip", [("pkg/", b"", DIR), ("../evil.txt", b"evil", FILE)])
tar("dotdot-nested.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/../../evil.txt", data=b"evil")])
tar("absolute.tar", [info(os.path.join(OUTSIDE, "evil.txt"), data=b"evil")])
zipped("backslash.zip", [("pkg\\..\\..\\evil.txt", b"evil", FILE)])

# Links.
tar("write-through-symlink.tar", [
    info("pkg/", tarfile.DIRTYPE, mode=0o755),
    info("pkg/out", tarfile.SYMTYPE, link=OUTSIDE),
    info("pkg/out/evil.txt", data=b"evil"),
])
tar("write-through-inner-symlink.tar", [
    info("pkg/", tarfile.DIRTYPE, mode=0o755),
    info("pkg/sub", tarfile.DIRTYPE, mode=0o755),
    info("pkg/link", tarfile.SYMTYPE, link="sub"),
    info("pkg/link/evil.txt", data=b"evil"),
])
zipped("symlink-escape.zip", [("pkg/", b"", DIR), ("pkg/escape", b"../../outside", LINK)])
# Top-level links: only one pointing to a sibling top-level entry is allowed.
tar("toplevel-link-escape.tar", [info("small.txt", data=b"x"), info("link", tarfile.SYMTYPE, link="../outside/evil.txt")])
tar("toplevel-link-foreign.tar", [info("small.txt", data=b"x"), info("link", tarfile.SYMTYPE, link="not-in-archive.txt")])
tar("symlink-absolute.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/abs", tarfile.SYMTYPE, link="/etc/passwd")])
tar("symlink-chain-escape.tar", [
    info("pkg/", tarfile.DIRTYPE, mode=0o755),
    info("pkg/a", tarfile.SYMTYPE, link="b/../.."),
    info("pkg/b", tarfile.SYMTYPE, link="."),
])
tar("hardlink-outside.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/passwd", tarfile.LNKTYPE, link="/etc/passwd")])
tar("hardlink-dotdot.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/h", tarfile.LNKTYPE, link="../outside/x")])
tar("directory-replaced-by-symlink.tar", [
    info("pkg/", tarfile.DIRTYPE, mode=0o755),
    info("pkg/d", tarfile.DIRTYPE, mode=0o755),
    info("pkg/d", tarfile.SYMTYPE, link="."),
])

# Special files, set-id bits, duplicates, odd names.
tar("device.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/null", tarfile.CHRTYPE, mode=0o666)])
tar("fifo.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/pipe", tarfile.FIFOTYPE, mode=0o644)])
tar("setuid.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/tool", data=b"#!/bin/sh\n", mode=0o6755)])
# Not hostile: a hard link whose header gives another mode than its target's (one file, two names), and set-id bits;
# the second also holds a FIFO, so that inspect lists it flat.
for name, extra in [("hardlink-mode.tar", []), ("hardlink-mode-flat.tar", [info("pkg/pipe", tarfile.FIFOTYPE)])]:
    tar(name, [
        info("pkg/", tarfile.DIRTYPE, mode=0o755),
        info("pkg/a.txt", data=b"abc", mode=0o640),
        info("pkg/h.txt", tarfile.LNKTYPE, link="pkg/a.txt", mode=0o4755),
        info("pkg/tool", data=b"#!/bin/sh\n", mode=0o6755),
    ] + extra)
zipped("duplicate.zip", [("pkg/", b"", DIR), ("pkg/a.txt", b"first", FILE), ("pkg/a.txt", b"second", FILE)])
tar("file-then-directory.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/a", data=b"x"), info("pkg/a/evil.txt", data=b"evil")])
tar("long-name.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/" + "n" * 300, data=b"x")])
tar("control-characters.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/red\x1b[31m.txt", data=b"x")])
tar("non-utf8.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/caf\xe9.txt", data=b"x")],
    fmt=tarfile.USTAR_FORMAT, encoding="iso-8859-1")
# A link whose target is Latin-1 bytes, beside a file so named: unpacked with those bytes.
tar("non-utf8-link.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/caf\xe9.txt", data=b"x"),
                          info("pkg/link", tarfile.SYMTYPE, link="caf\xe9.txt")],
    fmt=tarfile.GNU_FORMAT, encoding="iso-8859-1")
# U+F7E9 is how docpkg carries the raw byte 0xE9 of a name that is not UTF-8: a name that spells it
# literally would be confused with `pkg/caf\xe9.txt`.
tar("raw-byte-scalars.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/caf\uf7e9.txt", data=b"x")])

# Bombs.
zipped("bomb-ratio.zip", [("pkg/", b"", DIR), ("pkg/zeros.bin", bytes(64 << 20), FILE)])
tar("bomb-count.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755)] + [info(f"pkg/f{i}", data=b"x") for i in range(50)])
tar("bomb-size.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/big", data=b"y" * 100_000)])


# Integrity.
def flip_crc(raw):
    # The CRC of the first file entry, in its local header (offset 14) and its central header (offset 16).
    local = raw.find(b"PK\x03\x04", raw.find(b"pkg/a.txt") - 40)
    raw[local + 14] ^= 0xFF
    central = raw.find(b"PK\x01\x02")
    while central >= 0:
        if raw[central + 46:central + 46 + 9] == b"pkg/a.txt":
            raw[central + 16] ^= 0xFF
        central = raw.find(b"PK\x01\x02", central + 4)
    return raw


def lie_size(raw):
    # Claim 1000 bytes more than the entry has, in both headers.
    local = raw.find(b"PK\x03\x04", raw.find(b"pkg/a.txt") - 40)
    size = int.from_bytes(raw[local + 22:local + 26], "little") + 1000
    raw[local + 22:local + 26] = size.to_bytes(4, "little")
    central = raw.find(b"PK\x01\x02")
    while central >= 0:
        if raw[central + 46:central + 46 + 9] == b"pkg/a.txt":
            raw[central + 24:central + 28] = size.to_bytes(4, "little")
        central = raw.find(b"PK\x01\x02", central + 4)
    return raw


def truncate(raw):
    return raw[: raw.find(b"PK\x01\x02")]


text = b"all work and no play makes jack a dull boy\n" * 100
zipped("bad-crc.zip", [("pkg/", b"", DIR), ("pkg/a.txt", text, FILE)], fix=flip_crc)
zipped("lying-size.zip", [("pkg/", b"", DIR), ("pkg/a.txt", text, FILE)], fix=lie_size)
# Stored, only a size a multiple of 4 GiB too large gives the bytes stored (make-foreign-archives.py).
zipped("stored-lying-size.zip", [("pkg/", b"", DIR), ("pkg/a.txt", text, FILE)], method=zipfile.ZIP_STORED,
       fix=lie_size)
zipped("truncated.zip", [("pkg/", b"", DIR), ("pkg/a.txt", text, FILE), ("pkg/b.txt", text, FILE)], fix=truncate)
tar("truncated.tar", [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/a.txt", data=text * 10)])
if not WANTED or "truncated" in WANTED:
    path = os.path.join(OUT, "truncated.tar")
    with open(path, "r+b") as f:
        f.truncate(1024 + 2000)


# Pax headers written byte by byte (tarfile writes one pax header per entry, with no NUL in a path).
from pax_blocks import block, pax_header, pax_record


def raw_tar(name, blocks):
    if WANTED and name.split(".")[0] not in WANTED:
        return
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(b"".join(blocks) + b"\0" * 1024)
    print(name)


def file_block(name, data):
    member, _ = info(name, data=data)
    return block(member, data)


# A pax path with a NUL byte: libarchive would cut it to `pkg/a.txt` (Go refuses the header).
raw_tar("pax-nul-in-path.tar", [pax_header([pax_record(b"path", b"pkg/a.txt\0/../../evil.txt")]),
                                file_block("pkg/x.txt", b"x")])
# A pax header whose record length is wrong: malformed, refused.
raw_tar("pax-malformed.tar", [pax_header([b"99 path=pkg/a.txt\n"]), file_block("pkg/x.txt", b"x")])
# A header whose checksum does not match.
if not WANTED or "bad-checksum" in WANTED:
    raw = bytearray(file_block("pkg/b.txt", b"data"))
    raw[4] ^= 0x01  # the name changes, the stored checksum does not
    raw_tar("bad-checksum.tar", [file_block("pkg/a.txt", b"a"), bytes(raw)])
# A pax size that is not a number: libarchive fails on `+5` and reads ` 5` as 5; both are refused whole.
raw_tar("pax-size-plus.tar", [pax_header([pax_record(b"size", b"+1")]), file_block("pkg/x.txt", b"x")])
raw_tar("pax-size-space.tar", [pax_header([pax_record(b"size", b" 1")]), file_block("pkg/x.txt", b"x")])
# A pax uid that is not a number (Go: header error; libarchive reads the digits before the `x`).
raw_tar("pax-bad-uid.tar", [pax_header([pax_record(b"uid", b"15x7823492")]), file_block("pkg/x.txt", b"x")])
# Not hostile: a pax mtime with junk after its digits, 15 to GNU tar and libarchive (Python keeps the header's).
raw_tar("pax-bad-mtime.tar", [pax_header([pax_record(b"mtime", b"15x7823492.5")]), file_block("pkg/x.txt", b"x")])

# Not hostile (libarchive's tar_timestamp_overflow test archive): a GNU header whose size field is NULs before
# octal digits, 0 to Python, GNU tar and libarchive (a NUL ends the field).
if not WANTED or "gnu-size-leading-nul" in WANTED:
    head = bytearray(tarfile.TarInfo("pkg/f.txt").tobuf(tarfile.GNU_FORMAT))
    head[124:136] = b"\0" * 7 + b"0016\0"
    head[148:156] = b" " * 8
    head[148:156] = b"%06o\0 " % sum(head)
    raw_tar("gnu-size-leading-nul.tar", [bytes(head)])


# The local header must say what the central directory says (name, sizes, CRC, method, flags): readers
# that trust one and readers that trust the other would otherwise see different archives.
def local_header_of(raw, name):
    """The offset of the local header of the first entry named `name`: the last signature before the name."""
    return raw.rfind(b"PK\x03\x04", 0, raw.find(name))


def patch_local(offset, width, value):
    def fix(raw):
        local = local_header_of(raw, b"pkg/good.txt")
        raw[local + offset:local + offset + width] = value.to_bytes(width, "little")
        return raw
    return fix


def rename_local(raw):
    local = local_header_of(raw, b"pkg/good.txt")
    raw[local + 30:local + 30 + 12] = b"pkg/evil.txt"
    return raw


good = [("pkg/", b"", DIR), ("pkg/good.txt", text, FILE)]
zipped("local-name.zip", good, fix=rename_local)
zipped("local-crc.zip", good, fix=patch_local(14, 4, 0x12345678))
zipped("local-size.zip", good, fix=patch_local(22, 4, len(text) + 1))
zipped("local-method.zip", good, fix=patch_local(8, 2, 0))
zipped("local-flags.zip", good, fix=patch_local(6, 2, 1 << 11))


# Extra fields libarchive cannot walk (it refuses the entry), and a central directory that is not where the
# end record says: our own readers must refuse what libarchive refuses, or show another archive than it.
def timestamp_extra(entries):
    """entries with an extended timestamp record (0x5455) in both headers of each file."""
    return [(n, d, m, b"UT\x05\x00\x01" + MTIME.to_bytes(4, "little")) for n, d, m in entries]


def local_extra_overflow(raw):
    """The local record of good.txt claims 21 bytes where 5 follow (the central one stays well formed)."""
    local = local_header_of(raw, b"pkg/good.txt")
    raw[local + 30 + 12 + 2:local + 30 + 12 + 4] = (21).to_bytes(2, "little")
    return raw


def central_extra_trailing(raw):
    """The central record of good.txt says 3 bytes where 5 follow: 2 bytes are left that are no record."""
    central = raw.rfind(b"PK\x01\x02", 0, raw.rfind(b"pkg/good.txt"))
    raw[central + 46 + 12 + 2:central + 46 + 12 + 4] = (3).to_bytes(2, "little")
    return raw


def gap_before_end(raw):
    """16 bytes between the central directory and the end record: libarchive shifts every offset by 16."""
    end = raw.rfind(b"PK\x05\x06")
    return raw[:end] + b"\0" * 16 + raw[end:]


zipped("local-extra-overflow.zip", timestamp_extra(good), fix=local_extra_overflow)
zipped("central-extra-trailing.zip", timestamp_extra(good), fix=central_extra_trailing)
zipped("gap-before-end.zip", good, fix=gap_before_end)


def end_record_other_disk(raw):
    """Not hostile: the end record says the central directory is on disk 146 (found by fuzz-zip). Python, Go and
    Info-ZIP ignore the disk numbers, and so do our readers; libarchive is shown the directory they read."""
    end = raw.rfind(b"PK\x05\x06")
    raw[end + 6:end + 8] = (146).to_bytes(2, "little")
    return raw


zipped("end-record-other-disk.zip", good, fix=end_record_other_disk)


def end_record_count(count, zip64=False):
    """Not hostile: the end record counts `count` entries (both of its counts), whatever the directory holds;
    with `zip64`, the zip is given zip64 end records (which count `count`) and the classic one says 0xFFFF.
    Python (which reads headers for the directory's size), libarchive, Info-ZIP and 7-Zip list every header
    (the last two with an error); Go alone refuses."""
    def fix(raw):
        end = raw.rfind(b"PK\x05\x06")
        if not zip64:
            raw[end + 8:end + 12] = struct.pack("<HH", count, count)
            return raw
        size, offset = struct.unpack_from("<II", raw, end + 12)
        record = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, size, offset)
        locator = struct.pack("<IIQI", 0x07064B50, 0, end, 1)
        classic = bytearray(raw[end:])
        classic[8:20] = struct.pack("<HHII", 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        return raw[:end] + record + locator + classic
    return fix


three = good + [("pkg/more.txt", b"more\n", FILE)]
zipped("count-too-low.zip", three, fix=end_record_count(1))
zipped("count-zero.zip", three, fix=end_record_count(0))
zipped("count-too-high.zip", three, fix=end_record_count(5))
zipped("zip64-count-too-low.zip", three, fix=end_record_count(1, zip64=True))
zipped("zip64-count-too-high.zip", three, fix=end_record_count(1000, zip64=True))
# Not hostile: a zip after a stub (a self-extractor, `cat stub a.zip`), read by every tool with its offsets
# shifted by the stub's length.
zipped("prepended.zip", good, fix=lambda raw: bytearray(b"#!/bin/sh\nexit 0\n" + b"\0" * 46) + raw)


def zip64_local_compressed_only(name, data):
    """Not hostile (the layout of libarchive's zip64b test archive): a streamed entry whose local header saturates
    only its compressed size, with a zip64 field of 8 bytes holding that one, and a zip64 data descriptor.
    Python, libarchive and Info-ZIP read it."""
    if WANTED and name.split(".")[0] not in WANTED:
        return
    import zlib
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = packer.compress(data) + packer.flush()
    crc = zlib.crc32(data)
    entry = b"-"
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 8, 8, 0, 0x5821, 0, 0xFFFFFFFF, len(data), len(entry), 12)
    local += entry + struct.pack("<HHQ", 1, 8, 0)
    descriptor = struct.pack("<IIQQ", 0x08074B50, crc, len(packed), len(data))
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 45, 8, 8, 0, 0x5821, crc, len(packed), len(data),
                          len(entry), 0, 0, 0, 0, 0o100644 << 16, 0) + entry
    body = local + packed + descriptor
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(body), 0)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(body + central + end)
    print(name)


zip64_local_compressed_only("zip64-local-compressed-only.zip", b"hello\n")

class Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek back in, so it writes data descriptors (flag bit 3)."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, b):
        return self.f.write(b)


if not WANTED or "descriptor-crc" in WANTED:
    # The CRC in the data descriptor differs from the data's (and the central directory's).
    buffer = io.BytesIO()
    with zipfile.ZipFile(Unseekable(buffer), "w", zipfile.ZIP_DEFLATED) as archive:
        for entry_name, data, mode in good:
            entry = zipfile.ZipInfo(entry_name, time.gmtime(MTIME)[:6])
            entry.external_attr = mode << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    raw = bytearray(buffer.getvalue())
    descriptor = raw.find(b"PK\x07\x08", raw.find(b"pkg/good.txt"))
    raw[descriptor + 4] ^= 0xFF
    with open(os.path.join(OUT, "descriptor-crc.zip"), "wb") as f:
        f.write(raw)
    print("descriptor-crc.zip")


# A .tar.gz whose gzip trailer does not match its data: libarchive does not check the trailer; gzip -t and
# GNU tar refuse the file (bsdtar and Python's tarfile read it).
def gzipped_tar(name, fix):
    if WANTED and name.split(".")[0] not in WANTED:
        return
    import gzip
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for member, data in [info("pkg/", tarfile.DIRTYPE, mode=0o755), info("pkg/a.txt", data=text)]:
            archive.addfile(member, data)
    # Level 0: stored deflate blocks, so a flipped data byte changes the data, not the deflate structure.
    raw = bytearray(gzip.compress(buffer.getvalue(), compresslevel=0, mtime=MTIME))
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(fix(raw))
    print(name)


def xor_at(offset):
    def fix(raw):
        raw[offset if offset >= 0 else len(raw) + offset] ^= 0x01
        return raw
    return fix


gzipped_tar("gzip-crc.tar.gz", xor_at(-8))  # the trailer's CRC-32
gzipped_tar("gzip-length.tar.gz", xor_at(-4))  # the trailer's length
gzipped_tar("gzip-flipped.tar.gz", lambda raw: xor_at(raw.find(b"all work") - len(raw))(raw))  # a byte of pkg/a.txt
gzipped_tar("gzip-cut.tar.gz", lambda raw: raw[:-3])  # the trailer cut short
