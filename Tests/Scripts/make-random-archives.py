#!/usr/bin/env python3
"""Writes random archives and what Python's zipfile and tarfile read in them, for the differential test.

usage: make-random-archives.py OUTDIR SEED COUNT

Writes COUNT archives (zip: stored and deflated; tar: pax, GNU and ustar, some gzipped) into OUTDIR, with random
names (ASCII, Unicode in NFC and NFD, Latin-1 bytes in GNU and ustar tars), depths, modes, sizes, symbolic links
and tar hard links, and prints one JSON line per archive: {"archive", "entries": [{"path" (base64 of the name's
bytes, no trailing /), "kind", "size", "mode", "target" (base64), "fnv" (FNV-1a 64 of a file's bytes, hex)}]},
read back from the written file by Python. Every archive is one docpkg must accept: no duplicate names (also
under Unicode canonical equivalence), no `..`, links only to entries inside it, depths below 20.
"""
import base64, gzip, io, json, os, random, stat, sys, tarfile, time, unicodedata, zipfile

OUT, SEED, COUNT = os.path.abspath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
MTIME = 1_700_000_000
PIECES = ["a", "b", "Text", "data", "Ünïcödé", "日本語", "émoji😀", "x y", "long" * 20, "dot.ext", "~tilde",
          "percent%41", "e\u0301", "\u00e9t\u00e9", "Ωmega", "ß", "#hash", "-dash", "[br]"]
LATIN1 = ["caf\xe9", "na\xefve", "\xfcber", "pi\xf1a"]


def fnv(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return format(value, "016x")


def tree(rng, latin1):
    """Random entries: (path as str, kind, data or link target, mode). Parents come before children."""
    entries, seen, directories = [], set(), [""]

    def fresh(parent):
        for _ in range(20):
            piece = rng.choice(LATIN1 if latin1 and rng.random() < 0.3 else PIECES) + rng.choice(["", str(rng.randrange(100))])
            if rng.random() < 0.2:
                piece = unicodedata.normalize(rng.choice(["NFC", "NFD"]), piece)
            path = parent + piece
            key = unicodedata.normalize("NFC", path)
            if key not in seen:
                seen.add(key)
                return path
        return None

    for _ in range(rng.randrange(1, 30)):
        parent = rng.choice(directories)
        if parent.count("/") >= 19:
            continue
        path = fresh(parent)
        if path is None:
            continue
        roll = rng.random()
        if roll < 0.3:
            directories.append(path + "/")
            entries.append((path, "directory", None, rng.choice([0o755, 0o700, 0o750, 0o775])))
        elif roll < 0.85:
            size = rng.choice([0, 1, 5, 100, 4096, rng.randrange(200_000)])
            data = bytes(rng.randrange(256) for _ in range(min(size, 64))) * (size // 64 + 1)
            entries.append((path, "file", data[:size], rng.choice([0o644, 0o600, 0o755, 0o640, 0o444])))
        else:
            files = [e for e in entries if e[1] == "file"]
            if not files:
                continue
            target = rng.choice(files)[0]
            entries.append((path, "symlink", os.path.relpath(target, os.path.dirname(path) or "."), 0o777))
    return entries


def write_zip(path, entries, rng):
    method = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
    with zipfile.ZipFile(path, "w") as archive:
        for name, kind, data, mode in entries:
            info = zipfile.ZipInfo(name + ("/" if kind == "directory" else ""), time.gmtime(MTIME)[:6])
            info.create_system = 3
            info.compress_type = method
            if kind == "directory":
                info.external_attr = ((stat.S_IFDIR | mode) << 16) | 0x10
                archive.writestr(info, b"")
            elif kind == "symlink":
                info.external_attr = (stat.S_IFLNK | mode) << 16
                archive.writestr(info, data.encode())
            else:
                info.external_attr = (stat.S_IFREG | mode) << 16
                archive.writestr(info, data)


def write_tar(path, entries, rng, fmt, compress):
    buffer = io.BytesIO()
    files = []
    with tarfile.open(fileobj=buffer, mode="w", format=fmt, encoding="utf-8", errors="surrogateescape") as archive:
        for name, kind, data, mode in entries:
            member = tarfile.TarInfo(name)
            member.mtime, member.mode = MTIME, mode
            if kind == "directory":
                member.type = tarfile.DIRTYPE
                archive.addfile(member)
            elif kind == "symlink":
                member.type, member.linkname = tarfile.SYMTYPE, data
                archive.addfile(member)
            elif files and rng.random() < 0.15:
                member.type, member.linkname = tarfile.LNKTYPE, rng.choice(files)
                archive.addfile(member)
            else:
                member.size = len(data)
                archive.addfile(member, io.BytesIO(data))
                files.append(name)
    raw = buffer.getvalue()
    with open(path, "wb") as f:
        f.write(gzip.compress(raw, mtime=0) if compress else raw)


def name_bytes(name):
    return name.encode("utf-8", "surrogateescape")


def zip_mtime(info):
    """The entry's time as Info-ZIP reads it: the extended timestamp's (UTC), else the NTFS record's, else the
    MS-DOS time in the local time zone."""
    extra, position = info.extra, 0
    ntfs = None
    while position + 4 <= len(extra):
        tag, length = int.from_bytes(extra[position:position + 2], "little"), int.from_bytes(extra[position + 2:position + 4], "little")
        data = extra[position + 4:position + 4 + length]
        if tag == 0x5455 and len(data) >= 5 and data[0] & 1:
            return int.from_bytes(data[1:5], "little", signed=True)
        if tag == 0x000A and len(data) >= 32 and int.from_bytes(data[4:6], "little") == 1:
            ntfs = int.from_bytes(data[8:16], "little") // 10_000_000 - 11_644_473_600
        position += 4 + length
    return ntfs if ntfs is not None else int(time.mktime(info.date_time + (0, 0, -1)))


def unicode_path(info):
    """The name of the entry's Info-ZIP Unicode Path field (0x7075), if it has one for this name (its CRC-32 is the
    stored name's). Info-ZIP `zip` 3.0 writes a UTF-8 name without the UTF-8 flag and adds this field; unzip,
    libarchive and Go read the name as UTF-8, Python as CP437 unless it is told to read this field."""
    import zlib
    extra, position = info.extra, 0
    stored = info.orig_filename.encode("cp437") if info.flag_bits & 0x800 == 0 else info.orig_filename.encode()
    while position + 4 <= len(extra):
        tag, length = int.from_bytes(extra[position:position + 2], "little"), int.from_bytes(extra[position + 2:position + 4], "little")
        data = extra[position + 4:position + 4 + length]
        if tag == 0x7075 and len(data) >= 5 and data[0] == 1 and int.from_bytes(data[1:5], "little") == zlib.crc32(stored):
            return data[5:].decode("utf-8", "surrogateescape")
        position += 4 + length
    if info.flag_bits & 0x800 == 0 and info.create_system == 3:
        # Made on Unix without the UTF-8 flag (Info-ZIP `zip` 3.0 on a UTF-8 system): unzip, bsdtar and Go take
        # a name that is valid UTF-8 as UTF-8; Python takes it as CP437 (the README's table of differences).
        try:
            return stored.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def read_zip(path):
    """Python's reading of a zip; `mode` is None for an entry without a Unix mode (made elsewhere than on Unix); a
    name from the Unicode Path field where there is one (see `unicode_path`); a file's size is the bytes Python
    reads and writes (its header can state more: a stored entry whose size is 4 GiB too large)."""
    result = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            data = archive.read(info)
            kind = "directory" if info.is_dir() else "symlink" if stat.S_ISLNK(mode) else "file"
            name = unicode_path(info) or info.filename
            result.append({
                "path": base64.b64encode(name_bytes(name.rstrip("/"))).decode(), "kind": kind,
                "size": len(data) if kind == "file" else None,
                "mode": mode & 0o7777 if info.create_system == 3 and mode else None,
                "target": base64.b64encode(data).decode() if kind == "symlink" else None,
                "fnv": fnv(data) if kind == "file" else None, "mtime": zip_mtime(info)})
    return result


def read_tar(path):
    result = []
    with tarfile.open(path, encoding="utf-8", errors="surrogateescape") as archive:
        contents = {}
        for member in archive.getmembers():
            kind = ("directory" if member.isdir() else "symlink" if member.issym() else
                    "hardlink" if member.islnk() else "special" if member.isdev() else "file")
            data = archive.extractfile(member).read() if member.isfile() else None
            if data is not None:
                contents[member.name] = data
            if member.islnk():  # a link to a name given otherwise (`./a` for `a`) is read through the link
                data = contents.get(member.linkname)
                data = archive.extractfile(member).read() if data is None else data
            result.append({
                "path": base64.b64encode(name_bytes(member.name.rstrip("/"))).decode(), "kind": kind,
                "size": member.size if kind == "file" else None, "mode": member.mode & 0o7777,
                "target": base64.b64encode(name_bytes(member.linkname)).decode() if member.linkname else None,
                "fnv": fnv(data) if data is not None else None, "mtime": int(member.mtime)})
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(SEED)
    for index in range(COUNT):
        kind = rng.choice(["zip", "pax", "gnu", "ustar", "pax.gz"])
        latin1 = kind in ("gnu", "ustar")
        entries = [(name.encode("latin-1", "ignore").decode("utf-8", "surrogateescape")
                    if latin1 and any("\x80" <= c <= "\xff" for c in name) and all(ord(c) < 256 for c in name)
                    else name, k, d, m) for name, k, d, m in tree(rng, latin1)]
        if kind == "ustar":  # ustar names are at most 255 bytes, with a split at a slash
            entries = [e for e in entries if len(name_bytes(e[0])) < 100 and
                       (e[1] != "symlink" or len(name_bytes(e[2])) < 100)]
        top = f"pkg{index}"
        entries = [(top + "/" + name, k, d, m) for name, k, d, m in entries]
        entries.insert(0, (top, "directory", None, 0o755))
        suffix = {"zip": "zip", "pax.gz": "tar.gz"}.get(kind, "tar")
        path = os.path.join(OUT, f"random-{index:03d}-{kind.replace('.', '-')}.{suffix}")
        if kind == "zip":
            write_zip(path, entries, rng)
            listed = read_zip(path)
        else:
            fmt = {"pax": tarfile.PAX_FORMAT, "pax.gz": tarfile.PAX_FORMAT, "gnu": tarfile.GNU_FORMAT,
                   "ustar": tarfile.USTAR_FORMAT}[kind]
            write_tar(path, entries, rng, fmt, kind.endswith("gz"))
            listed = read_tar(path)
        print(json.dumps({"archive": path, "entries": listed}))


if __name__ == "__main__":
    main()
