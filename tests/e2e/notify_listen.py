#!/usr/bin/env python3
"""What systemd would read of a daemon, for tests/e2e/test_daemon_notify.sh and the journal's.

notify SOCKET OUT [CMD...]: binds SOCKET (a unix datagram socket, as systemd's
NOTIFY_SOCKET) and appends each message to OUT as one line, "SECONDS STATE|STATE..."
(CLOCK_MONOTONIC). At the first READY=1 it runs CMD at once, its output into OUT.ready,
before reading on: what holds when systemd is told the daemon is ready.

journal SOCKET OUT: binds SOCKET as journald's native socket
(/run/systemd/journal/socket) and appends each entry to OUT as a JSON object per line
(the fields of the native protocol: KEY=VALUE lines, or KEY, a 64-bit length, binary).
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time


def journal_fields(data):
    fields, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            key, value = line.split(b"=", 1)
            i = nl + 1
        else:
            key = line
            (size,) = struct.unpack_from("<Q", data, nl + 1)
            value = data[nl + 9:nl + 9 + size]
            i = nl + 9 + size + 1
        fields[key.decode()] = value.decode("utf-8", "replace")
    return fields


def main():
    mode, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
    cmd = sys.argv[4:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o666)
    ready_seen = False
    with open(out, "a") as f:
        while True:
            data = s.recv(1 << 16)
            if mode == "journal":
                f.write(json.dumps(journal_fields(data)) + "\n")
                f.flush()
                continue
            text = data.decode("utf-8", "replace")
            f.write("%.3f %s\n" % (time.monotonic(), text.replace("\n", "|")))
            f.flush()
            if cmd and not ready_seen and "READY=1" in text.split("\n"):
                ready_seen = True
                with open(out + ".ready", "w") as r:
                    subprocess.run(cmd, stdout=r, stderr=subprocess.STDOUT, timeout=20)


if __name__ == "__main__":
    main()
