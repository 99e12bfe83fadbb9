#!/usr/bin/env python3
"""Writes the small archives under Fixtures/ that test how entry names and pax headers are read (issue 10).

Run once; the outputs are committed (each is a few hundred bytes, byte-identical when remade).
- names-cp437.zip: names in CP437 with the UTF-8 flag (bit 11) clear, made on MS-DOS, as old Windows tools
  wrote them: `Résumé/naïve.txt` is stored as the bytes 52 82 73 75 6D 82 ... (0x82 is é in CP437).
- names-latin1-unix.zip: Latin-1 names (`caf\xe9/cr\xe8me.txt`), bit 11 clear, made on Unix, as Info-ZIP `zip`
  on Linux writes a Latin-1 file name: kept as bytes, as unzip, bsdtar and 7z keep them.
- names-utf8-flag.zip: the same names in UTF-8 with bit 11 set.
- names-unicode-path.zip: CP437 names (bit 11 clear) plus an Info-ZIP Unicode Path extra field (0x7075)
  whose CRC matches: the field's UTF-8 name `Ünïcödé ✓.txt` wins (CP437 cannot spell ✓).
- names-unicode-path-bad-crc.zip: the same field with a CRC that does not match the stored name: the field
  is ignored and the CP437 name `Ab.txt` is used.
- names-latin1.tar: a GNU tar whose names are Latin-1 bytes (`caf\\xe9/cr\\xe8me.txt`): kept as bytes.
- pax-several-headers.tar: two pax extended headers before one entry (`pkg/first.txt`, then
  `pkg/second.txt`): POSIX says the last wins, so the entry is `pkg/second.txt`.
"""
import io, os, struct, sys, tarfile, zipfile, zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Scripts"))
from pax_blocks import block, pax_header, pax_record  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
DATE = (2023, 11, 14, 22, 13, 20)


class RawNameInfo(zipfile.ZipInfo):
    """A ZipInfo whose name is stored as given bytes, with the UTF-8 flag as given."""

    def __init__(self, raw, utf8_flag, extra=b"", system=3):
        super().__init__(raw.decode("cp437"), DATE)
        self.raw, self.utf8_flag = raw, utf8_flag
        self.extra = extra
        # Made on Unix (3) with a Unix mode, or on MS-DOS (0) with the archive attribute.
        self.external_attr = 0o100644 << 16 if system == 3 else 0x20
        self.create_system = system

    def _encodeFilenameFlags(self):
        return self.raw, (self.flag_bits | 0x800) if self.utf8_flag else (self.flag_bits & ~0x800)


def unicode_path(name_bytes, utf8_name, crc=None):
    """The Info-ZIP Unicode Path extra field: version 1, CRC-32 of the stored name, the UTF-8 name."""
    crc = zlib.crc32(name_bytes) if crc is None else crc
    body = struct.pack("<BI", 1, crc) + utf8_name.encode()
    return struct.pack("<HH", 0x7075, len(body)) + body


def write_zip(name, entries):
    with zipfile.ZipFile(os.path.join(ROOT, name), "w") as archive:
        for info, data in entries:
            archive.writestr(info, data)


def main():
    cp437 = "Résumé/naïve.txt"
    write_zip("names-cp437.zip", [(RawNameInfo(cp437.encode("cp437"), False, system=0), b"cp437\n")])
    write_zip("names-latin1-unix.zip", [(RawNameInfo("café/crème.txt".encode("latin-1"), False), b"latin1\n")])
    write_zip("names-utf8-flag.zip", [(RawNameInfo(cp437.encode("utf-8"), True), b"utf8\n")])
    stored = "Unicode.txt".encode("cp437")
    write_zip("names-unicode-path.zip",
              [(RawNameInfo(stored, False, unicode_path(stored, "Ünïcödé ✓.txt")), b"up\n")])
    stored = "Ab.txt".encode("cp437")
    write_zip("names-unicode-path-bad-crc.zip",
              [(RawNameInfo(stored, False, unicode_path(stored, "Wrong.txt", crc=0x12345678)), b"bad\n")])
    with tarfile.open(os.path.join(ROOT, "names-latin1.tar"), "w", format=tarfile.GNU_FORMAT,
                      encoding="latin-1") as archive:
        for path, data in [("café/", None), ("café/crème.txt", b"latin1\n")]:
            info = tarfile.TarInfo(path.rstrip("/"))
            info.mtime = 1_700_000_000
            info.uname = info.gname = ""
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))


def several_pax_headers():
    member = tarfile.TarInfo("pkg/x.txt")
    member.size, member.mode, member.mtime = 7, 0o644, 1_700_000_000
    blocks = [pax_header([pax_record(b"path", b"pkg/first.txt")]), pax_header([pax_record(b"path", b"pkg/second.txt")]),
              block(member, b"second\n")]
    with open(os.path.join(ROOT, "pax-several-headers.tar"), "wb") as f:
        f.write(b"".join(blocks) + b"\0" * 1024)


if __name__ == "__main__":
    several_pax_headers()
    main()
