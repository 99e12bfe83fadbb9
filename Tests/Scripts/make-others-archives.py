#!/usr/bin/env python3
"""Writes archives with other projects' writers and what Python's zipfile and tarfile read in them, for the
differential test (the same JSON lines as make-random-archives.py, whose readers this uses).

usage: make-others-archives.py OUTDIR GROUP

GROUP is one of:
  surrounded  zips with bytes around them, made by Info-ZIP `zip` (`-fz` for zip64, `-A` to adjust offsets,
              `-z` for a comment), Python's zipfile and Go's archive/zip (when `go` is installed): a real
              executable (/bin/true) before the archive (`cat stub a.zip`), junk or a signature after it, both,
              a 40,000-byte comment, and an end record whose directory size is wrong (Python refuses those two;
              Go, Info-ZIP and libarchive read them: the listing given is Python's of the zip before the change).

Prints one JSON line per archive: {"archive", "entries": [...]} as make-random-archives.py documents.
"""
import importlib.util, json, os, shutil, struct, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("random_archives", os.path.join(HERE, "make-random-archives.py"))
random_archives = importlib.util.module_from_spec(_spec)
sys.argv, _argv = sys.argv[:1] + ["/nonexistent", "0", "0"], sys.argv  # the module reads its own arguments
_spec.loader.exec_module(random_archives)
sys.argv = _argv
read_zip = random_archives.read_zip

OUT, GROUP = os.path.abspath(sys.argv[1]), sys.argv[2]
STUB = "/bin/true"


def emit(path, listed_from=None):
    print(json.dumps({"archive": path, "entries": read_zip(listed_from or path)}), flush=True)


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
    if shutil.which("go"):
        env = dict(os.environ, GOCACHE=os.path.join(work, "gocache"), GOPATH=os.path.join(work, "gopath"),
                   HOME=work, GOFLAGS="-mod=mod", GO111MODULE="off")
        for name, offset in (("go-after-stub.zip", "0"), ("go-after-stub-offset.zip", "1")):
            path = os.path.join(OUT, name)
            subprocess.run(["go", "run", os.path.join(HERE, "zip-after-stub.go"), STUB, os.path.join(work, "pkg"),
                            path, offset], cwd=work, env=env, check=True)
            emit(path)


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        {"surrounded": surrounded}[GROUP](work)


if __name__ == "__main__":
    main()
