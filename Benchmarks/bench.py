#!/usr/bin/env python3
"""DocumentPackage benchmark harness (Python 3 standard library only).

Runs the row files ``Benchmarks/rows/<area>.py``; each defines ``rows(h)`` and reports rows
through the harness object ``h`` (see ``Harness``). Prints an aligned table, a summary, and
writes the table with the machine description to ``Benchmarks/RESULTS.md``. Benchmarks
inform, they do not gate: the exit status is 0 even when rows fail (it is 1 only when the
harness itself cannot run, e.g. the release build fails).

Usage::

    python3 Benchmarks/bench.py [--only AREA ...] [--scale S] [--repeat N] [--docpkg PATH]
                                [--note TEXT] [--results PATH] [--all-corpora]

How things are measured (see also Benchmarks/README.md):

* Wall time: ``time.perf_counter()`` around spawning the command and reaping it with
  ``os.wait4`` (so process start-up is included). One untimed warm-up run, then ``repeat``
  timed runs; the row reports the median.
* Peak RSS: ``ru_maxrss`` (KiB on Linux) of the ``rusage`` that ``os.wait4`` returns for the
  child. Linux fills it with the child's own peak and the peak of every descendant it
  waited for (RUSAGE_BOTH), so for a shell string (run as ``/bin/sh -c``) it is the largest
  peak of the shell and the processes it ran. It is a maximum, not a sum: two processes of a
  pipeline running at once count as the larger one.
  Caveat: a child started by (v)fork + exec from this Python process inherits the parent's
  peak as its own starting ``maxrss`` (the kernel's exec_mmap/dup_mm keep the old mm's
  high-water mark), so wait4 alone has a floor of about the harness's RSS (~20 MB). Hence the
  untimed warm-up runs under GNU ``/usr/bin/time -f %M`` when it is installed: its child is
  forked from that 1 MB process, so the floor drops to ~1 MB. The row reports that value
  (``Result.rss_mb``); the wait4 maximum over the timed runs is kept as
  ``Result.rss_wait4_mb`` and is the fallback without GNU time. Both floors (``/bin/true``)
  are recorded in the results.
"""

import argparse
import datetime
import importlib.util
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import corpora  # noqa: E402  (needs HERE on sys.path)

WORK = os.path.join(HERE, "work")
ROWS_DIR = os.path.join(HERE, "rows")


# --------------------------------------------------------------------------- results


class Result:
    """The outcome of ``Harness.run``: median wall time (s), peak RSS (MiB) and the raw samples.

    ``cpu`` is the median user + system CPU time (s) of the child tree (from wait4): less
    sensitive than wall time to other work on a shared machine. ``rss_mb`` is GNU time's peak
    of the warm-up run when /usr/bin/time exists, else the wait4 maximum over the timed runs
    (``rss_wait4_mb``, floored at the harness's RSS).

    ``error`` is a one-line message when the command failed (then ``wall`` is NaN); a row
    given a failed result is reported as ERROR instead of a fake timing.
    """

    def __init__(self, walls=(), rss_mb=float("nan"), error=None, command="", rss_wait4_mb=float("nan"), cpus=()):
        self.walls = list(walls)
        self.wall = statistics.median(self.walls) if self.walls else float("nan")
        self.cpus = list(cpus)
        self.cpu = statistics.median(self.cpus) if self.cpus else float("nan")
        self.rss_mb = rss_mb
        self.rss_wait4_mb = rss_wait4_mb
        self.error = error
        self.command = command

    @property
    def ok(self):
        """True when every repetition exited with status 0."""
        return self.error is None

    def __repr__(self):
        if not self.ok:
            return f"Result(error={self.error!r})"
        return f"Result(wall={self.wall:.6f}s, cpu={self.cpu:.6f}s, rss_mb={self.rss_mb:.1f}, walls={self.walls})"


class Row:
    """One reported row: the values, the checks asked for, and the verdict."""

    def __init__(self, area, name, ours, peer_name, peer, target, rss_limit_mb, limit_s, limit, note):
        self.area, self.name, self.note = area, name, note
        self.ours, self.peer_name, self.peer = ours, peer_name, peer
        self.target, self.rss_limit_mb, self.limit_s, self.limit = target, rss_limit_mb, limit_s, limit
        self.ratio = None
        self.failures = []
        self.status = self._judge()

    def _judge(self):
        """Return PASS, FAIL, ERROR or info (no check asked for), collecting failure reasons."""
        for label, value in (("ours", self.ours), (self.peer_name or "peer", self.peer)):
            if isinstance(value, Result) and not value.ok:
                self.failures.append(f"{label}: {value.error}")
        if self.failures:
            return "ERROR"
        ours, peer = _value(self.ours), _value(self.peer)
        if ours is not None and peer:
            self.ratio = ours / peer
        checks = 0
        if self.target is not None and self.ratio is not None:
            checks += 1
            if self.ratio > self.target:
                self.failures.append(f"ratio {self.ratio:.2f} > {self.target:g}")
        if self.limit_s is not None:
            checks += 1
            if ours is None or ours > self.limit_s:
                self.failures.append(f"{_fmt_value(self.ours)} > {_fmt_seconds(self.limit_s)}")
        if self.limit is not None:
            checks += 1
            if ours is None or ours > self.limit:
                self.failures.append(f"{_fmt_value(self.ours)} > {self.limit:g}")
        if self.rss_limit_mb is not None:
            checks += 1
            rss = self.ours.rss_mb if isinstance(self.ours, Result) else None
            if rss is None or not rss <= self.rss_limit_mb:
                self.failures.append(f"RSS {_fmt_mb(rss)} > {self.rss_limit_mb:g} MB")
        if not checks:
            return "info"
        return "FAIL" if self.failures else "PASS"

    def cpu_note(self):
        """Return 'CPU ours vs peer (ratio)' from the Results' user+system time, or ''."""
        if not (isinstance(self.ours, Result) and self.ours.ok and self.ours.cpus):
            return ""
        text = f"CPU {_fmt_seconds(self.ours.cpu)}"
        if isinstance(self.peer, Result) and self.peer.ok and self.peer.cpus:
            text += f" vs {_fmt_seconds(self.peer.cpu)}"
            if self.peer.cpu > 0:
                text += f" (ratio {self.ours.cpu / self.peer.cpu:.2f})"
        return text

    def cells(self):
        """Return the table cells: name, ours, peer name, peer, ratio, target, RSS, status."""
        targets = []
        if self.target is not None:
            targets.append(f"≤{self.target:g}×")
        if self.limit_s is not None:
            targets.append(f"≤{_fmt_seconds(self.limit_s)}")
        if self.limit is not None:
            targets.append(f"≤{self.limit:g}")
        rss = self.ours.rss_mb if isinstance(self.ours, Result) and self.ours.ok else None
        rss_cell = _fmt_mb(rss) if rss is not None else "-"
        if self.rss_limit_mb is not None:
            rss_cell += f" (≤{self.rss_limit_mb:g})"
        return [
            self.name,
            _fmt_value(self.ours),
            self.peer_name or "-",
            _fmt_value(self.peer) if self.peer is not None else "-",
            f"{self.ratio:.2f}" if self.ratio is not None else "-",
            " ".join(targets) or "-",
            rss_cell,
            self.status,
        ]


def _value(x):
    """Return the number a row compares: a Result's median wall, or a plain number; None if absent."""
    if isinstance(x, Result):
        return x.wall if x.ok else None
    if isinstance(x, (int, float)):
        return x
    return None


def _fmt_seconds(s):
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "-"
    if s < 1:
        return f"{s * 1000:.1f} ms"
    return f"{s:.2f} s"


def _fmt_mb(mb):
    return "-" if mb is None or math.isnan(mb) else f"{mb:.1f} MB"


def _fmt_value(x):
    if isinstance(x, Result):
        return _fmt_seconds(x.wall) if x.ok else "ERROR"
    if isinstance(x, float):
        return f"{x:g}"
    return "-" if x is None else str(x)


HEADERS = ["row", "ours", "peer", "peer time", "ratio", "target", "peak RSS", "result"]


# --------------------------------------------------------------------------- harness


class Harness:
    """What a row file's ``rows(h)`` receives.

    Attributes and methods (the interface of the common brief, plus the documented extras
    ``limit_s``/``limit`` in ``row`` and ``syscalls``):

    * ``docpkg``: path of the release ``docpkg`` binary.
    * ``scale``: the corpus scale of this run (1.0 = the sizes of issue 2).
    * ``corpus(name)``: path of a corpus ('typical', 'many', 'big'); treat it as read-only.
    * ``scratch(label)``: a fresh empty directory under ``Benchmarks/work/scratch/``.
    * ``run(cmd, setup=None, repeat=3, cwd=None)``: a ``Result``.
    * ``run_side_by_side([(cmd, setup), ...], repeat=3, cwd=None)``: one ``Result`` each, runs alternating.
    * ``row(...)``: report a row.
    * ``syscalls(cmd, trace)``: the ``strace -f`` lines of one run of ``cmd``.
    """

    def __init__(self, docpkg, scale=1.0, repeat=None, log=print):
        self.docpkg = docpkg
        self.scale = scale
        self.repeat_override = repeat
        self.rows = []
        self.area = ""
        self.log = log
        self.corpus_dir = os.path.join(WORK, "corpora")

    def corpus(self, name):
        """Return the path of corpus ``name`` at this run's scale, generating it on first use.

        - Throws: ``ValueError`` for an unknown name.
        """
        return corpora.ensure(self.corpus_dir, name, self.scale, log=self.log)

    def scratch(self, label):
        """Return a fresh empty directory ``Benchmarks/work/scratch/<label>`` (emptied if it existed)."""
        path = os.path.join(WORK, "scratch", label)
        if os.path.lexists(path):
            shutil.rmtree(path)
        os.makedirs(path)
        return path

    def run(self, cmd, setup=None, repeat=3, cwd=None):
        """Run ``cmd`` once untimed (under GNU time, for RSS), then ``repeat`` times timed; return a ``Result``.

        ``cmd`` is a list of arguments (executed directly) or a string (``/bin/sh -c``).
        stdin and stdout are /dev/null; stderr is kept for the error message. ``setup`` (a
        callable) runs before the warm-up and before every repetition, untimed. ``--repeat``
        on the command line overrides ``repeat``. A non-zero exit stops the measurement and
        returns a failed Result naming the command, status and last stderr line.
        """
        return self.run_side_by_side([(cmd, setup)], repeat=repeat, cwd=cwd)[0]

    def run_side_by_side(self, runs, repeat=3, cwd=None):
        """Measure several commands in alternation; return one ``Result`` per ``(cmd, setup)`` of ``runs``.

        Each command gets its warm-up, then the timed repetitions take turns (A B A B ...), so a
        drift of the machine during the measurement (disk writeback, throttling, another
        program) falls on every command alike instead of on whichever ran last. Otherwise as
        ``run``; a command that fails is reported failed and no longer run.
        """
        repeat = self.repeat_override or repeat
        samples = [{"walls": [], "cpus": [], "peak": 0.0, "warmup_rss": None, "error": None} for _ in runs]
        for i in range(repeat + 1):
            for (cmd, setup), sample in zip(runs, samples):
                if sample["error"] is not None:
                    continue
                if setup is not None:
                    setup()
                wall, cpu, rss_mb, status, stderr = _spawn(cmd, cwd, gnu_time=(i == 0))
                if status != 0:
                    lines = [line for line in stderr.strip().splitlines() if not line.startswith("Command exited")]
                    last = lines[-1] if lines else "no stderr"
                    sample["error"] = f"`{_show(cmd)}` exited {status}: {last}"
                elif i == 0:
                    sample["warmup_rss"] = rss_mb if GNU_TIME else None
                else:
                    sample["walls"].append(wall)
                    sample["cpus"].append(cpu)
                    sample["peak"] = max(sample["peak"], rss_mb)
        results = []
        for (cmd, _), sample in zip(runs, samples):
            if sample["error"] is not None:
                results.append(Result(error=sample["error"], command=_show(cmd)))
                continue
            rss = sample["warmup_rss"] if sample["warmup_rss"] is not None else sample["peak"]
            results.append(Result(sample["walls"], rss, command=_show(cmd), rss_wait4_mb=sample["peak"],
                                  cpus=sample["cpus"]))
        return results

    def syscalls(self, cmd, trace="openat", cwd=None):
        """Run ``cmd`` once under ``strace -f -e trace=<trace>`` and return the trace lines.

        - Throws: ``RuntimeError`` when strace is missing or the command fails.
        """
        if shutil.which("strace") is None:
            raise RuntimeError("strace is not installed (apt-get install strace)")
        with tempfile.NamedTemporaryFile(mode="r", suffix=".strace") as out:
            argv = ["strace", "-f", "-qq", "-e", f"trace={trace}", "-o", out.name]
            argv += cmd if isinstance(cmd, list) else ["/bin/sh", "-c", cmd]
            done = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"`{_show(argv)}` exited {done.returncode}: {done.stderr.strip()[-300:]}")
            return out.read().splitlines()

    def row(self, name, ours, peer_name=None, peer=None, target=None, rss_limit_mb=None, note="",
            limit_s=None, limit=None):
        """Record and print one row.

        - Parameters:
          - ours: our ``Result`` (or a plain number, e.g. a count).
          - peer_name, peer: the peer's label and ``Result`` (or number), for context and ratio.
          - target: maximum allowed ``ours / peer`` wall ratio (e.g. 0.5), or None.
          - rss_limit_mb: maximum peak RSS (MiB) of our command, or None.
          - note: free text printed under the row and in RESULTS.md.
          - limit_s: maximum absolute median wall time of ``ours`` in seconds (extension), or None.
          - limit: maximum value of a numeric ``ours`` such as a count (extension), or None.
        - Returns: the ``Row`` (its ``status`` is PASS, FAIL, ERROR or info).
        """
        entry = Row(self.area, name, ours, peer_name, peer, target, rss_limit_mb, limit_s, limit, note)
        self.rows.append(entry)
        self.log(_format_line(entry.cells()))
        for reason in entry.failures:
            self.log(f"    ! {reason}")
        details = "; ".join(text for text in (entry.cpu_note(), note) if text)
        if details:
            self.log(f"    note: {details}")
        return entry


def _show(cmd):
    return cmd if isinstance(cmd, str) else " ".join(cmd)


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def _spawn(cmd, cwd, gnu_time=False):
    """Run ``cmd`` once; return (wall s, CPU s, peak RSS MiB of the child tree, exit status, stderr).

    With ``gnu_time`` (and /usr/bin/time installed) the command runs under ``time -f %M`` and
    the RSS is the one GNU time reports; otherwise it is ``ru_maxrss`` from ``os.wait4``.
    """
    argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss_file:
        if gnu_time and GNU_TIME:
            argv = [GNU_TIME, "-f", "%M", "-o", rss_file.name] + argv
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, wait_status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped here; Popen must not wait again
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        rss_kib = usage.ru_maxrss
        if gnu_time and GNU_TIME:
            reported = rss_file.read().split()
            rss_kib = int(reported[-1]) if reported and reported[-1].isdigit() else rss_kib
    return wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024.0, proc.returncode, stderr


_WIDTHS = [34, 10, 12, 10, 6, 10, 18, 6]


def _format_line(cells):
    return " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, _WIDTHS)))


# --------------------------------------------------------------------------- machine and report


def _cmd_output(argv, cwd=None):
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_info(floor):
    """Return a list of (label, value) describing this machine and checkout."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(line.split()[1] for line in f if line.startswith("MemTotal:")))
            memory = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    os.makedirs(WORK, exist_ok=True)
    df = _cmd_output(["df", "-T", WORK]).splitlines()
    filesystem = "unknown"
    if len(df) >= 2:
        fields = df[-1].split()
        filesystem = f"{fields[1]} ({fields[0]}, mounted on {fields[-1]})"
    commit = _cmd_output(["git", "rev-parse", "--short", "HEAD"], cwd=REPO)
    if _cmd_output(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO) not in ("", "unknown"):
        commit += " (with uncommitted changes)"
    return [
        ("Date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("CPU", f"{cpu}, nproc {_cmd_output(['nproc'])}"),
        ("Memory", memory),
        ("Kernel", f"{platform.system()} {platform.release()}"),
        ("Filesystem of Benchmarks/work", filesystem),
        ("Commit", commit),
        ("Swift", _cmd_output(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "not found"),
        ("Python", platform.python_version()),
        ("RSS floor (/bin/true)", f"{floor.rss_mb:.1f} MB reported ({'GNU time' if GNU_TIME else 'wait4'}); "
                                  f"{floor.rss_wait4_mb:.1f} MB with wait4 alone"),
    ]


def _md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_results(path, rows, machine, argv, scale, repeat, note):
    """Write the Markdown report (machine, method, table) to ``path``."""
    lines = ["# Benchmark results", ""]
    lines.append(f"Generated by `{shlex.join(['python3', 'Benchmarks/bench.py'] + list(argv))}`.")
    if note:
        lines += ["", f"**Note:** {note}"]
    lines += ["", "## Machine", ""]
    lines += [f"- {label}: {value}" for label, value in machine]
    lines += [f"- Corpus scale: {scale:g}; timed repetitions per command: {repeat or 'per row (default 3)'}", ""]
    lines += ["Wall time is the median of the timed runs (after one untimed warm-up), process start-up "
              "included. Peak RSS is `ru_maxrss` of the command and the descendants it waited for, as GNU "
              "`/usr/bin/time -f %M` reports it for the warm-up run (without GNU time: `wait4` over the timed runs); "
              "it cannot be lower than the RSS floor above. CPU in the notes is the median user+system time of the "
              "command and its children (`wait4`), steadier than wall time when the machine is busy. "
              "See `Benchmarks/README.md`.", ""]
    lines += ["## Results", ""]
    headers = ["area"] + HEADERS + ["note"]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    for entry in rows:
        note_text = "; ".join(entry.failures + [text for text in (entry.cpu_note(), entry.note) if text])
        cells = [entry.area] + entry.cells() + [note_text]
        lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    lines.append("")
    counts = _counts(rows)
    lines.append("Summary: " + ", ".join(f"{n} {status}" for status, n in counts.items()) + ".")
    lines.append("")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def _counts(rows):
    counts = {}
    for status in ("PASS", "FAIL", "ERROR", "info"):
        n = sum(1 for r in rows if r.status == status)
        if n:
            counts[status] = n
    return counts


# --------------------------------------------------------------------------- CLI


def available_areas():
    """Return the area names: the row files ``Benchmarks/rows/*.py``, sorted."""
    if not os.path.isdir(ROWS_DIR):
        return []
    return sorted(f[:-3] for f in os.listdir(ROWS_DIR) if f.endswith(".py") and not f.startswith("_"))


def build_docpkg():
    """Build the release docpkg and docpkg-sync in the repo root as `make release` does (the Swift
    runtime linked statically) and return docpkg's path.

    - Throws: ``SystemExit`` when the build fails.
    """
    print("building: make release", flush=True)
    done = subprocess.run(["make", "release"], cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"bench: error: make release failed with status {done.returncode}")
    return os.path.join(REPO, ".build", "release", "docpkg")


def load_area(area):
    """Import ``Benchmarks/rows/<area>.py`` and return the module."""
    spec = importlib.util.spec_from_file_location(f"bench_rows_{area}", os.path.join(ROWS_DIR, f"{area}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(description="Run the DocumentPackage benchmarks and write RESULTS.md.")
    parser.add_argument("--only", nargs="+", metavar="AREA",
                        help=f"areas to run (default all: {' '.join(available_areas())})")
    parser.add_argument("--scale", type=float, default=1.0, help="corpus scale, e.g. 0.05 for a quick run (default 1)")
    parser.add_argument("--repeat", type=int, default=None, help="timed repetitions per command (overrides the rows')")
    parser.add_argument("--docpkg", help="use this docpkg binary instead of building the release product")
    parser.add_argument("--note", default="", help="text for the RESULTS.md header, e.g. 'machine was shared'")
    parser.add_argument("--results", help="report path (default Benchmarks/RESULTS.md at scale 1, "
                                          "else Benchmarks/work/RESULTS-s<scale>.md)")
    parser.add_argument("--all-corpora", action="store_true", help="generate every corpus first, even if unused")
    args = parser.parse_args(argv)
    if args.scale <= 0 or args.scale > 1:
        parser.error("--scale must be in (0, 1]")
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    unknown = [a for a in (args.only or []) if a not in available_areas()]
    if unknown:
        parser.error(f"unknown area {unknown[0]!r} (known: {', '.join(available_areas())})")
    return args


def main(argv=None):
    """Run the selected areas; print the table and summary; write the report. Returns 0."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    docpkg = os.path.abspath(args.docpkg) if args.docpkg else build_docpkg()
    if not os.access(docpkg, os.X_OK):
        raise SystemExit(f"bench: error: {docpkg}: not an executable docpkg")
    h = Harness(docpkg, scale=args.scale, repeat=args.repeat, log=lambda m: print(m, flush=True))
    if args.all_corpora:
        for name in corpora.NAMES:
            h.corpus(name)
    floor = h.run(["/bin/true"], repeat=3)
    print(f"docpkg: {docpkg}; scale {args.scale:g}; RSS floor {floor.rss_mb:.1f} MB "
          f"({'GNU time' if GNU_TIME else 'wait4 only: install GNU time for a lower floor'})", flush=True)
    print(_format_line(HEADERS))
    print("-" * len(_format_line(HEADERS)))
    for area in args.only or available_areas():
        h.area = area
        print(f"[{area}]", flush=True)
        try:
            load_area(area).rows(h)
        except Exception as error:  # a broken row file must not hide the others
            traceback.print_exc()
            h.row(f"{area}: row file raised", Result(error=f"{type(error).__name__}: {error}"))
    counts = _counts(h.rows)
    print("\nSummary: " + (", ".join(f"{n} {status}" for status, n in counts.items()) or "no rows"))
    for entry in h.rows:
        if entry.status in ("FAIL", "ERROR"):
            print(f"  {entry.status}: [{entry.area}] {entry.name}: {'; '.join(entry.failures)}")
    results = args.results or (os.path.join(HERE, "RESULTS.md") if args.scale == 1
                               else os.path.join(WORK, f"RESULTS-s{args.scale:g}.md"))
    write_results(results, h.rows, machine_info(floor), argv, args.scale, args.repeat, args.note)
    print(f"wrote {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
