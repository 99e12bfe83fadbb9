#!/usr/bin/env python3
"""Prints what Python's zipfile/tarfile see in an archive, or what is in a directory tree, as JSON:
{"path": {"kind": "file|directory|symlink", "mode": "0644", "sha256": ..., "target": ..., "mtime": seconds}}.
The interop tests compare these listings: our archives as Python reads them against the tree packed.

usage: archive-listing.py ARCHIVE|DIRECTORY [--strip-mtime | --strip-link-mtime]
"""
import hashlib, json, os, stat, sys, tarfile, zipfile


def zip_listing(path):
    out = {}
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
        if bad is not None:
            raise SystemExit(f"bad CRC in {bad}")
        for info in archive.infolist():
            mode = info.external_attr >> 16
            name = info.filename.rstrip("/")
            data = archive.read(info)
            if stat.S_ISLNK(mode):
                entry = {"kind": "symlink", "target": data.decode()}
            elif info.is_dir():
                entry = {"kind": "directory", "mode": "%04o" % stat.S_IMODE(mode)}
            else:
                entry = {"kind": "file", "mode": "%04o" % stat.S_IMODE(mode), "sha256": hashlib.sha256(data).hexdigest()}
            out[name] = entry
    return out


def tar_listing(path):
    out = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            name = member.name.rstrip("/")
            if member.issym():
                entry = {"kind": "symlink", "target": member.linkname}
            elif member.isdir():
                entry = {"kind": "directory", "mode": "%04o" % member.mode}
            else:
                data = archive.extractfile(member).read()
                entry = {"kind": "file", "mode": "%04o" % member.mode, "sha256": hashlib.sha256(data).hexdigest()}
            entry["mtime"] = int(member.mtime)
            out[name] = entry
    return out


def tree_listing(root):
    out = {}
    base = os.path.dirname(os.path.abspath(root))
    for directory, dirs, files in os.walk(root):
        for name in [""] + dirs + files:
            full = os.path.join(directory, name) if name else directory
            if not name and directory != root:
                continue
            rel = os.path.relpath(full, base)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                entry = {"kind": "symlink", "target": os.readlink(full)}
            elif stat.S_ISDIR(st.st_mode):
                entry = {"kind": "directory", "mode": "%04o" % stat.S_IMODE(st.st_mode)}
            else:
                with open(full, "rb") as f:
                    entry = {"kind": "file", "mode": "%04o" % stat.S_IMODE(st.st_mode), "sha256": hashlib.sha256(f.read()).hexdigest()}
            entry["mtime"] = int(st.st_mtime)
            out[rel] = entry
    return out


def main():
    path = sys.argv[1]
    if os.path.isdir(path):
        listing = tree_listing(path)
    elif zipfile.is_zipfile(path):
        listing = zip_listing(path)
    else:
        listing = tar_listing(path)
    for entry in listing.values():
        if "--strip-mtime" in sys.argv or ("--strip-link-mtime" in sys.argv and entry["kind"] == "symlink"):
            entry.pop("mtime", None)
    print(json.dumps(listing, sort_keys=True, ensure_ascii=False))


main()
