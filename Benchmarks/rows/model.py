"""Rows for issue 2: the lazy package model (`docpkg cat`, `docpkg inspect --json`) on the `many` corpus."""

import os

from corpora import middle_file_of_many

DIRECTORY_FLAG = "O_DIRECTORY"


def directories_listed(lines):
    """Return the paths of the directories read with `getdents64` in strace ``lines`` (descriptors followed
    from the `openat` that returned them), in the order first read."""
    paths, listed = {}, []
    for line in lines:
        if "openat(" in line and DIRECTORY_FLAG in line and "= -1" not in line:
            start = line.find('"')
            end = line.find('"', start + 1)
            paths[line.rsplit("=", 1)[-1].strip()] = line[start + 1:end]
        elif "getdents64(" in line:
            fd = line.split("getdents64(", 1)[1].split(",", 1)[0].strip()
            path = paths.get(fd, f"fd {fd}")
            if path not in listed:
                listed.append(path)
    return listed


def directory_opens(lines):
    """Return the paths of the `openat` calls in strace ``lines`` that opened a directory."""
    opened = []
    for line in lines:
        if "openat(" in line and DIRECTORY_FLAG in line and "= -1" not in line:
            start = line.find('"')
            end = line.find('"', start + 1)
            opened.append(line[start + 1:end] if start >= 0 and end > start else line.strip())
    return opened


def rows(h):
    """Report on `many`: cat one child (≤ 10 ms) and start-up (≤ 8 ms), directories cat lists (≤ 2), inspect --json."""
    many = h.corpus("many")
    child = middle_file_of_many(many)

    cat_ours = h.run([h.docpkg, "cat", many, child], repeat=10)
    cat_peer = h.run(["cat", os.path.join(many, child)], repeat=10)
    h.row("open many + read one child", cat_ours, "cat", cat_peer, limit_s=0.010,
          note=f"`docpkg cat MANY {child}`, process start included; absolute limit 10 ms (issue 14 row 7), cat for context")
    startup = h.run([h.docpkg, "--version"], repeat=20)
    h.row("docpkg start-up (--version)", startup, "cat", cat_peer, limit_s=0.008,
          note="the process start-up that every docpkg command pays (dynamic loading: issue 14 row 7, limit 8 ms)")

    try:
        trace = h.syscalls([h.docpkg, "cat", many, child], trace="openat,getdents64")
        opened = [path.replace(many, "MANY", 1) for path in directory_opens(trace)]
        listed = [path.replace(many, "MANY", 1) for path in directories_listed(trace)]
        h.row("cat many: directories listed", len(listed), limit=2,
              note=f"strace getdents64: {', '.join(listed) or 'none'}; openat O_DIRECTORY: {', '.join(opened)} "
                   "(the read lock opens the root without listing it); at most the directories on the path "
                   "(root, the one dir)")
    except RuntimeError as error:
        h.row("cat many: directories listed", None, note=f"not measured: {error}")

    inspect = h.run(f"'{h.docpkg}' inspect --json '{many}' > /dev/null", repeat=5)
    find = h.run(f"find '{many}' -printf '%s\\n' > /dev/null", repeat=5)
    h.row("inspect --json many", inspect, "find -printf", find, target=2.0, rss_limit_mb=100,
          note="`docpkg inspect --json MANY` vs `find MANY -printf '%s\\n'`, both to /dev/null")
