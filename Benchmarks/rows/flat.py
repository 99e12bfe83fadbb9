"""Issue 40's rows: one-file operations at 1,000 and at 1,000,000 files, side by side, with the growth.

Two packages of small files (60-odd bytes each), generated here once and kept (stamped) under
``Benchmarks/work/flat/N/Pkg.mydoc``: 10 folders × 100 files, and 1,000 folders × 1,000 files (at
``--scale S`` below 1 the large one has 1,000 × S folders of 1,000 files; at scale 1 it takes a few
minutes to make and about 4.5 GB of disk, plus as much again for the version store its versions fill).

Each operation touches one file in the middle of the package and is measured on both packages in
one alternating run (``run_side_by_side``), warm cache. The row's ratio is the large package's median
wall time over the small one's: the growth, whose target is at most 1.5×. The note gives the CPU
times (steadier on a shared machine) and each side's system calls from one run under ``strace -f``
(all calls, and the ``stat`` family among them).

* ``cat`` of one file;
* ``put`` of one file, ``--versions none`` and with the version kept (the detached settle turned off
  with ``DOCPKG_NO_BACKGROUND_SETTLE``: it is its own row, ``versions settle`` after one ``put``);
* ``rm`` of one file (``--versions none``; each run removes a file made beside the others first);
* ``versions list`` and ``versions show PKG ID ENTRY`` of one file of the newest version;
* ``diff`` of two states that differ in one file: the two newest versions (the one file a ``put``
  changed), the package and its newest version, and the package and a copy of it (``cp -al``, made
  once beside it, ``Copy.mydoc``) in which one file was replaced;
* a ``Document``'s open, edit of one file, save and close (``document-edit``, built beside ``docpkg``
  from ``Benchmarks/Tools/DocumentEdit``, ``--versions none``: with versions kept, ``close()`` waits
  for the settle, the row above), unwatched and watching; skipped when the tool is not there.

The version rows need two settled versions: the first run makes them (two puts, each settled); a
later run reuses the store when it already holds two once what is pending is settled, unless one of the rows that add versions (``put ... version kept``, ``settle``) is
measured.

``DOCPKG_FLAT_ROWS=rm,versions show`` measures only the rows whose names contain one of those words
(the versions rows still make their versions first): at 1,000,000 files the settle and diff rows
take many minutes.
"""

import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(HERE)
RECIPE = "flat v1: FOLDERS folders dNNNN of PER files fNNNN.txt, each 'file D F' six times and a newline"
TARGET = 1.5
PER_FOLDER_SMALL = 100
PER_FOLDER_LARGE = 1_000


def shapes(scale):
    """The two packages: (files, folders, files per folder)."""
    folders = max(1, round(1_000 * scale))
    return [(1_000, 10, PER_FOLDER_SMALL), (folders * PER_FOLDER_LARGE, folders, PER_FOLDER_LARGE)]


def package(files, folders, per_folder):
    """The package of ``folders`` × ``per_folder`` files, made once under Benchmarks/work/flat/FILES/."""
    folder = os.path.join(HERE, "work", "flat", str(files))
    root = os.path.join(folder, "Pkg.mydoc")
    stamp = os.path.join(folder, "stamp")
    recipe = RECIPE.replace("FOLDERS", str(folders)).replace("PER", str(per_folder))
    if os.path.exists(stamp) and open(stamp).read() == recipe:
        return root
    if os.path.lexists(folder):
        shutil.rmtree(folder)
    os.makedirs(root)
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for d in range(folders):
            name = f"d{d:04d}"
            os.mkdir(name, dir_fd=root_fd)
            folder_fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=root_fd)
            try:
                for f in range(per_folder):
                    fd = os.open(f"f{f:04d}.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=folder_fd)
                    os.write(fd, (" ".join([f"file {d} {f}"] * 6) + "\n").encode())
                    os.close(fd)
            finally:
                os.close(folder_fd)
    finally:
        os.close(root_fd)
    with open(stamp, "w") as out:
        out.write(recipe)
    return root


def newest_versions(docpkg, root, count=2):
    """The ids of the ``count`` newest versions of ``root`` (oldest first): its pending versions settled,
    then the names of the store's ``versions/`` records. Not from ``versions list``, which also checks
    every version's trees and blobs (at 1,000,000 files it takes minutes: its own row)."""
    subprocess.run([docpkg, "versions", "settle", root], check=True)
    store = os.path.join(os.path.dirname(root), f".{os.path.basename(root)}.docpkg-versions", "versions")
    ids = sorted(int(name) for name in os.listdir(store) if name.isdigit()) if os.path.isdir(store) else []
    return ids[-count:]


def syscall_note(h, cmd, setup=None):
    """'N calls (S stat)' from one run of ``cmd`` under strace -f, or why not."""
    if setup is not None:
        setup()
    try:
        lines = h.syscalls(cmd, trace="all")
    except RuntimeError as error:
        return f"strace: {error}"
    calls = [line for line in lines if re.match(r"^\d+\s+\w+\(", line) or re.match(r"^\w+\(", line)]
    stats = [line for line in calls if re.search(r"\b(newfstatat|fstatat64|statx|lstat|stat|fstat)\(", line)]
    return f"{len(calls):,} calls ({len(stats):,} stat)"


class Side:
    """One package and what its operations need: the file they touch, a source, a counter."""

    def __init__(self, shape):
        self.files, self.folders, self.per_folder = shape
        self.root = package(*shape)
        middle = self.folders // 2
        self.folder = f"d{middle:04d}"
        self.entry = f"{self.folder}/f{self.per_folder // 2:04d}.txt"
        self.source = os.path.join(os.path.dirname(self.root), "source.txt")
        self.flips = 0
        self.extra = 0

    def new_source(self):
        """Changes the file a put copies in, so that every put changes the package."""
        self.flips += 1
        with open(self.source, "w") as out:
            out.write(f"edit {self.flips}\n")

    def new_extra(self):
        """Makes a file beside the others for rm to remove; returns its entry."""
        self.extra += 1
        with open(os.path.join(self.root, self.folder, "extra.txt"), "w") as out:
            out.write(f"extra {self.extra}\n")

    def make_copy(self):
        """``Copy.mydoc`` beside the package: hard links to its files, its middle file replaced. Made once
        (``copy-stamp``; at 1,000,000 files ``cp -al`` takes minutes): the rows that change the package
        change that same file, so the two still differ in it alone."""
        self.copy = os.path.join(os.path.dirname(self.root), "Copy.mydoc")
        stamp = os.path.join(os.path.dirname(self.root), "copy-stamp")
        if os.path.exists(stamp) and os.path.isdir(self.copy):
            return
        subprocess.run(["rm", "-rf", self.copy, stamp], check=True)
        subprocess.run(["cp", "-al", self.root, self.copy], check=True)
        changed = os.path.join(self.copy, self.entry)
        with open(changed + ".new", "w") as out:
            out.write("changed in the copy\n")
        os.replace(changed + ".new", changed)
        open(stamp, "w").close()

    @property
    def label(self):
        return f"{self.files:,} files"


def wanted(name):
    """Whether the row ``name`` is measured in this run (see ``DOCPKG_FLAT_ROWS`` above)."""
    words = [word.strip() for word in os.environ.get("DOCPKG_FLAT_ROWS", "").split(",") if word.strip()]
    return not words or any(word in name for word in words)


def measure(h, name, sides, command, setup=None, repeat=7, note=""):
    """One row: ``command(side)`` on both packages, alternating; the growth against ≤ 1.5×."""
    if not wanted(name):
        return
    small, large = sides
    runs = [(command(side), (lambda s=side: setup(s)) if setup else None) for side in sides]
    result_small, result_large = h.run_side_by_side(runs, repeat=repeat)
    calls = [syscall_note(h, command(side), (lambda s=side: setup(s)) if setup else None) for side in sides]
    text = f"{small.label}: {calls[0]}; {large.label}: {calls[1]}"
    h.row(f"{name} @ {large.label} vs {small.files:,}", result_large, small.label, result_small, target=TARGET,
          note=text + (f"; {note}" if note else ""))


def rows(h):
    """The rows of issue 40's one-file operations (see the module's comment)."""
    sides = [Side(shape) for shape in shapes(h.scale)]
    docpkg = h.docpkg
    editor = os.path.join(os.path.dirname(docpkg), "document-edit")
    saved = os.environ.get("DOCPKG_NO_BACKGROUND_SETTLE")
    os.environ["DOCPKG_NO_BACKGROUND_SETTLE"] = "1"  # the settle a put starts is measured as its own row
    try:
        measure(h, "cat of one file", sides, lambda s: [docpkg, "cat", s.root, s.entry])
        measure(h, "put of one file (--versions none)", sides,
                lambda s: [docpkg, "put", "--versions", "none", s.root, s.entry, s.source], Side.new_source)
        measure(h, "rm of one file (--versions none)", sides,
                lambda s: [docpkg, "rm", "--versions", "none", s.root, f"{s.folder}/extra.txt"], Side.new_extra)
        # Versions: the first put of each package makes its store, and its settle copies the whole
        # package once (untimed here); the rows then measure the steady state.
        adds_versions = wanted("put of one file (version kept") or wanted("versions settle after")
        for side in sides:
            if not adds_versions and len(newest_versions(docpkg, side.root)) == 2:
                continue
            for _ in range(2):
                side.new_source()
                subprocess.run([docpkg, "put", side.root, side.entry, side.source], check=True)
                subprocess.run([docpkg, "versions", "settle", side.root], check=True)
        measure(h, "put of one file (version kept, settle apart)", sides,
                lambda s: [docpkg, "put", s.root, s.entry, s.source], Side.new_source)

        def put_untimed(side):
            side.new_source()
            subprocess.run([docpkg, "put", side.root, side.entry, side.source], check=True)

        measure(h, "versions settle after a put of one file", sides,
                lambda s: [docpkg, "versions", "settle", s.root], put_untimed, repeat=3,
                note="3 runs: a settle walks the whole package")
        for side in sides:
            subprocess.run([docpkg, "versions", "settle", side.root], check=True)
            side.versions = newest_versions(docpkg, side.root)
        measure(h, "versions show of one file", sides,
                lambda s: [docpkg, "versions", "show", s.root, str(s.versions[-1]), s.entry])
        measure(h, "versions list", sides, lambda s: [docpkg, "versions", "list", s.root], repeat=1,
                note="1 run after the warm-up: at 1,000,000 files each takes minutes (every version's trees walked)")
        measure(h, "diff of two versions differing in one file", sides,
                lambda s: f"{docpkg} diff {s.root}@{s.versions[0]} {s.root}@{s.versions[1]} >/dev/null; "
                          "test $? -le 1")
        measure(h, "diff of the package and its newest version (one file differs)", sides,
                lambda s: f"{docpkg} diff {s.root}@{s.versions[1]} {s.root} >/dev/null; test $? -le 1")
        if wanted("diff of the package and a copy"):
            for side in sides:
                side.make_copy()
            measure(h, "diff of the package and a copy differing in one file", sides,
                    lambda s: f"{docpkg} diff {s.root} {s.copy} >/dev/null; test $? -le 1", repeat=3,
                    note="3 runs; the copy is `cp -al` with one file replaced: every entry of both is listed "
                         "and stat'ed (no record says what differs between two directories), no file is read")
        for label, flags in (("unwatched", []), ("watching", ["--watched"])):
            name = f"Document open, edit one file, save ({label})"
            if not wanted(name):
                continue
            if os.access(editor, os.X_OK):
                measure(h, name, sides, lambda s: [editor, s.root, s.entry, "document edit", *flags,
                                                   "--versions", "none"],
                        note=f"document-edit {' '.join(flags + ['--versions', 'none'])}, release build")
            else:
                h.row(name, None,
                      note=f"not measured: {editor} missing (swift build -c release --product document-edit)")
    finally:
        if saved is None:
            os.environ.pop("DOCPKG_NO_BACKGROUND_SETTLE", None)
        else:
            os.environ["DOCPKG_NO_BACKGROUND_SETTLE"] = saved
