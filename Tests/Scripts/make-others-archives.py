#!/usr/bin/env python3
"""Writes archives with other projects' writers and what Python's zipfile and tarfile read in them, for the
differential test (the same JSON lines as make-random-archives.py, whose readers this uses).

usage: make-others-archives.py OUTDIR GROUP

GROUP is one of:
  surrounded  zips with bytes around them, made by Info-ZIP `zip` (`-fz` for zip64, `-A` to adjust offsets,
              `-z` for a comment), Python's zipfile and Go's archive/zip (when `go` is installed): a real
              executable (/bin/true) before the archive (`cat stub a.zip`), junk or a signature after it, both,
              a 40,000-byte comment, an empty zip (alone and after a stub), and end records whose directory size
              is wrong (Python refuses these; Go, Info-ZIP and libarchive read them: the listing given is
              Python's of the zip before the change), and end records (zip64 too) whose entry counts are
              too low, 0 or too high (Python lists every header, as do libarchive, Info-ZIP and 7-Zip).
  writers     one tree (modes, an empty file, a UTF-8 name, a symbolic link, nested directories) archived by
              Info-ZIP `zip` (with and without extra fields, stored, bzip2, streamed with data descriptors, links
              kept), 7-Zip (`7z -tzip`: deflate, stored, bzip2, LZMA), the JDK's `jar`, bsdtar (zip, ustar, pax,
              v7, gnutar; pax with -S), GNU tar in its formats (gnu, oldgnu, posix, ustar, v7; gzip, bzip2, xz)
              and with `--sparse` (gnu, oldgnu, posix in pax sparse 0.0, 0.1 and 1.0) for a file with holes;
              and a tree with a 200-byte path and a 150-byte link target. Writers missing here are left out.
  corpus      the archives in the folders $DOCPKG_ARCHIVE_CORPUS lists (separated by ':'; other projects' test
              archives: Go's archive/tar and archive/zip testdata, Python's test suite, libarchive's test/*.uu
              decoded by decode-uu-corpus.py), as they are, found by corpus_files; nothing when it is unset. An
              archive Python or bsdtar refuses gets "python_error" or "bsdtar_error" instead. "bsdtar_entries"
              are bsdtar's reading of each entry (kind, size, mode, time, bytes), where bsdtar can copy it.

Prints one JSON line per archive: {"archive", "entries": [...]} as make-random-archives.py documents, and for
the writers group "bsdtar": the names `bsdtar -tf` lists.
"""
import base64, importlib.util, io, json, os, re, shutil, struct, subprocess, sys, tempfile, zipfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("random_archives", os.path.join(HERE, "make-random-archives.py"))
random_archives = importlib.util.module_from_spec(_spec)
sys.argv, _argv = sys.argv[:1] + ["/nonexistent", "0", "0"], sys.argv  # the module reads its own arguments
_spec.loader.exec_module(random_archives)
sys.argv = _argv
read_zip = random_archives.read_zip
read_tar = random_archives.read_tar

OUT, GROUP = os.path.abspath(sys.argv[1]), sys.argv[2]
STUB = "/bin/true"


def emit(path, listed_from=None, bsdtar=False):
    """Prints Python's reading of `path` (or of `listed_from`); with `bsdtar`, bsdtar's names too (`bsdtar -tf`,
    base64 of each name's bytes, without a trailing /)."""
    source = listed_from or path
    entries = read_zip(source) if zipfile.is_zipfile(source) else read_tar(source)
    line = {"archive": path, "entries": entries}
    if bsdtar and shutil.which("bsdtar"):
        names = subprocess.run(["bsdtar", "-tf", path], check=True, capture_output=True,
                               env=dict(os.environ, LC_ALL="C.UTF-8")).stdout.split(b"\n")
        line["bsdtar"] = [base64.b64encode(name.rstrip(b"/")).decode() for name in names if name]
    print(json.dumps(line), flush=True)


def unescaped(name):
    """A name as `bsdtar -t` prints it, with its escapes undone: `\\ooo` for a byte it cannot print, `\\\\`."""
    return re.sub(rb"\\([0-7]{3}|\\)", lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1), 8)]), name)


def is_utf8(name):
    try:
        name.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


CORPUS_SUFFIXES = (".zip", ".zipx", ".tar", ".pax", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar.zst",
                   ".whl", ".egg", ".jar", ".notzip")
# A sparse file larger than this is not read by Python here (Go's gnu-sparse-big.tar is 60 GB of holes): its
# size and kind are compared, its bytes not.
SPARSE_READ_LIMIT = 16 << 20
# The most bytes of bsdtar's copy of an archive read (see bsdtar_entries).
COPY_LIMIT = 64 << 20


def corpus_files(folder):
    """The archives under `folder`, sorted, each as (its path, the file it came from): files with an archive's
    suffix, zips by their end record whatever their name (a self-extractor), and `NAME.zip.base64` decoded into
    OUT (Go keeps one zip so)."""
    found = []
    for directory, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path) or name.endswith((".py", ".pyc")):
                continue
            if name.endswith(".zip.base64"):
                decoded = os.path.join(OUT, "decoded-" + name[:-len(".base64")])
                with open(path, "rb") as f, open(decoded, "wb") as out:
                    out.write(base64.b64decode(f.read()))
                found.append((decoded, path))
            elif name.endswith(CORPUS_SUFFIXES) or zipfile.is_zipfile(path):
                found.append((path, path))
    return found


def read_tar_within_limit(path):
    """Python's reading of a tar, where a sparse file over SPARSE_READ_LIMIT has no "fnv" (it is not read)."""
    import tarfile
    big = set()
    with tarfile.open(path) as archive:
        big = {member.name for member in archive.getmembers()
               if member.issparse() and member.size > SPARSE_READ_LIMIT}
    if not big:
        return read_tar(path)
    original = tarfile.TarFile.extractfile
    tarfile.TarFile.extractfile = lambda self, member: (
        io.BytesIO(b"") if getattr(member, "name", member) in big else original(self, member))
    try:
        entries = read_tar(path)
    finally:
        tarfile.TarFile.extractfile = original
    for entry in entries:
        if base64.b64decode(entry["path"]).decode("utf-8", "surrogateescape") in big:
            entry["fnv"] = None
    return entries


def corpus(_work):
    folders = [f for f in os.environ.get("DOCPKG_ARCHIVE_CORPUS", "").split(os.pathsep) if os.path.isdir(f)]
    # Files of 99 MB (sparse tars): "crc32:" and a CRC-32 in place of the FNV-1a, which pure Python takes minutes for.
    random_archives.fnv = lambda data: "crc32:%08x" % zlib.crc32(data)
    for folder in folders:
        for path, source in corpus_files(folder):
            emit_corpus(path, os.path.relpath(source, os.path.dirname(os.path.abspath(folder))))


def emit_corpus(path, name):
    """Prints Python's and bsdtar's reading of `path`, with `name`: its path from its corpus folder's parent (the
    key of the test's table of differences; `ziptestdata.zip` is two archives of Python's)."""
    line = {"archive": path, "name": name, "entries": []}
    try:
        line["entries"] = read_zip(path) if zipfile.is_zipfile(path) else read_tar_within_limit(path)
    except Exception as error:  # any refusal: bad CRC, unsupported method or encryption, damage
        line["python_error"] = f"{type(error).__name__}: {error}"[:200]
    names = subprocess.run(["bsdtar", "-tf", path], capture_output=True, env=dict(os.environ, LC_ALL="C.UTF-8"))
    listed = [unescaped(n).rstrip(b"/") for n in names.stdout.split(b"\n") if n]
    if names.returncode == 0 and zipfile.is_zipfile(path) and not all(is_utf8(n) for n in listed):
        pass  # bsdtar gives a zip's non-UTF-8 names as stored; Python and we decode them (as CP437)
    elif names.returncode == 0:
        line["bsdtar"] = [base64.b64encode(n).decode() for n in listed]
        # Not for a file of holes over the limit (Go's 60 GB sparse tars): bsdtar's copy would take minutes.
        if all((entry.get("size") or 0) <= SPARSE_READ_LIMIT for entry in line["entries"]):
            line["bsdtar_entries"] = bsdtar_entries(path)
    else:
        line["bsdtar_error"] = names.stderr.decode(errors="replace").strip()[:200]
    print(json.dumps(line), flush=True)


def bsdtar_entries(path):
    """bsdtar's reading of `path` in the entries' JSON form (kinds, sizes, modes, times, bytes), or None where it
    cannot copy the archive: the archive copied by bsdtar into a pax tar (`bsdtar -cf - @path`, every entry as
    libarchive read it), read by Python's tarfile. Not for an encrypted zip (bsdtar asks for a passphrase again
    and again) nor past COPY_LIMIT bytes (a zip stating 4 GiB for 5 bytes)."""
    if zipfile.is_zipfile(path):
        try:
            if any(info.flag_bits & 1 for info in zipfile.ZipFile(path).infolist()):
                return None
        except Exception:
            pass
    process = subprocess.Popen(["bsdtar", "-cf", "-", "--format", "pax", "@" + path], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=dict(os.environ, LC_ALL="C.UTF-8"))
    data = process.stdout.read(COPY_LIMIT + 1)
    if len(data) > COPY_LIMIT:
        process.kill()
    process.stdout.close()
    if process.wait() != 0:
        return None
    copy = os.path.join(OUT, "bsdtar-copy.tar")
    with open(copy, "wb") as f:
        f.write(data)
    try:
        return read_tar_within_limit(copy)
    except Exception:
        return None
    finally:
        os.remove(copy)


def tree(root):
    """A small package: a directory, a text file, a compressible file and an incompressible one."""
    os.makedirs(os.path.join(root, "pkg", "sub"), exist_ok=True)
    with open(os.path.join(root, "pkg", "a.txt"), "w") as f:
        f.write("all work and no play\n")
    with open(os.path.join(root, "pkg", "sub", "words.txt"), "w") as f:
        f.write("lorem ipsum dolor sit amet\n" * 2000)
    with open(os.path.join(root, "pkg", "sub", "noise.bin"), "wb") as f:
        f.write(bytes((i * 7919 + (i >> 3) * 104729) % 251 for i in range(70_000)))


def concatenated(name, *parts):
    path = os.path.join(OUT, name)
    with open(path, "wb") as out:
        for part in parts:
            if isinstance(part, bytes):
                out.write(part)
            else:
                with open(part, "rb") as f:
                    out.write(f.read())
    return path


def with_directory_size(source, name, delta):
    data = bytearray(open(source, "rb").read())
    end = data.rfind(b"PK\x05\x06")
    size = struct.unpack_from("<I", data, end + 12)[0]
    struct.pack_into("<I", data, end + 12, (size + delta) & 0xFFFFFFFF)
    return concatenated(name, bytes(data))


def with_entry_count(source, name, count):
    """`source` with both entry counts of its end record set to `count`, and of its zip64 end record if it has
    one (Python reads the headers in the directory's size, libarchive until the end record, Info-ZIP and 7-Zip
    list them all with an error; Go alone refuses a wrong count)."""
    data = bytearray(open(source, "rb").read())
    end = data.rfind(b"PK\x05\x06")
    zip64 = data.rfind(b"PK\x06\x06")
    if zip64 >= 0:
        struct.pack_into("<QQ", data, zip64 + 24, count, count)
    else:
        struct.pack_into("<HH", data, end + 8, count, count)
    return concatenated(name, bytes(data))


JUNK = bytes((i * 31 + 7) % 256 for i in range(300))
SIGNATURE = b"-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n-----END PGP SIGNATURE-----\n"


def surrounded(work):
    tree(work)
    plain = os.path.join(OUT, "zip.zip")
    subprocess.run(["zip", "-qr", "-X", plain, "pkg"], cwd=work, check=True)
    zip64 = os.path.join(OUT, "zip-fz.zip")
    subprocess.run(["zip", "-qr", "-X", "-fz", zip64, "pkg"], cwd=work, check=True)
    emit(plain)
    emit(zip64)
    emit(concatenated("stub-zip.zip", STUB, plain))
    emit(concatenated("stub-zip64.zip", STUB, zip64))
    adjusted = concatenated("stub-zip-A.zip", STUB, plain)  # zip -A refuses a zip64 archive
    subprocess.run(["zip", "-q", "-A", adjusted], check=True)
    emit(adjusted)
    emit(concatenated("junk-after.zip", plain, JUNK))
    emit(concatenated("signature-after.zip", plain, SIGNATURE))
    emit(concatenated("stub-and-junk.zip", STUB, plain, JUNK))
    emit(concatenated("stub-and-junk-zip64.zip", STUB, zip64, JUNK))
    commented = os.path.join(OUT, "long-comment.zip")
    shutil.copy(plain, commented)
    subprocess.run(["zip", "-q", "-z", commented], input=b"a long comment line\n" * 2000, check=True)
    emit(commented)
    for delta, name in ((-10, "size-smaller.zip"), (10, "size-larger.zip"), (1000, "size-much-larger.zip")):
        emit(with_directory_size(plain, name, delta), listed_from=plain)
    for count, name in ((1, "count-too-low.zip"), (0, "count-zero.zip"), (9, "count-too-high.zip")):
        emit(with_entry_count(plain, name, count))
        emit(with_entry_count(zip64, "zip64-" + name, count))
    # Python writing after a stub in the same file: offsets from the start of its archive.
    path = os.path.join(OUT, "python-after-stub.zip")
    with open(path, "wb") as f:
        f.write(open(STUB, "rb").read())
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as archive:
            for directory, _, files in sorted(os.walk(os.path.join(work, "pkg"))):
                for name in sorted(files):
                    full = os.path.join(directory, name)
                    archive.write(full, os.path.relpath(full, work))
    emit(path)
    # An empty zip (Python and Go read it; libarchive's search for the end record skips a file's first byte).
    empty = os.path.join(OUT, "python-empty.zip")
    zipfile.ZipFile(empty, "w").close()
    emit(empty)
    emit(concatenated("stub-empty.zip", STUB, empty))
    if shutil.which("go"):
        env = dict(os.environ, GOCACHE=os.path.join(work, "gocache"), GOPATH=os.path.join(work, "gopath"),
                   HOME=work, GOFLAGS="-mod=mod", GO111MODULE="off")
        for name, offset in (("go-after-stub.zip", "0"), ("go-after-stub-offset.zip", "1")):
            path = os.path.join(OUT, name)
            subprocess.run(["go", "run", os.path.join(HERE, "zip-after-stub.go"), STUB, os.path.join(work, "pkg"),
                            path, offset], cwd=work, env=env, check=True)
            emit(path)


WRITERS_MTIME = 1_600_000_000  # an even second: MS-DOS times have 2-second steps


def writers_tree(root, sparse):
    """pkg/ with files of several modes, an empty one, a UTF-8 name, a link, nested folders; `holes.img` (1 MiB,
    8 KiB of data) when `sparse`. Every entry's time is WRITERS_MTIME."""
    pkg = os.path.join(root, "pkg")
    os.makedirs(os.path.join(pkg, "sub", "deep"))
    files = {"a.txt": (b"all work and no play\n", 0o644), "run.sh": (b"#!/bin/sh\necho hi\n", 0o755),
             "secret.txt": (b"sh\n", 0o600), "empty": (b"", 0o644), "\u00dcn\u00efc\u00f6d\u00e9.txt": (b"utf-8\n", 0o644),
             "sub/deep/data.bin": (bytes((i * 131) % 256 for i in range(200_000)), 0o640)}
    for name, (data, mode) in files.items():
        path = os.path.join(pkg, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    if sparse:
        with open(os.path.join(pkg, "holes.img"), "wb") as f:
            f.write(b"head" * 1024)
            f.seek(512 * 1024)
            f.write(b"body" * 1024)
            f.truncate(1 << 20)
    os.symlink("a.txt", os.path.join(pkg, "link"))
    for directory, dirs, names in os.walk(pkg, topdown=False):
        for name in names + dirs:
            os.utime(os.path.join(directory, name), (WRITERS_MTIME, WRITERS_MTIME), follow_symlinks=False)
    os.utime(pkg, (WRITERS_MTIME, WRITERS_MTIME))


def long_tree(root):
    """pkg/ with a 200-byte path and a link whose target is 150 bytes: GNU long names and links, pax records."""
    deep = os.path.join(root, "pkg", "d" * 90, "\u00e9" * 30)
    os.makedirs(deep)
    with open(os.path.join(deep, "f" * 50 + ".txt"), "wb") as f:
        f.write(b"long\n")
    os.symlink(os.path.join("d" * 90, "\u00e9" * 30, "f" * 50 + ".txt"), os.path.join(root, "pkg", "l" * 100))
    for directory, dirs, names in os.walk(os.path.join(root, "pkg"), topdown=False):
        for name in names + dirs:
            os.utime(os.path.join(directory, name), (WRITERS_MTIME, WRITERS_MTIME), follow_symlinks=False)
    os.utime(os.path.join(root, "pkg"), (WRITERS_MTIME, WRITERS_MTIME))


def writers(work):
    plain, holes, long = os.path.join(work, "plain"), os.path.join(work, "sparse"), os.path.join(work, "long")
    writers_tree(plain, sparse=False)
    writers_tree(holes, sparse=True)
    long_tree(long)

    def make(name, command, cwd=plain, needs=None):
        if not shutil.which(needs or command[0]):
            return
        path = os.path.join(OUT, name)
        subprocess.run([arg.replace("OUT", path) for arg in command], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=dict(os.environ, TZ="UTC"))
        emit(path, bsdtar=True)

    make("info-zip.zip", ["zip", "-qry", "OUT", "pkg"])
    make("info-zip-X.zip", ["zip", "-qrX", "OUT", "pkg"])
    make("info-zip-stored.zip", ["zip", "-qry0", "OUT", "pkg"])
    make("info-zip-bzip2.zip", ["zip", "-qry", "-Z", "bzip2", "OUT", "pkg"])
    make("info-zip-streamed.zip", ["sh", "-c", "zip -qry - pkg > OUT"], needs="zip")  # data descriptors
    make("7z.zip", ["7z", "a", "-tzip", "OUT", "pkg"])
    for method in ("Copy", "BZip2", "LZMA"):
        make(f"7z-{method.lower()}.zip", ["7z", "a", "-tzip", f"-mm={method}", "OUT", "pkg"])
    make("jar.jar", ["jar", "cf", "OUT", "pkg"])
    for fmt in ("zip", "ustar", "pax", "v7tar", "gnutar"):
        make(f"bsdtar-{fmt}.{'zip' if fmt == 'zip' else 'tar'}", ["bsdtar", "--format", fmt, "-cf", "OUT", "pkg"])
    for fmt in ("gnu", "oldgnu", "posix", "ustar", "v7"):
        make(f"gnu-tar-{fmt}.tar", ["tar", f"--format={fmt}", "-cf", "OUT", "pkg"])
    for fmt in ("gnu", "oldgnu", "posix"):
        make(f"gnu-tar-sparse-{fmt}.tar", ["tar", "--sparse", f"--format={fmt}", "-cf", "OUT", "pkg"], cwd=holes)
    for flag, suffix in (("-z", "tar.gz"), ("-j", "tar.bz2"), ("-J", "tar.xz")):
        make(f"gnu-tar-compressed.{suffix}", ["tar", flag, "-cf", "OUT", "pkg"])
    for version in ("0.0", "0.1"):  # the older pax sparse layouts (1.0 is posix's default above)
        make(f"gnu-tar-sparse-posix-{version}.tar",
             ["tar", "--sparse", "--format=posix", f"--sparse-version={version}", "-cf", "OUT", "pkg"], cwd=holes)
    make("bsdtar-sparse-pax.tar", ["bsdtar", "-S", "--format", "pax", "-cf", "OUT", "pkg"], cwd=holes)
    # Long names and link targets: GNU long name and long link headers, pax records, Info-ZIP and 7-Zip.
    for fmt in ("gnu", "oldgnu", "posix"):
        make(f"gnu-tar-long-{fmt}.tar", ["tar", f"--format={fmt}", "-cf", "OUT", "pkg"], cwd=long)
    for fmt in ("pax", "gnutar"):
        make(f"bsdtar-long-{fmt}.tar", ["bsdtar", "--format", fmt, "-cf", "OUT", "pkg"], cwd=long)
    make("info-zip-long.zip", ["zip", "-qry", "OUT", "pkg"], cwd=long)
    make("7z-long.zip", ["7z", "a", "-tzip", "OUT", "pkg"], cwd=long)


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        {"surrounded": surrounded, "writers": writers, "corpus": corpus}[GROUP](work)


if __name__ == "__main__":
    main()
