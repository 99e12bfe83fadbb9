"""Issue 14's and issue 40's plot: how each one-file operation, `diff` and `inspect` grow with the file count.

The packages are those of ``flat.py`` (files of 60-odd bytes, 1,000 per folder): 1,000 files (10 × 100),
10,000 (10 × 1,000), 100,000 (100 × 1,000) and, at ``--scale 1`` only, 1,000,000 (1,000 × 1,000; it
takes minutes to make and about 4.5 GB of disk, plus its version store). Each operation touches one file
in the middle of the package and is measured against a peer doing the same with plain tools, the two
taking turns (``run_side_by_side``), median of 3 after a warm-up (one run after it at 1,000,000 files); once as the machine is, and once with
one core kept busy by a spin loop (``archive.BusyCores``):

* ``docpkg cat`` of one file vs ``cat``;
* ``docpkg put --versions none`` of one file vs ``cp`` of the same source over it;
* ``docpkg rm --versions none`` of one file vs ``rm`` (a file made beside the others first, untimed);
* ``docpkg versions show PKG ID ENTRY`` of one file of the newest version vs ``cat`` of the file;
* a ``Document``'s open, edit of one file, save and close (``document-edit --versions none``,
  unwatched) vs ``cp``;
* ``docpkg diff`` of the package and a ``cp -al`` copy of it in which one file was replaced, and of the
  package's two newest versions (which differ in one file), vs ``diff -rq`` of the package and the copy;
* ``docpkg inspect`` (the whole tree, with totals) vs ``find -ls``, which also reads each entry's status.

Each measurement is a row (info, no target), and `Benchmarks/scaling.svg` draws them: a panel of wall
time, one of CPU time (user + system: on a shared machine the steadier figure) and one of peak RSS per operation, log-log, ours solid and the peer dashed, as the machine is in a
dark colour and with one core busy in a light one (written with plain Python: no plotting library
needed). Flat lines for the one-file operations, and a slope of one for `inspect`, `diff` of two
directories and their peers, are what a framework that does not slow down with the file count looks like.
``DOCPKG_SCALING_COUNTS=1000,10000`` measures only those counts, and ``DOCPKG_SCALING_SKIP=PKG COPY``
leaves out the measurements whose label holds one of those words; the points are kept in
``Benchmarks/work/scaling-points.json`` (git-ignored), so that counts measured in separate runs (the 1M
package takes long) are drawn together: a count measured again replaces its points.
"""

import importlib.util
import json
import math
import os
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SVG = os.path.join(HERE, "scaling.svg")
POINTS = os.path.join(HERE, "work", "scaling-points.json")
REPEAT = 3
KINDS = ("time", "cpu", "rss")  # median wall time, median CPU time (user + system), peak RSS


def _sibling(name):
    """The row file ``name.py`` beside this one, as a module (the harness loads row files by path)."""
    spec = importlib.util.spec_from_file_location(f"bench_rows_scaling_{name}",
                                                  os.path.join(os.path.dirname(__file__), f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


flat = _sibling("flat")
archive = _sibling("archive")


def shapes(scale):
    """(files, folders, files per folder) of each package measured: 1k, 10k, 100k, and 1M at full scale."""
    chosen = [int(c) for c in os.environ.get("DOCPKG_SCALING_COUNTS", "").split(",") if c.strip()]
    base = [(1_000, 10, 100), (10_000, 10, 1_000), (100_000, 100, 1_000)]
    if scale >= 1:
        base.append((1_000_000, 1_000, 1_000))
    return [shape for shape in base if not chosen or shape[0] in chosen]


# (operation, colour): each is one panel pair; ours solid, the peer dashed.
OPERATIONS = [
    ("cat", "#2ca02c"),
    ("put", "#1f77b4"),
    ("rm", "#9467bd"),
    ("versions show", "#8c564b"),
    ("Document open-edit-save", "#e377c2"),
    ("diff", "#ff7f0e"),
    ("inspect", "#d62728"),
]
CONDITIONS = [("as is", 0, 1.0), ("1 core busy", 1, 0.45)]  # (label, spin loops, colour opacity)


def prepare(h, side):
    """Two settled versions in ``side``'s store (see flat.py) and the ``cp -al`` copy for diff."""
    docpkg = h.docpkg
    if len(flat.newest_versions(docpkg, side.root)) < 2:
        for _ in range(2):
            side.new_source()
            subprocess.run([docpkg, "put", side.root, side.entry, side.source], check=True)
            subprocess.run([docpkg, "versions", "settle", side.root], check=True)
    side.versions = flat.newest_versions(docpkg, side.root)
    side.make_copy()


def measure(h, side, editor):
    """{operation: [(label, ours Result, peer name, peer Result)]} for one package, as the machine is."""
    docpkg = h.docpkg
    target = os.path.join(side.root, side.entry)
    extra = os.path.join(side.root, side.folder, "extra.txt")
    pairs = {
        "cat": [("docpkg cat", [docpkg, "cat", side.root, side.entry], None, "cat", ["cat", target], None)],
        "put": [("docpkg put --versions none", [docpkg, "put", "--versions", "none", side.root, side.entry,
                                                side.source], side.new_source,
                 "cp", ["cp", side.source, target], side.new_source)],
        "rm": [("docpkg rm --versions none", [docpkg, "rm", "--versions", "none", side.root,
                                              f"{side.folder}/extra.txt"], side.new_extra,
                "rm", ["rm", extra], side.new_extra)],
        "versions show": [("docpkg versions show", [docpkg, "versions", "show", side.root, str(side.versions[-1]),
                                                    side.entry], None, "cat", ["cat", target], None)],
        "diff": [("docpkg diff PKG COPY", f"{docpkg} diff {side.root} {side.copy} >/dev/null; test $? -le 1", None,
                  "diff -rq", f"diff -rq {side.root} {side.copy} >/dev/null; test $? -le 1", None),
                 ("docpkg diff PKG@A PKG@B",
                  f"{docpkg} diff {side.root}@{side.versions[0]} {side.root}@{side.versions[1]} >/dev/null; "
                  "test $? -le 1", None, None, None, None)],
        "inspect": [("docpkg inspect", [docpkg, "inspect", side.root], None, "find -ls",
                     f"find {side.root} -ls >/dev/null", None)],
    }
    if os.access(editor, os.X_OK):
        pairs["Document open-edit-save"] = [
            ("document-edit --versions none", [editor, side.root, side.entry, "scaling", "--versions", "none"],
             None, "cp", ["cp", side.source, target], side.new_source)]
    results = {}
    skipped = [word.strip() for word in os.environ.get("DOCPKG_SCALING_SKIP", "").split(",") if word.strip()]
    for operation, entries in pairs.items():
        for label, ours, ours_setup, peer_name, peer, peer_setup in entries:
            if any(word in label for word in skipped):
                continue
            runs = [(ours, ours_setup)] + ([(peer, peer_setup)] if peer is not None else [])
            measured = h.run_side_by_side(runs, repeat=repeat_at(side.files))
            results.setdefault(operation, []).append(
                (label, measured[0], peer_name, measured[1] if peer is not None else None))
    return results


def repeat_at(files):
    """Timed runs per measurement: 3, and 1 at 1,000,000 files (its walks of the whole package take minutes)."""
    return REPEAT if files < 1_000_000 else 1


def load_average():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def rows(h):
    """One row per operation, file count and condition, then Benchmarks/scaling.svg."""
    editor = os.path.join(os.path.dirname(h.docpkg), "document-edit")
    saved = os.environ.get("DOCPKG_NO_BACKGROUND_SETTLE")
    os.environ["DOCPKG_NO_BACKGROUND_SETTLE"] = "1"
    points = {}  # (operation, series label, condition) -> {kind: [(count, seconds or MiB)]} for each of KINDS
    loads = []
    try:
        for shape in shapes(h.scale):
            side = flat.Side(shape)
            prepare(h, side)
            for condition, spins, _ in CONDITIONS:
                before = load_average()
                with archive.BusyCores(spins):
                    results = measure(h, side, editor)
                after = load_average()
                loads += [float(before), float(after)]
                for operation, entries in results.items():
                    for label, ours, peer_name, peer in entries:
                        h.row(f"{label} @ {side.files:,} files ({condition})", ours, peer_name, peer,
                              note=f"load average {before} before, {after} after; plotted in Benchmarks/scaling.svg")
                        for series, result in ((label, ours), (peer_name, peer)):
                            if result is None or not getattr(result, "ok", False):
                                continue
                            key = (operation, series, condition)
                            point = points.setdefault(key, {kind: [] for kind in KINDS})
                            if all(c != side.files for c, _ in point["time"]):
                                point["time"].append((side.files, result.wall))
                                point["cpu"].append((side.files, result.cpu))
                                point["rss"].append((side.files, result.rss_mb))
    finally:
        if saved is None:
            os.environ.pop("DOCPKG_NO_BACKGROUND_SETTLE", None)
        else:
            os.environ["DOCPKG_NO_BACKGROUND_SETTLE"] = saved
    if loads:
        points, loads = merged(points, loads)
        title = (f"One-file operations, diff and inspect against the file count (median of {REPEAT}, 1 run at 1M; "
                 f"load average {min(loads):g}–{max(loads):g} on 2 cores)")
        write_svg(points, SVG, title)
        h.log(f"    wrote {SVG}")


def merged(points, loads):
    """This run's points and loads with those kept from earlier runs for the counts it did not measure."""
    measured = {c for value in points.values() for c, _ in value["time"]}
    kept = {"points": [], "loads": {}}
    if os.path.exists(POINTS):
        with open(POINTS) as f:
            kept = json.load(f)
    combined = {}
    for op, series, condition, kind, count, value in kept["points"]:
        if count not in measured:
            combined.setdefault((op, series, condition), {k: [] for k in KINDS})[kind].append((count, value))
    for key, value in points.items():
        for kind in KINDS:
            combined.setdefault(key, {k: [] for k in KINDS})[kind].extend(value[kind])
    load_of = {int(c): l for c, l in kept["loads"].items() if int(c) not in measured}
    for count in measured:
        load_of[count] = loads
    with open(POINTS, "w") as f:
        json.dump({"points": [[*key, kind, c, v] for key, value in combined.items() for kind in KINDS
                              for c, v in value[kind]],
                   "loads": {str(c): l for c, l in load_of.items()}}, f)
    return combined, [l for ls in load_of.values() for l in ls]


PANEL_W, PANEL_H, LEFT, GAP, TOP, LEGEND = 330, 170, 64, 40, 54, 250


def _axis(values, floor):
    low = min(v for v in values if v > 0) if any(v > 0 for v in values) else floor
    high = max(values) if values else floor
    y0, y1 = math.floor(math.log10(max(low, floor))), math.ceil(math.log10(max(high, floor)))
    return (y0, y1 if y1 > y0 else y0 + 1)


def _panel(out, x, y, points, operation, kind, counts):
    """One log-log panel at (x, y): ``kind`` is "time" or "cpu" (ms), or "rss" (MiB)."""
    scale = 1 if kind == "rss" else 1000
    series = [(key, value[kind]) for key, value in points.items() if key[0] == operation]
    values = [v * scale for _, vs in series for _, v in vs if v == v and v > 0]
    if not values:
        return
    y0, y1 = _axis(values, 1 if kind == "rss" else 0.1)
    x0, x1 = math.log10(min(counts)), math.log10(max(counts))
    x1 = x1 if x1 > x0 else x0 + 1

    def px(count):
        return x + (math.log10(count) - x0) / (x1 - x0) * PANEL_W

    def py(v):
        return y + (y1 - math.log10(v)) / (y1 - y0) * PANEL_H

    heading = f"{operation}: " + {"time": "wall time", "cpu": "CPU time (user + system)", "rss": "peak RSS"}[kind]
    out.append(f'<text x="{x}" y="{y - 8}" font-weight="bold">{heading}</text>')
    for exponent in range(y0, y1 + 1):
        v = 10 ** exponent
        if kind != "rss":
            label = f"{v:g} ms" if exponent < 3 else f"{v / 1000:g} s"
        else:
            label = f"{v:g} MiB"
        out.append(f'<line x1="{x}" y1="{py(v):.1f}" x2="{x + PANEL_W}" y2="{py(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x - 5}" y="{py(v) + 4:.1f}" text-anchor="end" font-size="10">{label}</text>')
    for count in counts:
        label = f"{count // 1_000_000}M" if count >= 1_000_000 else f"{count // 1000}k"
        out.append(f'<line x1="{px(count):.1f}" y1="{y}" x2="{px(count):.1f}" y2="{y + PANEL_H}" stroke="#eee"/>')
        out.append(f'<text x="{px(count):.1f}" y="{y + PANEL_H + 14}" text-anchor="middle" font-size="10">'
                   f'{label}</text>')
    out.append(f'<rect x="{x}" y="{y}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#888"/>')
    colour = dict(OPERATIONS)[operation]
    for (op, name, condition), values_of in series:
        values_of = sorted((c, v * scale) for c, v in values_of if v == v and v > 0)
        if not values_of:
            continue
        opacity = dict((label, o) for label, _, o in CONDITIONS)[condition]
        dash = {"solid": "", "dashed": ' stroke-dasharray="6 4"', "dotted": ' stroke-dasharray="2 3"'}[_style(name)]
        line = " ".join(f"{px(c):.1f},{py(v):.1f}" for c, v in values_of)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-opacity="{opacity}" '
                   f'stroke-width="2"{dash}/>')
        for c, v in values_of:
            out.append(f'<circle cx="{px(c):.1f}" cy="{py(v):.1f}" r="2.5" fill="{colour}" fill-opacity="{opacity}"/>')


def _style(name):
    """How a series is drawn: ours solid (the diff of two versions dotted), the peer dashed."""
    if name == "docpkg diff PKG@A PKG@B":
        return "dotted"
    return "solid" if name.startswith("docpkg") or name.startswith("document") else "dashed"


def write_svg(points, path, title):
    """The panels of ``points`` as an SVG file: per operation a row of (wall, CPU, peak RSS), legend at the right."""
    counts = sorted({c for value in points.values() for c, _ in value["time"]})
    if not counts:
        return
    operations = [op for op, _ in OPERATIONS if any(key[0] == op for key in points)]
    width = LEFT + 3 * PANEL_W + 2 * (GAP + LEFT) + LEGEND
    height = TOP + len(operations) * (PANEL_H + 50) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{title}</text>',
           f'<text x="{LEFT}" y="40" font-size="11">files in the package (log scale) across; '
           f'ours solid (a second of ours dotted), the peer dashed; as the machine is dark, '
           f'one core busy light</text>']
    for index, operation in enumerate(operations):
        y = TOP + 20 + index * (PANEL_H + 50)
        for column, kind in enumerate(KINDS):
            _panel(out, LEFT + column * (PANEL_W + GAP + LEFT), y, points, operation, kind, counts)
        legend_x = LEFT + 3 * PANEL_W + 2 * (GAP + LEFT) + 20
        names = []
        for key in points:
            if key[0] == operation and key[1] not in names:
                names.append(key[1])
        for line, name in enumerate(names):
            mark = _style(name)
            out.append(f'<text x="{legend_x}" y="{y + 14 + line * 16}" font-size="11" '
                       f'fill="{dict(OPERATIONS)[operation]}">{name} ({mark})</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
