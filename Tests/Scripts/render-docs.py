#!/usr/bin/env python3
"""Serves a built DocC site on loopback and prints, for each page path given, the DOM that headless
Chromium renders there (DocC pages are drawn by JavaScript from JSON, so the served HTML alone says
nothing). Usage: render-docs.py SITE_DIR PAGE_PATH...  Each DOM is preceded by a line '=== PAGE_PATH'."""
import functools
import http.server
import subprocess
import sys
import tempfile
import threading

site, pages = sys.argv[1], sys.argv[2:]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
handler.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
status = 0
with tempfile.TemporaryDirectory() as profile:
    for page in pages:
        result = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
             "--virtual-time-budget=15000", "--dump-dom", f"http://127.0.0.1:{port}/{page.lstrip('/')}"],
            capture_output=True, text=True, timeout=120)
        print("=== " + page)
        print(result.stdout)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            status = 1
server.shutdown()
sys.exit(status)
