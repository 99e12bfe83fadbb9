"""Issue 14's plot: how a 1-file save, `inspect` and open + read one child grow with the file count.

Packages of 1,000, 10,000 and 100,000 files (and 1,000,000 at `--scale 1` only: it takes minutes
and about 8 GB of disk) are generated here, 100 files of 100 bytes per directory, and each is
measured against the peer doing the same work with plain tools:

* a save that changes one file (`docpkg put`, default version keeping) vs `cp -al` of the tree;
* `docpkg inspect` (the whole tree, with totals) vs `find`, and vs `find -ls`, which like `inspect` reads each
  entry's status (`find` alone reads only the directories, so it makes no `lstat` per file);
* `docpkg cat` of one file vs `cat`.

Each measurement is a row (info, no target), and `Benchmarks/scaling.svg` plots all of them on
log-log axes (written with plain Python: no plotting library needed). Flat lines for `cat` and the
save, and a slope of one for `inspect` and `find`, are what a framework that does not slow down with
the file count looks like.
"""

import math
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SVG = os.path.join(HERE, "scaling.svg")
FILES_PER_DIRECTORY = 100
RECIPE = "scaling v1: 100 files of 100 bytes per directory dNNNNN/fNNN.txt"


def counts(scale):
    """The file counts measured: 1k, 10k, 100k, and 1M at full scale only."""
    base = [1_000, 10_000, 100_000]
    return base + [1_000_000] if scale >= 1 else base


def package(count):
    """A package of ``count`` files under Benchmarks/work/scaling/N/Pkg.mydoc, made once (stamped)."""
    folder = os.path.join(HERE, "work", "scaling", str(count))
    root = os.path.join(folder, "Pkg.mydoc")
    stamp = os.path.join(folder, "stamp")
    if os.path.exists(stamp) and open(stamp).read() == RECIPE:
        return root
    if os.path.lexists(folder):
        shutil.rmtree(folder)
    os.makedirs(root)
    for number in range(count):
        directory = os.path.join(root, f"d{number // FILES_PER_DIRECTORY:05d}")
        if number % FILES_PER_DIRECTORY == 0:
            os.mkdir(directory)
        with open(os.path.join(directory, f"f{number % FILES_PER_DIRECTORY:03d}.txt"), "wb") as f:
            f.write((f"file {number} " * 10).encode()[:100])
    with open(stamp, "w") as f:
        f.write(RECIPE)
    return root


def measure(h, count):
    """The six measurements for one package: {(series): Result}."""
    root = package(count)
    folder = os.path.dirname(root)
    middle = count // 2
    child = f"d{middle // FILES_PER_DIRECTORY:05d}/f{middle % FILES_PER_DIRECTORY:03d}.txt"
    source = os.path.join(folder, "source.txt")
    flip = [0]

    def new_source():  # each save changes the file
        flip[0] += 1
        with open(source, "w") as f:
            f.write(f"edit {flip[0]}\n")

    copy = os.path.join(folder, "copy")

    def no_copy():
        if os.path.lexists(copy):
            shutil.rmtree(copy)

    results = {}
    results["save (docpkg put)"] = h.run([h.docpkg, "put", root, "d00000/f000.txt", source], setup=new_source)
    results["cp -al"] = h.run(["cp", "-al", root, copy], setup=no_copy)
    no_copy()
    results["docpkg inspect"] = h.run([h.docpkg, "inspect", root])
    results["find"] = h.run(["find", root])
    results["find -ls"] = h.run(["find", root, "-ls"])
    results["docpkg cat"] = h.run([h.docpkg, "cat", root, child], repeat=5)
    results["cat"] = h.run(["cat", os.path.join(root, child)], repeat=5)
    return results


SERIES = [  # (name, colour, dash pattern): ours solid, the peers dashed or dotted in the same colour
    ("save (docpkg put)", "#1f77b4", ""),
    ("cp -al", "#1f77b4", "6 4"),
    ("docpkg inspect", "#d62728", ""),
    ("find", "#d62728", "6 4"),
    ("find -ls", "#d62728", "2 3"),
    ("docpkg cat", "#2ca02c", ""),
    ("cat", "#2ca02c", "6 4"),
]


def write_svg(points, path, title):
    """A log-log line chart of ``points`` {series: [(count, seconds)]} as an SVG file."""
    width, height, left, right, top, bottom = 760, 460, 70, 200, 40, 50
    xs = [c for values in points.values() for c, _ in values]
    ys = [s * 1000 for values in points.values() for _, s in values if s > 0]
    if not xs or not ys:
        return
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    if x1 == x0:
        x1 = x0 + 1
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if y1 == y0:
        y1 = y0 + 1

    def px(count):
        return left + (math.log10(count) - x0) / (x1 - x0) * (width - left - right)

    def py(ms):
        return top + (y1 - math.log10(ms)) / (y1 - y0) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14" font-weight="bold">{title}</text>']
    for exponent in range(y0, y1 + 1):
        y = py(10 ** exponent)
        label = f"{10 ** exponent:g} ms" if exponent < 3 else f"{10 ** (exponent - 3):g} s"
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for count in sorted(set(xs)):
        x = px(count)
        label = f"{count // 1_000_000}M" if count >= 1_000_000 else f"{count // 1000}k"
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{height - bottom + 18}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 10}" text-anchor="middle">'
               f'files in the package (log scale)</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
               f'fill="none" stroke="#888"/>')
    for index, (name, colour, dashed) in enumerate(SERIES):
        values = sorted((c, s * 1000) for c, s in points.get(name, []) if s > 0)
        if not values:
            continue
        dash = f' stroke-dasharray="{dashed}"' if dashed else ""
        line = " ".join(f"{px(c):.1f},{py(ms):.1f}" for c, ms in values)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for c, ms in values:
            out.append(f'<circle cx="{px(c):.1f}" cy="{py(ms):.1f}" r="3" fill="{colour}"/>')
        y = top + 10 + index * 22
        out.append(f'<line x1="{width - right + 12}" y1="{y}" x2="{width - right + 42}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{width - right + 48}" y="{y + 4}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def rows(h):
    """One row per measurement and file count, then Benchmarks/scaling.svg."""
    points = {name: [] for name, _, _ in SERIES}
    for count in counts(h.scale):
        results = measure(h, count)
        pairs = (("save (docpkg put)", "cp -al"), ("docpkg inspect", "find"), ("docpkg inspect", "find -ls"),
                 ("docpkg cat", "cat"))
        for ours, peer in pairs:
            label = f"{ours} @ {count:,} files" + (" (vs find -ls)" if peer == "find -ls" else "")
            h.row(label, results[ours], peer, results[peer],
                  note="plotted in Benchmarks/scaling.svg")
            for name in (ours, peer):
                if results[name].ok and (count, results[name].wall) not in points[name]:
                    points[name].append((count, results[name].wall))
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    write_svg(points, SVG, f"Time against file count (median wall; load average {load} at the end)")
    h.log(f"    wrote {SVG}")
