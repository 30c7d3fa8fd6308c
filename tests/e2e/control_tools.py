#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Clients of the daemon's control socket for tests/e2e/test_control.sh.

  send PATH LINE          sends LINE and a newline, prints the reply line
  big PATH BYTES          sends BYTES of 'x' without a newline, prints the reply
  idle PATH SECONDS       connects, sends nothing; prints how long until the
                          daemon closed it ("closed after N.N s"), or "open"
  stale PATH              leaves a socket at PATH that nobody listens on
Every wait is bounded (5 s a reply).
"""
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def reply(s):
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout) as e:
            return data.decode(errors="replace") + "(%s)" % type(e).__name__
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").rstrip("\n")


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "send":
        s = connect(path)
        s.sendall(sys.argv[3].encode() + b"\n")
        print(reply(s))
    elif cmd == "big":
        s = connect(path)
        try:
            s.sendall(b"x" * int(sys.argv[3]))
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        print(reply(s))
    elif cmd == "idle":
        s = connect(path)
        start = time.monotonic()
        s.settimeout(float(sys.argv[3]))
        try:
            data = s.recv(1)
            print("closed after %.1f s%s" % (time.monotonic() - start,
                                             "" if not data else " with data"))
        except socket.timeout:
            print("open")
    elif cmd == "stale":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
