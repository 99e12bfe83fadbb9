#!/usr/bin/env python3
"""A server on 127.0.0.1 that misbehaves the way the sync tests need, one way per run.

    misbehaving_server.py MODE LOG

Prints the port it listens on (one line), then serves until killed. Every request line it reads is appended to
the file LOG. MODE:
  silent   accepts connections and reads requests, never answers
  bare404  answers every request 404 with no body
  stall    answers 200 with a 1000-byte Content-Length, sends 3 bytes, then nothing more
  busy     answers every request 503 SlowDown (an S3 error body)
  forward  relays every connection to 127.0.0.1:UPSTREAM (a third argument: the real server's port), except
           while the file LOG.down exists: then it closes every connection it holds and each new one at once
           (the network gone), logging "cut" for each new one; removing the file brings it back. While the file
           LOG.stall exists, it holds what it reads instead of relaying it (a stalled transfer)
"""
import os
import signal
import socket
import sys
import threading
import time

mode, log = sys.argv[1], sys.argv[2]
lock = threading.Lock()
held = []


relayed = []


def down():
    return os.path.exists(log + ".down")


def stalled():
    return os.path.exists(log + ".stall")


def pump(source, sink):
    while True:
        try:
            chunk = source.recv(65536)
        except OSError:
            chunk = b""
        while chunk and stalled() and not down():
            time.sleep(0.05)
        if not chunk:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            return
        try:
            sink.sendall(chunk)
        except OSError:
            return


def forward(connection):
    if down():
        with lock, open(log, "ab") as file:
            file.write(b"cut\n")
        connection.close()
        return
    upstream = socket.create_connection(("127.0.0.1", int(sys.argv[3])))
    with lock:
        relayed.extend([connection, upstream])
    threading.Thread(target=pump, args=(upstream, connection), daemon=True).start()
    pump(connection, upstream)


def cut_when_down():
    while True:
        if down():
            with lock:
                for end in relayed:
                    try:
                        end.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                relayed.clear()
        time.sleep(0.05)


def serve(connection):
    held.append(connection)  # never closed: a silent or stalled server keeps the connection open
    data = b""
    while True:
        try:
            chunk = connection.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        data += chunk
        while b"\r\n\r\n" in data:
            head, data = data.split(b"\r\n\r\n", 1)
            lines = head.split(b"\r\n")
            with lock, open(log, "ab") as file:
                file.write(lines[0] + b"\n")
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(data) < length:
                more = connection.recv(65536)
                if not more:
                    return
                data += more
            data = data[length:]
            if mode == "silent":
                continue
            if mode == "bare404":
                connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            elif mode == "stall":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nETag: \"x\"\r\n\r\nabc")
            elif mode == "busy":
                body = b"<Error><Code>SlowDown</Code><Message>busy</Message></Error>"
                connection.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: %d\r\n\r\n" % len(body) + body)


# Ended by SIGTERM even if the parent blocks or ignores it (a test process's threads may: the child inherits that),
# and with the parent (a test process killed without cleaning up).
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
parent = os.getppid()


def watch_parent():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=watch_parent, daemon=True).start()

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)
if mode == "forward":
    threading.Thread(target=cut_when_down, daemon=True).start()
while True:
    connection, _ = listener.accept()
    threading.Thread(target=forward if mode == "forward" else serve, args=(connection,), daemon=True).start()
