"""Pausing a command at one of its system calls with strace, for the interleaving tests (settle-interleaving.py,
moved-while-saving.py): ``strace -e inject=CALL:signal=SIGSTOP:when=N COMMAND`` stops it right after its Nth CALL;
`stopped` waits for that stop, `resume` lets it go on, `kill` ends it there."""

import os
import signal
import subprocess
import time


def children(pid):
    """The processes `pid` started (strace's: the traced command)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def stopped(process, limit=60):
    """Waits until the traced command (strace's child) is stopped by the injected SIGSTOP; False if it ended first.
    A traced process also shows as stopped for the instant strace looks at each of its calls: only a stop that
    lasts (ten looks over 50 ms) is the injected one."""
    deadline = time.monotonic() + limit
    seen = 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        states = []
        for child in children(process.pid):
            try:
                with open(f"/proc/{child}/stat") as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except OSError:
                pass
        seen = seen + 1 if any(state in ("t", "T") for state in states) else 0
        if seen >= 10:
            return True
        time.sleep(0.005)
    return False


def resume(process, wait=True):
    """Lets the stopped command go on (and waits for it, unless `wait` is false). On a busy machine a traced
    process can look stopped for longer than `stopped` waits while strace is not running, so the injected stop
    may come after the first SIGCONT: waiting, it is sent again every half second."""
    def go_on():
        for child in children(process.pid):
            try:
                os.kill(child, signal.SIGCONT)
            except ProcessLookupError:
                pass
    go_on()
    if not wait:
        return
    deadline = time.monotonic() + 120
    while True:
        try:
            process.wait(timeout=0.5)
            return
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise
            go_on()


def descendants(pid):
    """The processes below `pid`, at any depth (a stack, not recursion)."""
    found, pending = [], [pid]
    while pending:
        for child in children(pending.pop()):
            found.append(child)
            pending.append(child)
    return found


def kill(process):
    """Kills the stopped command (not strace first, whose death would leave it stopped, holding its locks), as a
    crash would, and waits for strace to end. Once, at load 31, strace had not ended two minutes after: then every
    process below it is killed, and strace with them."""
    def kill_all(pids):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    kill_all(children(process.pid))
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        kill_all(descendants(process.pid) + [process.pid])
        process.wait(timeout=120)
