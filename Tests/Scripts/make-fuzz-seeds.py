#!/usr/bin/env python3
"""Writes the fuzzers' seed inputs into OUTDIR/<target>/, for `make fuzz` (Tests/Fuzz/README.md).

usage: make-fuzz-seeds.py OUTDIR

Seeds are what the readers meet in practice: the archives in Fixtures/, the hostile archives of
make-hostile-archives.py, Fixtures/Notes.mydoc packed the way docpkg packs (zip entries with Unix modes
and extended timestamps, which the central-directory reader takes, stored and deflated; tar as pax, GNU
and ustar, plain and gzip). They are generated, not committed: the committed corpora under
Tests/Fuzz/corpus/ are what the fuzzers found beyond them, minimized.
"""
import base64, gzip, hashlib, io, json, os, shutil, struct, subprocess, sys, tarfile, zipfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.abspath(sys.argv[1])
FIXTURES = os.path.join(ROOT, "Fixtures")
PACKAGE = os.path.join(FIXTURES, "Notes.mydoc")
MTIME = 1_700_000_000


def folder(name):
    path = os.path.join(OUT, name)
    os.makedirs(path, exist_ok=True)
    return path


def package_entries():
    """(archive name, path on disk) of Notes.mydoc, directories first, in path order."""
    entries = []
    for directory, subdirectories, files in os.walk(PACKAGE):
        subdirectories.sort()
        relative = os.path.relpath(directory, os.path.dirname(PACKAGE))
        entries.append((relative + "/", directory))
        entries += [(os.path.join(relative, name), os.path.join(directory, name)) for name in sorted(files)]
    return entries


def docpkg_zip(path, method):
    """A zip as docpkg writes it: Unix modes, an extended timestamp, nothing else in the extra field."""
    extra = struct.pack("<HHBI", 0x5455, 5, 1, MTIME)
    with zipfile.ZipFile(path, "w") as archive:
        for name, disk in package_entries():
            entry = zipfile.ZipInfo(name, (2023, 11, 14, 22, 13, 20))
            entry.create_system = 3
            entry.extra = extra
            if name.endswith("/"):
                entry.external_attr = (0o040755 << 16) | 0x10
                archive.writestr(entry, b"")
            else:
                entry.external_attr = 0o100644 << 16
                entry.compress_type = method
                with open(disk, "rb") as f:
                    data = f.read()
                # Seeds are kept small: the fuzzers' inputs are at most -max_len bytes.
                archive.writestr(entry, data[:2048])


def zips():
    out = folder("zip")
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith(".zip"):
            shutil.copy(os.path.join(FIXTURES, name), out)
    docpkg_zip(os.path.join(out, "notes-stored.zip"), zipfile.ZIP_STORED)
    docpkg_zip(os.path.join(out, "notes-deflated.zip"), zipfile.ZIP_DEFLATED)
    # An ODF-like document zip: `mimetype` first and stored.
    with zipfile.ZipFile(os.path.join(out, "document.odt"), "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), b"application/vnd.oasis.opendocument.text")
        archive.writestr("content.xml", b"<office:document-content/>", zipfile.ZIP_DEFLATED)
    return out


def tars():
    out = folder("tar")
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith(".tar"):
            shutil.copy(os.path.join(FIXTURES, name), out)
    for fmt, label in ((tarfile.PAX_FORMAT, "pax"), (tarfile.GNU_FORMAT, "gnu"), (tarfile.USTAR_FORMAT, "ustar")):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
            for name, disk in package_entries():
                member = archive.gettarinfo(disk, name.rstrip("/"))
                member.mtime, member.uid, member.gid, member.uname, member.gname = MTIME, 0, 0, "", ""
                if member.isfile():
                    with open(disk, "rb") as f:
                        data = f.read()[:1024]
                    member.size = len(data)
                    archive.addfile(member, io.BytesIO(data))
                else:
                    archive.addfile(member)
        with open(os.path.join(out, f"notes-{label}.tar"), "wb") as f:
            f.write(buffer.getvalue())
        if label == "pax":
            with open(os.path.join(out, "notes-pax.tar.gz"), "wb") as f:
                f.write(gzip.compress(buffer.getvalue(), mtime=0))
    return out


def hostile(zip_out, tar_out):
    work = os.path.join(OUT, "hostile")
    listed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "Tests", "Scripts", "make-hostile-archives.py"), work],
        check=True, capture_output=True, text=True).stdout.split()
    for name in listed:
        source = os.path.join(work, name)
        if os.path.getsize(source) > 64 * 1024:
            continue
        shutil.copy(source, zip_out if name.endswith(".zip") else tar_out)
    shutil.rmtree(work)


def checked(record):
    """A version record with its last line, `check` and the first 16 hex digits of the SHA-256 of the lines before."""
    return record + f"check {hashlib.sha256(record.encode()).hexdigest()[:16]}\n"


def records():
    """One seed per reader of fuzz-records: its first byte picks the reader (RecordsFuzz.swift)."""
    out = folder("records")
    blob, tree = "ab" * 32, "cd" * 32
    reference = base64.urlsafe_b64encode(json.dumps({
        "device": 2049, "identifier": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "inode": 1234,
        "path": "/home/ann/Trip.mydoc", "version": 1}, sort_keys=True).encode()).decode().rstrip("=")
    seeds = {
        "version-record": (0, "docpkg-version 1\ndate 1700000000.000000005\norigin saved\nresolved no\nsize 42\n"
                              f"root {tree} 755 1700000000.000000000\nconflict Text%20copy.txt\nunkept a/b.txt\n"
                              f"remote my%20remote {tree}\n"),
        "version-record-checked": (0, checked("docpkg-version 1\ndate 1700000000.000000005\norigin saved\n"
                                              f"resolved no\nsize 42\nroot {tree} 755 1700000000.000000000\nfollows 3\n")),
        "tree": (1, f"d 755 1700000000.000000000 0 {tree} Images\nf 644 1700000000.000000001 5 {blob} Text.txt\n"
                    "l 777 1700000000.000000002 0 ../Text.txt link%20name\n"),
        "pending": (2, "docpkg-pending 1\nstart 1700000000.000000000\nroot 755 1700000000.000000000\n"
                       "changed Images/tram.png\nreplaced kept\ncontainer 1.000000000 2.000000000 3.000000000 "
                       "4.000000000\nkeep 10\n"),
        "hash-cache": (3, f"2049 1234 5 1700000000.000000001 {blob}\n2049 1235 0 1.000000000 {tree}\n"),
        "identity": (4, "2049 1234\npending 2049 1300\n"),
        "reference-text": (5, f"docpkg-ref1:{reference}\n"),
        "reference-json": (6, base64.urlsafe_b64decode(reference + "==").decode()),
        "tree-entry": (7, "Text copy.txt\0../Images/tram.png"),
    }
    for name, (selector, text) in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([selector]) + text.encode())


def sync():
    """One seed per reader of fuzz-sync: its first byte picks the reader (SyncFuzz.swift). The S3 answers are
    shaped as Ceph RGW and AWS send them."""
    out = folder("sync")
    tree = "cd" * 32
    listing = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/'
               '2006-03-01/"><Name>docs</Name><Prefix>trip/blobs/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000'
               '</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J'
               '/wm36Hy4vbOwM=</NextContinuationToken><Contents><Key>trip/blobs/ab&amp;c</Key><LastModified>'
               '2026-11-26T10:00:00.000Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>'
               '<Size>5</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>trip/blobs/&#x41;'
               '&#66;</Key><ETag>"0e1c-2"</ETag><Size>10485760</Size></Contents></ListBucketResult>')
    error = ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one '
             'of the pre-conditions you specified did not hold</Message><BucketName>docs</BucketName><RequestId>'
             'tx00000f</RequestId><HostId>1a2b-default</HostId></Error>')
    multipart = ('<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>docs</Bucket>'
                 '<Key>trip/blobs/ef</Key><UploadId>2~iCw_lDY8VoyBmpeP0GcGhmkKLRbbCAo</UploadId>'
                 '</InitiateMultipartUploadResult><CompleteMultipartUploadResult><ETag>"3858f62230ac3c915f300c664'
                 '312c11f-9"</ETag></CompleteMultipartUploadResult>')
    seeds = {
        "listing": (0, listing), "error": (0, error), "multipart": (0, multipart),
        "head": (1, f"docpkg-sync-head 1\ntree {tree}\nparent -\ndate 1764000000\n"),
        "head-with-parent": (1, f"docpkg-sync-head 1\ntree {tree}\nparent {'ef' * 32}\ndate 1764000001\nnew x\n"),
        "credentials": (2, "[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = wJalr # note\n"
                           "[profile work]\nregion = eu-west-1\n[work]\nregion=us-east-1\n"),
        "remotes": (3, json.dumps([{"name": "origin", "url": "s3://docs/trip", "endpoint": "http://127.0.0.1:7480",
                                    "region": "us-east-1"},
                                   {"name": "b", "url": "s3://docs/b", "endpoint": "https://s3.example:443",
                                    "region": "auto", "caBundle": "/etc/ssl/ca.pem"}])),
    }
    for name, (selector, text) in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([selector]) + text.encode())
    # An encrypted remote's objects (0xF0: a sealed body, 0xF1: the key parameters), from SealedFormatTests, and
    # a device's pins (0xF2).
    sealed_head = bytes.fromhex("647073310909090909090909090909090909090909090909090909094b863087e60f53ffec62092dd5"
                                "48a207f131e4523cc1c7f27ec9fb7576ed1f59fac92d")
    key_parameters = ('{"format": 1, "kdf": "scrypt", "logN": 10, "p": 1, "r": 8, "salt": "AAECAwQFBgcICQoLDA0O'
                      'Dw==", "sealedKey": "BwcHBwcHBwcHBwcHGtYgLlxbXA11jc24HMtfCx01jhkZV3MKRkcdWjjJDwHtBF1V4h7Az'
                      'lOHesQgNMZx"}')
    pins = "docpkg-sync-pins 1\ntree " + "ab" * 32 + "\ntree " + "cd" * 32 + "\n"
    for name, body in {"sealed-head": bytes([0xF0]) + sealed_head,
                       "key-parameters": bytes([0xF1]) + key_parameters.encode(),
                       "pins": bytes([0xF2]) + pins.encode()}.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(body)


def main():
    zip_out, tar_out = zips(), tars()
    hostile(zip_out, tar_out)
    records()
    sync()
    # unpack reads both kinds.
    unpack = folder("unpack")
    for source in (zip_out, tar_out):
        for name in os.listdir(source):
            shutil.copy(os.path.join(source, name), unpack)


if __name__ == "__main__":
    main()
