#!/usr/bin/env python3
"""Writes archives in the shapes other tools produce, which docpkg must read as they do, into OUTDIR.

usage: make-foreign-archives.py OUTDIR [CASE ...]

Each is built byte by byte where tarfile would not write it that way, after archives seen in the wild
(and in Go's archive/tar test data): GNU headers carrying star's access and change times where GNU
keeps a sparse file's real size, several pax headers for one entry and no end-of-archive blocks,
device entries, entries nested deeper than any directory tree a person makes, a Solaris sparse file
(pax SUN.holesdata), and stored zip entries whose stated size is 4 GiB too large. Prints the names
of the archives written, one a line.
"""
import io, os, sys, tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pax_blocks import block, pax_header, pax_record

OUT = os.path.abspath(sys.argv[1])
WANTED = set(sys.argv[2:])
MTIME = 1_365_454_838


def write(name, data):
    if WANTED and name.split(".")[0] not in WANTED:
        return
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(name)


def checksum(header):
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    return header


def gnu_header(name, data, times):
    """A GNU (`ustar  `) header for a regular file with star's atime and ctime at bytes 476 and 488."""
    member = tarfile.TarInfo(name)
    member.size, member.mtime, member.mode = len(data), MTIME, 0o664
    member.uname = member.gname = "eyefi"
    header = bytearray(member.tobuf(format=tarfile.GNU_FORMAT)[:512])
    header[108:124] = bytes(16)  # uid and gid fields left empty (NUL)
    header[476:500] = b"%011o\0%011o\0" % times
    return bytes(checksum(header)) + data + bytes((512 - len(data) % 512) % 512)


# A 14-byte log whose header's bytes 483-494 (a GNU sparse file's real size) hold part of a time.
write("gnu-star-times.tar", gnu_header("P1050238.JPG.log", b"44,44,POWERON\0", (MTIME - 11, MTIME)))


def hard_link(name, target):
    member = tarfile.TarInfo(name)
    member.type, member.linkname, member.mtime = tarfile.LNKTYPE, target, MTIME
    return member


def symlink_block(name, target):
    member = tarfile.TarInfo(name)
    member.type, member.linkname, member.mtime = tarfile.SYMTYPE, target, 0
    return block(member)


# Four pax headers before one entry (the last one wins, as GNU tar, bsdtar and Go read it), and no
# end-of-archive blocks after it.
write("pax-several-headers.tar", b"".join([
    pax_header([pax_record(b"path", b"foo/bar/foobarbazfizzfoo")]),
    pax_header([pax_record(b"path", b"fizz/buzz/fizz/buzz/fizz")]),
    pax_header([pax_record(b"linkpath", b"buzz/fizz/buzz/fizz/buzz/bar")]),
    pax_header([pax_record(b"linkpath", b"pkg/target.txt")]),
    symlink_block("pkg/link", "pkg/other.txt"),
]))


def regular_block(name, data):
    member = tarfile.TarInfo(name)
    member.size, member.mtime = len(data), MTIME
    return block(member, data)


def gnu_long_link(target):
    member = tarfile.TarInfo("././@LongLink")
    member.type, member.size = tarfile.GNUTYPE_LONGLINK, len(target) + 1
    return member.tobuf(format=tarfile.GNU_FORMAT)[:512] + (target + b"\0").ljust(512, b"\0")


# A pax size record with leading zeros, more than an Int64 has digits (libarchive, GNU tar, Python read 5).
write("pax-size-zeros.tar", pax_header([pax_record(b"size", b"0" * 30 + b"5")]) + regular_block("pkg/a.txt", b"hello")
      + b"\0" * 1024)
# A link target given twice: a pax linkpath and a GNU long link after it (all read target.txt), and a hard
# link's target in two pax headers (the last wins for GNU tar and bsdtar; Python takes the first).
write("pax-link-several-ways.tar", b"".join([
    regular_block("pkg/target.txt", b"x"),
    pax_header([pax_record(b"linkpath", b"target.txt")]), gnu_long_link(b"target.txt"),
    symlink_block("pkg/link", "zz"),
    pax_header([pax_record(b"linkpath", b"pkg/nope")]), pax_header([pax_record(b"linkpath", b"pkg/target.txt")]),
    block(hard_link("pkg/hard", "zz")),
    b"\0" * 1024,
]))


def entry(name, kind, data=b""):
    member = tarfile.TarInfo(name)
    member.type, member.mtime, member.size = kind, MTIME, len(data)
    member.devmajor, member.devminor = 8, 0
    return member, io.BytesIO(data) if kind == tarfile.REGTYPE else None


def tar(name, members, fmt=tarfile.PAX_FORMAT):
    if WANTED and name.split(".")[0] not in WANTED:
        return
    with tarfile.open(os.path.join(OUT, name), "w", format=fmt) as archive:
        for member, data in members:
            archive.addfile(member, data)
    print(name)


tar("devices.tar", [
    entry("pkg/", tarfile.DIRTYPE), entry("pkg/sda", tarfile.BLKTYPE), entry("pkg/null", tarfile.CHRTYPE),
    entry("pkg/pipe", tarfile.FIFOTYPE), entry("pkg/a.txt", tarfile.REGTYPE, b"hi"),
], fmt=tarfile.GNU_FORMAT)
# Deeper than a 64-directory cache, and as deep as a path of 3,072 bytes allows.
tar("deep-70.tar", [entry("a/" * 70 + "f", tarfile.REGTYPE, b"x")])
tar("deep-1500.tar", [entry("a/" * 1500 + "f", tarfile.REGTYPE, b"x")])


def windows_zip(name):
    """A zip as Windows tools write it: made on MS-DOS, NTFS or VFAT (FAT attributes, some read-only), MS-DOS
    times in the writer's time zone (here UTC+9), and the real time in an NTFS (0x000A) or extended-timestamp
    (0x5455) field; central-time.txt has its extended timestamp in the central directory only (its local
    header's copy is renamed to an unknown field)."""
    if WANTED and name.split(".")[0] not in WANTED:
        return
    import struct, zipfile
    ticks = (MTIME + 11_644_473_600) * 10_000_000 + 1234567  # 100 ns ticks since 1601
    ntfs_body = struct.pack("<IHHQQQ", 0, 1, 24, ticks, ticks, ticks)
    ntfs = struct.pack("<HH", 0x000A, len(ntfs_body)) + ntfs_body
    extended = struct.pack("<HHBi", 0x5455, 5, 1, MTIME)
    local = time.gmtime(MTIME + 9 * 3600)[:6]
    with zipfile.ZipFile(os.path.join(OUT, name), "w") as archive:
        for entry_name, extra, attributes, *system in [
            ("pkg/", b"", 0x10), ("pkg/ntfs.txt", ntfs, 0x20), ("pkg/extended.txt", extended, 0x20),
            ("pkg/read-only.txt", extended, 0x21), ("pkg/dos.txt", b"", 0x20),
            ("pkg/read-only-ntfs.txt", b"", 0x21, 11), ("pkg/read-only-vfat.txt", b"", 0x21, 14),
            ("pkg/central-time.txt", extended, 0x20), ("pkg/customized/", b"", 0x11, 14),
        ]:
            entry = zipfile.ZipInfo(entry_name, local)
            entry.create_system, entry.external_attr, entry.extra = (system or (0,))[0], attributes, extra
            archive.writestr(entry, b"" if entry_name.endswith("/") else b"x")
    path = os.path.join(OUT, name)
    data = bytearray(open(path, "rb").read())
    local_name = data.find(b"pkg/central-time.txt") + len("pkg/central-time.txt")
    assert data[local_name:local_name + 2] == b"UT"
    data[local_name:local_name + 2] = b"\x66\x66"
    with open(path, "wb") as f:
        f.write(data)
    print(name)


import time
windows_zip("windows-times.zip")


def solaris_sparse(name):
    """A sparse file as Solaris tar writes it: a pax `SUN.holesdata` record mapping data at 0-512 and 1024-1536
    (pairs of data and hole offsets), the hole between stored as zeros too; then a plain file, whose header
    comes right after all 1,536 bytes."""
    hole, data = entry("pkg/hole", tarfile.REGTYPE, b"a" * 512 + bytes(512) + b"c" * 512)
    hole.pax_headers = {"SUN.holesdata": " 0 512 1024 1536"}
    folder, _ = entry("pkg/", tarfile.DIRTYPE)
    folder.mode = 0o755
    tar(name, [(folder, None), (hole, data), entry("pkg/after.txt", tarfile.REGTYPE, b"after\n")])


solaris_sparse("solaris-sparse.tar")


def stored_zip(name, entries):
    """A zip of stored entries `(name, data, stated size[, CRC-32])`, written byte by byte: a stated size of 4 GiB
    or more goes in a zip64 extra field (both sizes, in the local header and the central directory), as the
    writer of libarchive's `uncompressed_size_off_by_4gib` test archive put it."""
    if WANTED and name.split(".")[0] not in WANTED:
        return
    import struct, zlib
    body, directory = b"", b""
    for entry_name, data, stated, *crc in entries:
        encoded, crc, offset = entry_name.encode(), (crc or [zlib.crc32(data)])[0], len(body)
        if stated >= 0xFFFFFFFF:
            extra, sizes, version = struct.pack("<HHQQ", 1, 16, stated, len(data)), (0xFFFFFFFF, 0xFFFFFFFF), 45
        else:
            extra, sizes, version = b"", (len(data), stated), 20
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, version, 0, 0, 0, 0x21, crc, sizes[0], sizes[1],
                            len(encoded), len(extra)) + encoded + extra + data
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0300 | version, version, 0, 0, 0, 0x21, crc,
                                 sizes[0], sizes[1], len(encoded), len(extra), 0, 0, 0, 0o100644 << 16,
                                 offset) + encoded + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(directory), len(body), 0)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(body + directory + end)
    print(name)


# A stored entry that states 4 GiB more than its 5 bytes, and a plain one after it.
stored_zip("stored-size-off-by-4gib.zip", [("pkg/hello.txt", b"hello", (1 << 32) + 5), ("pkg/b.txt", b"bee\n", 4)])
stored_zip("stored-size-off-by-4gib-bad-crc.zip", [("pkg/hello.txt", b"hello", (1 << 32) + 5, 0x12345678)])
