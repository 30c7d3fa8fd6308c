#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Small UDP and TCP tools of tests/e2e/test_quic.sh (no crypto: QUIC Initials
are captured from gtlsclient, never built here).

  udp-sink ADDR PORT FILE SECONDS
      Receives datagrams on ADDR:PORT for at most SECONDS; appends each to
      FILE as one line of hex, flushed at once (the test counts the lines).
  tcp-sink ADDR PORT FILE SECONDS
      Accepts TCP connections on ADDR:PORT for at most SECONDS; for each,
      reads for up to 2 s and appends "conn BYTES" to FILE.
  initials CAPTURE
      The distinct client Initials of a udp-sink capture (QUIC v1 long
      header, type Initial, the first datagram of each Destination
      Connection ID): prints how many.
  pool CAPTURE
      Those Initials, one a line in hex (bench/quic.sh's pool for tx udp).
  replay ADDR PORT CAPTURE COUNT
      Sends COUNT datagrams to ADDR:PORT, cycling through the distinct
      client Initials of CAPTURE, as fast as one socket can.
  non-initials ADDR PORT
      Sends one datagram of each kind that is no client Initial, each 1200
      bytes: a short header (1-RTT), a long header of an unknown version
      (0x1a2a3a4a, the greasing pattern of RFC 9000 section 15), a v1
      Handshake and a v1 0-RTT packet. Prints how many it sent.
  hello ADDR PORT NAME [ech]
      A TLS 1.3 ClientHello over TCP naming NAME, with an
      encrypted_client_hello extension (outer, random payload) when 'ech'
      is given; keeps the connection 1 s, then resets it (SO_LINGER 0), so
      that nothing retransmits into later checks.
"""
import os
import socket
import struct
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp_sink(addr, port, path, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((addr, int(port)))
    end = time.monotonic() + float(seconds)
    with open(path, "a") as out:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                data, _ = s.recvfrom(65535)
            except socket.timeout:
                break
            out.write(data.hex() + "\n")
            out.flush()


def tcp_sink(addr, port, path, seconds):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(port)))
    s.listen(8)
    end = time.monotonic() + float(seconds)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            c, _ = s.accept()
        except socket.timeout:
            break
        got = 0
        c.settimeout(2)
        try:
            while True:
                d = c.recv(65535)
                if not d:
                    break
                got += len(d)
        except OSError:
            pass
        c.close()
        with open(path, "a") as out:
            out.write("conn %d\n" % got)


def client_initials(path):
    """The first datagram of each DCID that is a v1 client Initial."""
    seen, out = set(), []
    with open(path) as f:
        for line in f:
            d = bytes.fromhex(line.strip())
            if len(d) < 7 or d[0] & 0xf0 != 0xc0 or d[1:5] != b"\x00\x00\x00\x01":
                continue
            dcid = d[6:6 + d[5]]
            if dcid not in seen:
                seen.add(dcid)
                out.append(d)
    return out


def replay(addr, port, path, count):
    pkts = client_initials(path)
    if not pkts:
        sys.exit("replay: no client Initial in " + path)
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    for i in range(int(count)):
        s.sendto(pkts[i % len(pkts)], (addr, int(port)))


def non_initials(addr, port):
    rnd = os.urandom
    dcid = rnd(8)
    kinds = [
        bytes([0x40 | 0x03]) + dcid,                                        # 1-RTT
        bytes([0xc3]) + b"\x1a\x2a\x3a\x4a" + bytes([8]) + dcid + b"\x00",  # unknown version
        bytes([0xe3]) + b"\x00\x00\x00\x01" + bytes([8]) + dcid + b"\x00",  # v1 Handshake
        bytes([0xd3]) + b"\x00\x00\x00\x01" + bytes([8]) + dcid + b"\x00",  # v1 0-RTT
    ]
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    for k in kinds:
        s.sendto(k + rnd(1200 - len(k)), (addr, int(port)))
    print(len(kinds))


def ext(kind, body):
    return struct.pack(">HH", kind, len(body)) + body


def client_hello(name, ech):
    n = name.encode()
    exts = ext(0, struct.pack(">HBH", len(n) + 3, 0, len(n)) + n)
    exts += ext(43, b"\x02\x03\x04")                        # supported_versions: TLS 1.3
    exts += ext(10, b"\x00\x02\x00\x1d")                    # supported_groups: x25519
    exts += ext(51, struct.pack(">HHH", 36, 0x1d, 32) + os.urandom(32))   # key_share
    if ech:
        # ECHClientHello, outer: HPKE suite (HKDF-SHA256, AES-128-GCM), config_id, enc, payload
        payload = os.urandom(200)
        exts += ext(0xfe0d, b"\x00" + struct.pack(">HHB", 1, 1, 7) +
                    struct.pack(">H", 32) + os.urandom(32) + struct.pack(">H", len(payload)) +
                    payload)
    body = b"\x03\x03" + os.urandom(32) + b"\x20" + os.urandom(32)
    body += b"\x00\x02\x13\x01" + b"\x01\x00" + struct.pack(">H", len(exts)) + exts
    hs = b"\x01" + struct.pack(">I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack(">H", len(hs)) + hs


def hello(addr, port, name, ech):
    s = socket.create_connection((addr, int(port)), timeout=3)
    s.sendall(client_hello(name, ech))
    time.sleep(1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "udp-sink" and len(argv) == 6:
        udp_sink(*argv[2:])
    elif cmd == "tcp-sink" and len(argv) == 6:
        tcp_sink(*argv[2:])
    elif cmd == "initials" and len(argv) == 3:
        print(len(client_initials(argv[2])))
    elif cmd == "pool" and len(argv) == 3:
        for d in client_initials(argv[2]):
            print(d.hex())
    elif cmd == "replay" and len(argv) == 6:
        replay(*argv[2:])
    elif cmd == "non-initials" and len(argv) == 4:
        non_initials(*argv[2:])
    elif cmd == "hello" and len(argv) in (5, 6):
        hello(argv[2], argv[3], argv[4], len(argv) == 6 and argv[5] == "ech")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
