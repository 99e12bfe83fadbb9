"""Rows for issue 27 (`docpkg serve`) on the many corpus: the first page against `docpkg inspect --depth 1`, the
server's peak RSS, and how soon an outside change reaches an open page's event stream."""

import http.client
import os
import select
import socket
import statistics
import subprocess
import time

from rows.monitor import peak_rss_mb, stop

CHANGES = 50
FIRST_PAGE = ["/", "/app.js", "/app.css", "/api/info", "/api/children?path=&limit=200&sort=name&filter=&offset=0"]


def start(docpkg, package):
    """Start `docpkg serve PACKAGE`; return (process, port, token) once it prints its URL."""
    proc = subprocess.Popen([docpkg, "serve", package], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    line = proc.stdout.readline().decode() if ready else ""
    if " at http://127.0.0.1:" not in line:
        stop(proc)
        raise RuntimeError(f"docpkg serve did not start: {line.strip() or proc.stderr.read().decode().strip()}")
    url = line.split()[-1]
    port = int(url.split(":")[2].split("/")[0])
    return proc, port, url.split("token=")[1]


def first_page(port, token):
    """Seconds to fetch what the page loads first, one request after the other on one connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    begin = time.perf_counter()
    for target in FIRST_PAGE:
        connection.request("GET", target + ("&" if "?" in target else "?") + "token=" + token)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{target}: HTTP {response.status}")
    seconds = time.perf_counter() - begin
    connection.close()
    return seconds


def first_pages(docpkg, path, runs=3):
    """The first page's seconds and the server's peak RSS (MiB) over `runs` fresh `docpkg serve PATH`."""
    pages, peaks = [], []
    for _ in range(runs):
        proc, port, token = start(docpkg, path)
        try:
            pages.append(first_page(port, token))
            peaks.append(peak_rss_mb(proc.pid))
        finally:
            stop(proc)
    return pages, peaks


def change_delays(port, token, package, count):
    """Seconds from renaming a new file into the package to its name on the event stream, `count` times."""
    stream = socket.create_connection(("127.0.0.1", port), timeout=600)
    stream.sendall(f"GET /api/events?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    received = b""
    while b'{"live":true}' not in received:  # the monitor lists the package before it watches
        received += stream.recv(65536)
    stream.settimeout(5)
    delays = []
    for index in range(count):
        name = f"serve-change-{index}.txt"
        staged = os.path.join(os.path.dirname(package), name)
        with open(staged, "w") as out:
            out.write(f"change {index}\n")
        begin = time.perf_counter()
        os.rename(staged, os.path.join(package, name))
        while name.encode() not in received:
            received += stream.recv(65536)
        delays.append(time.perf_counter() - begin)
    stream.close()
    for index in range(count):
        os.unlink(os.path.join(package, f"serve-change-{index}.txt"))
    return delays


def rows(h):
    """First page ≤ 2× `inspect --depth 1`; peak RSS ≤ 64 MiB; an outside change on the page ≤ 1 s, p99 of 50."""
    many = h.corpus("many")
    files = sum(len(names) for _, _, names in os.walk(many))
    inspect = h.run([h.docpkg, "inspect", many, "--depth", "1"])
    try:
        pages, peaks = first_pages(h.docpkg, many)
        h.row(f"serve: first page, many ({files:,} files)", statistics.median(pages), "inspect --depth 1", inspect,
              target=2, note="median of 3 fresh `docpkg serve` runs: the HTML, script, style, /api/info and the "
                             "root's first 200 entries, one after the other on one connection (server start not "
                             "included; the change monitor lists the package meanwhile).")
        proc, port, token = start(h.docpkg, many)
        try:
            samples = sorted(change_delays(port, token, many, CHANGES))
            peaks.append(peak_rss_mb(proc.pid))
        finally:
            stop(proc)
        h.row(f"serve: memory, many ({files:,} files)", max(peaks), limit=64,
              note="peak RSS (VmHWM, MiB) of `docpkg serve` (docpkg-sync) after the first page, and after the "
                   "monitor watches the whole package and 50 changes were sent; the largest.")
        p99 = samples[int(0.99 * (len(samples) - 1))]
        h.row(f"serve: outside change on the page, p99 of {CHANGES}", p99, limit_s=1.0,
              note=f"a new file renamed into the many package to its name on an open /api/events stream; median "
                   f"{samples[len(samples) // 2] * 1000:.1f} ms, max {samples[-1] * 1000:.1f} ms.")
        # The same package as a zip, read in place: the central directory alone gives the root's entries.
        zip_path = os.path.join(h.scratch("serve-zip"), "many.zip")
        subprocess.run([h.docpkg, "pack", many, "-o", zip_path], check=True, stdout=subprocess.DEVNULL)
        inspect_zip = h.run([h.docpkg, "inspect", zip_path, "--depth", "1"])
        pages, peaks = first_pages(h.docpkg, zip_path)
        h.row(f"serve: first page, zip of many ({files:,} files)", statistics.median(pages),
              "inspect ZIP --depth 1", inspect_zip, target=2,
              note="as the first row, on a zip of the many package made by `docpkg pack`, served in place.")
        h.row(f"serve: memory, zip of many ({files:,} files)", max(peaks),
              note="peak RSS (VmHWM, MiB) of `docpkg serve` on the zip after the first page; the largest of 3. "
                   "Information here; the lazyarchive area holds the target (a zip read in place is listed folder "
                   "by folder from an index of its central directory, as a package directory is from disk).")
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        h.row(f"serve: first page, many ({files:,} files)", None, note=f"not measured: {error}")
