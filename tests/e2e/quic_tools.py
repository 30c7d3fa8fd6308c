#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Small UDP and TCP tools of tests/e2e/test_quic.sh and test_quic_browser.sh
(no crypto: QUIC Initials are captured from real clients, never built here;
what they hold is read from the server's log).

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
  flight ADDR PORT FILE KEY
      Sends the datagrams of flight KEY of FILE (tests/e2e/chrome_flights.hex:
      a browser's captured first flights) to ADDR:PORT from one socket, in
      order, 50 ms apart. Prints how many.
  hellos LOG
      The client Initials and ClientHellos that gtlsserver logged (run
      without -q and --no-quic-dump): one line a connection, "key=value"
      fields: cid (the server's), name (the server_name, "-" if the hello
      was not read that far), at (its extension's stream offset), len (the
      hello's), where (where the client put the name: head, in the bytes
      from 0 of the first Initial carrying them; tail, in that Initial's
      bytes past a gap that another Initial fills; second, in another
      Initial), gapped (how many of its
      Initials carry parts of the hello with a gap between), ech (1: an
      encrypted_client_hello extension), h3 (the :authority of the HTTP/3
      requests, "-" if none), initials (those carrying CRYPTO frames), pkts
      (each: CRYPTO,PING,PADDING frames, and its byte ranges).
  netlog FILE HOST
      What Chromium's net-log (--log-net-log=FILE) says of HOST, as
      "sessions=N confirmed=N h3=N initials=N tcp=N": QUIC sessions to HOST,
      those whose handshake completed, HTTP/3 response headers on them, the
      Initial packets they sent, and TCP connections tried to any host (a
      net-log cut short by a kill is read as far as it goes).
"""
import json
import os
import re
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


def flights(path):
    """{KEY: (name, [datagram, ...])} of a flights file."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("flight "):
                words = line.split()
                cur = out[words[1]] = (words[2], [])
            else:
                cur[1].append(bytes.fromhex(line))
    return out


def flight(addr, port, path, key):
    dgrams = flights(path)[key][1]
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    for d in dgrams:
        s.sendto(d, (addr, int(port)))
        time.sleep(0.05)
    print(len(dgrams))


# gtlsserver's log: "I00000000 0xSCID pkt rx pkn=N ... type=Initial", "... frm rx N Initial
# CRYPTO(0x06) offset=O len=L" (or PING, PADDING), "Ordered CRYPTO data in Initial crypto level"
# and a hex dump of the bytes that became contiguous, "http: stream 0xN [:authority: NAME]".
LOG_CID = re.compile(r"^I\d+ (0x[0-9a-f]+) ")
LOG_FRAME = re.compile(r" frm rx (\d+) Initial (CRYPTO|PING|PADDING)\(0x0[0-9a-f]\)"
                       r"(?: offset=(\d+) len=(\d+))?")
LOG_HEX = re.compile(r"^[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2})+)")
LOG_AUTHORITY = re.compile(r"^http: stream 0x[0-9a-f]+ \[:authority: (.*)\]$")


def server_conns(path):
    """{cid: {"pkts": {pkn: [crypto ranges, pings, paddings]}, "hello": bytes, "h3": set}}"""
    conns, cid, dumping = {}, None, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = LOG_CID.match(line)
            if m:
                cid, dumping = m.group(1), None
                c = conns.setdefault(cid, {"pkts": {}, "hello": bytearray(), "h3": set()})
                fm = LOG_FRAME.search(line)
                if fm:
                    pkt = c["pkts"].setdefault(int(fm.group(1)), [[], 0, 0])
                    if fm.group(2) == "CRYPTO":
                        pkt[0].append((int(fm.group(3)), int(fm.group(4))))
                    else:
                        pkt[1 if fm.group(2) == "PING" else 2] += 1
                continue
            if cid is None:
                continue
            if line == "Ordered CRYPTO data in Initial crypto level":
                dumping = conns[cid]["hello"]
                continue
            m = LOG_HEX.match(line)
            if m and dumping is not None:
                dumping.extend(bytes.fromhex(m.group(1).replace(" ", "")))
                continue
            dumping = None
            m = LOG_AUTHORITY.match(line)
            if m:
                conns[cid]["h3"].add(m.group(1))
    return conns


def merged(ranges):
    out = []
    for off, n in sorted(ranges):
        if out and out[-1][1] >= off:
            out[-1][1] = max(out[-1][1], off + n)
        else:
            out.append([off, off + n])
    return out


def hello_fields(h):
    """(server_name, its extension's offset, ECH) of the ClientHello h, as far as h goes."""
    name, at, ech = "-", -1, 0
    try:
        i = 4 + 2 + 32
        i += 1 + h[i]
        i += 2 + int.from_bytes(h[i:i + 2], "big")
        i += 1 + h[i]
        end = i + 2 + int.from_bytes(h[i:i + 2], "big")
        i += 2
        while i + 4 <= min(end, len(h)):
            kind, n = struct.unpack(">HH", h[i:i + 4])
            if kind == 0 and i + 4 + n <= len(h):
                at, name = i, h[i + 9:i + 4 + n].decode("ascii", "replace")
            elif kind == 0xfe0d:
                ech = 1
            i += 4 + n
    except IndexError:
        pass
    return name, at, ech


def hellos(path):
    for cid, c in server_conns(path).items():
        pkts = [(pkn, p) for pkn, p in sorted(c["pkts"].items()) if p[0]]
        if not pkts:
            continue
        h = bytes(c["hello"])
        hello_len = 4 + int.from_bytes(h[1:4], "big") if len(h) >= 4 and h[0] == 1 else 0
        name, at, ech = hello_fields(h) if hello_len else ("-", -1, 0)
        gapped = sum(len(merged(p[0])) > 1 for _, p in pkts)
        # Where the name is, as the client packed the hello: in the first Initial that
        # carries its start (its bytes from 0, or past a gap), or in another one.
        where = "-"
        opening = [merged(p[0]) for _, p in pkts if any(o == 0 for o, _ in p[0])]
        if name != "-" and opening:
            last = at + 9 + len(name) - 1      # the name's last byte
            ranges = opening[0]
            where = "head" if last < ranges[0][1] else \
                "tail" if any(a <= last < b for a, b in ranges[1:]) else "second"
        desc = " ".join("#%d:%d,%d,%d:%s" % (k + 1, len(p[0]), p[1], p[2],
                                              "+".join("%d-%d" % (a, b) for a, b in merged(p[0])))
                        for k, (_, p) in enumerate(pkts))
        print("cid=%s name=%s at=%d len=%d where=%s gapped=%d ech=%d h3=%s initials=%d pkts=%s" %
              (cid, name, at, hello_len, where, gapped, ech, ",".join(sorted(c["h3"])) or "-",
               len(pkts), desc.replace(" ", ";")))


def netlog_load(path):
    """Chromium's net-log JSON; one cut short (the browser killed) closed where it stops."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        pass
    cut = text.rfind("},")
    return json.loads(text[:cut + 1] + "]}") if cut > 0 else {"constants": {}, "events": []}


def netlog(path, host):
    d = netlog_load(path)
    types = {v: k for k, v in d.get("constants", {}).get("logEventTypes", {}).items()}
    events = d.get("events", [])
    sessions = {e["source"]["id"] for e in events if types.get(e["type"]) == "QUIC_SESSION" and
                e.get("params", {}).get("host") == host}
    count = {"confirmed": 0, "h3": 0, "initials": 0, "tcp": 0}
    for e in events:
        t = types.get(e["type"], "")
        if t in ("TCP_CONNECT", "TCP_CONNECT_ATTEMPT"):
            count["tcp"] += 1
        if e["source"]["id"] not in sessions:
            continue
        if t == "QUIC_SESSION_CRYPTO_HANDSHAKE_COMPLETE":
            count["confirmed"] += 1
        elif t == "HTTP3_HEADERS_RECEIVED":
            count["h3"] += 1
        elif t == "QUIC_SESSION_PACKET_SENT" and \
                e.get("params", {}).get("encryption_level") == "ENCRYPTION_INITIAL":
            count["initials"] += 1
    print("sessions=%d confirmed=%d h3=%d initials=%d tcp=%d" %
          (len(sessions), count["confirmed"], count["h3"], count["initials"], count["tcp"]))


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
    elif cmd == "flight" and len(argv) == 6:
        flight(*argv[2:])
    elif cmd == "hellos" and len(argv) == 3:
        hellos(argv[2])
    elif cmd == "netlog" and len(argv) == 4:
        netlog(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
