"""Rows for issue 4: the version store's space and the cost of keeping versions on save.

The corpora stay pristine: every save goes into a scratch copy made with `cp -a`.
"""

import os
import subprocess


def kib(*paths):
    """Disk usage in KiB of `paths` together: `du` counts each hard-linked inode once."""
    out = subprocess.run(["du", "-sk", "--total", *paths], capture_output=True, text=True, check=True).stdout
    return int(out.strip().splitlines()[-1].split()[0])


def rows(h):
    """typical: 10 versions differing by one file each cost ≤ 1.1× one copy; many: save time with
    the default policy (keep last 10) vs without versions, for context."""
    typical = h.corpus("typical")
    work = h.scratch("versions")
    copy = os.path.join(work, "Typical.pkg")
    subprocess.run(["cp", "-a", typical, copy], check=True)
    pages = sorted(os.listdir(os.path.join(typical, "Pages")))
    for turn in range(11):  # 11 saves: the store keeps the 10 states they replaced
        page = pages[turn % len(pages)]
        subprocess.run([h.docpkg, "put", copy, f"Pages/{page}/text.txt"],
                       input=(f"edit {turn}\n" * 200).encode(), check=True)
    store = os.path.join(work, ".Typical.pkg.docpkg-versions")
    listed = subprocess.run([h.docpkg, "versions", "list", copy, "--json"], capture_output=True, text=True,
                            check=True).stdout.count('"id"')
    together = kib(copy, store)
    one = kib(typical)
    h.row("versions typical: package + 10 versions, disk", together, "one copy (KiB)", one, target=1.1,
          note=f"`du -sk PACKAGE STORE` (hard links counted once) after 11 puts of one page each; {listed} versions "
               f"listed; store alone (its own blobs, trees, records) {kib(store)} KiB counted separately")

    many = h.corpus("many")
    many_copy = os.path.join(work, "Many.pkg")
    subprocess.run(["cp", "-a", many, many_copy], check=True)
    folder = sorted(d for d in os.listdir(many) if os.path.isdir(os.path.join(many, d)))[500]
    entry = f"{folder}/{sorted(os.listdir(os.path.join(many, folder)))[50]}"
    source = os.path.join(work, "source.txt")
    turn = [0]

    def next_contents():
        turn[0] += 1
        with open(source, "wb") as f:
            f.write((f"version {turn[0]}\n" * 100).encode())

    next_contents()
    subprocess.run([h.docpkg, "put", many_copy, entry, source], check=True)  # first version: hashes everything
    kept = h.run([h.docpkg, "put", many_copy, entry, source], setup=next_contents, repeat=3)
    plain = h.run([h.docpkg, "put", "--versions", "none", many_copy, entry, source], setup=next_contents, repeat=3)
    h.row("versions many: save keeping the previous state", kept, "put --versions none", plain,
          note="keeping a version walks the previous state (100k lstat + linkat, hashes cached by inode) and "
               "writes its tree objects; info only")
    subprocess.run(["rm", "-rf", copy, store, many_copy, os.path.join(work, ".Many.pkg.docpkg-versions")])
