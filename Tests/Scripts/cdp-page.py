#!/usr/bin/env python3
"""Drives one page of headless Chromium through the DevTools protocol, over a pipe (--remote-debugging-pipe:
no port, no WebSocket library). Reads one JSON command a line on standard input and answers each with one JSON
line on standard output, so that a Swift test can talk to the page step by step:

  {"cmd": "open", "url": URL}                  navigate and wait for the load event
  {"cmd": "eval", "js": EXPRESSION}            evaluate (awaited; `waitFor(fn, ms)` is defined) and return the value
  {"cmd": "screenshot", "path": PNG}           capture the viewport
  {"cmd": "downloads", "dir": DIR}             let downloads go to DIR
  {"cmd": "downloaded"}                        wait for a download to complete; its file name
Answers are {"ok": true, "value": ...} or {"ok": false, "error": "..."}. Usage: cdp-page.py [WIDTH HEIGHT]"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

width, height = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (1280, 800)
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child_fds():
    # Chromium reads commands on fd 3 and writes answers on fd 4: move the pipe ends there (through fresh
    # descriptors first, in case either end already is 3 or 4).
    read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
    os.dup2(read_end, 3)
    os.dup2(write_end, 4)


profile = tempfile.TemporaryDirectory()
chrome = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
     "--user-data-dir=" + profile.name, "about:blank"],
    preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL)
os.close(to_chrome_r)
os.close(from_chrome_w)
writer = os.fdopen(to_chrome_w, "wb", buffering=0)
reader = os.fdopen(from_chrome_r, "rb", buffering=0)
pending = b""
events = []
next_id = 0


def receive():
    global pending
    while b"\0" not in pending:
        chunk = reader.read(65536)
        if not chunk:
            raise RuntimeError("chromium closed the pipe")
        pending += chunk
    message, pending = pending.split(b"\0", 1)
    return json.loads(message)


def call(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    writer.write(json.dumps(message).encode() + b"\0")
    while True:
        reply = receive()
        if reply.get("id") == next_id:
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result", {})
        events.append(reply)


def wait_event(method, seconds=30, match=lambda params: True):
    deadline = time.time() + seconds
    while time.time() < deadline:
        for index, event in enumerate(events):
            if event.get("method") == method and match(event.get("params", {})):
                del events[index]
                return event["params"]
        events.append(receive())
    raise RuntimeError(f"no {method} within {seconds} s")


target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
call("Page.enable", session=session)
call("Runtime.enable", session=session)
call("Emulation.setDeviceMetricsOverride",
     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)

HELPER = ("const waitFor = async (f, ms = 20000) => { const end = Date.now() + ms; for (;;) { const v = await f(); "
          "if (v) return v; if (Date.now() > end) throw new Error('timed out: ' + f); "
          "await new Promise((r) => setTimeout(r, 20)); } };")

for line in sys.stdin:
    command = json.loads(line)
    try:
        kind = command["cmd"]
        if kind == "open":
            events.clear()
            call("Page.navigate", {"url": command["url"]}, session=session)
            wait_event("Page.loadEventFired")
            value = True
        elif kind == "eval":
            result = call("Runtime.evaluate", {
                "expression": "(async () => { " + HELPER + " return await (" + command["js"] + "); })()",
                "awaitPromise": True, "returnByValue": True}, session=session)
            if "exceptionDetails" in result:
                details = result["exceptionDetails"]
                raise RuntimeError(details.get("exception", {}).get("description") or details.get("text"))
            value = result["result"].get("value")
        elif kind == "screenshot":
            data = call("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
            with open(command["path"], "wb") as out:
                out.write(base64.b64decode(data))
            value = command["path"]
        elif kind == "downloads":
            call("Browser.setDownloadBehavior",
                 {"behavior": "allow", "downloadPath": command["dir"], "eventsEnabled": True})
            value = True
        elif kind == "downloaded":
            begin = wait_event("Browser.downloadWillBegin")
            wait_event("Browser.downloadProgress", match=lambda p: p.get("state") == "completed")
            value = begin.get("suggestedFilename")
        else:
            raise RuntimeError("unknown command " + kind)
        answer = {"ok": True, "value": value}
    except Exception as error:  # every failure is an answer: the test reports it
        answer = {"ok": False, "error": str(error)}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()

chrome.terminate()
chrome.wait(timeout=10)
