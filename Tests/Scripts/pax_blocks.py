"""Pax extended headers written byte by byte, for archives tarfile cannot make (several headers for one entry,
a NUL inside a path). Shared by make-hostile-archives.py and Scripts/make-name-fixtures.py."""
import tarfile

MTIME = 1_700_000_000


def pax_record(key, value):
    """One `LENGTH KEY=VALUE\\n` record, LENGTH counting the whole record."""
    body = b" " + key + b"=" + value + b"\n"
    length = len(body) + 1
    while len(str(length).encode()) + len(body) != length:
        length += 1
    return str(length).encode() + body


def block(member, data=b""):
    """`member`'s ustar header followed by `data`, padded to whole 512-byte blocks."""
    return member.tobuf(format=tarfile.USTAR_FORMAT) + data + b"\0" * ((512 - len(data) % 512) % 512)


def pax_header(records):
    """A pax extended header (type x) holding `records`, for the entry that follows it."""
    data = b"".join(records)
    member = tarfile.TarInfo("pkg/PaxHeader")
    member.type, member.size, member.mtime = tarfile.XHDTYPE, len(data), MTIME
    return block(member, data)
