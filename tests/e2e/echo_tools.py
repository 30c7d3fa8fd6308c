#!/usr/bin/env python3
# TCP and UDP echo, and DNS responses' checksums, for the end-to-end tests (test_dns_answers.sh).
#   echo_tools.py serve PORT ADDRESS...  echoes TCP and UDP on PORT of each ADDRESS, until killed
#   echo_tools.py probe ADDRESS PORT     prints "tcp=ok|fail udp=ok|fail": a TCP connection that
#                                        echoes a token back (1.5 s at most), and a UDP datagram
#                                        echoed back (1 s at most)
#   echo_tools.py sums IFNAME SECONDS    captures (AF_PACKET) the UDP datagrams from port 53 that
#                                        IFNAME receives for SECONDS: one line each, "v4|v6 rcode=N
#                                        an=N ns=N ar=N len=ok|bad ip=ok|bad udp=ok|bad|none" (the
#                                        IP and UDP lengths, the IPv4 header and UDP checksums)
# Exits 2 on a bad argument. Reads and writes 64 bytes at most per message.
import selectors
import socket
import struct
import sys
import time

TOKEN = b'bloomxdp-echo'


def family(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET


def serve(port, addrs):
    sel = selectors.DefaultSelector()
    for a in addrs:
        t = socket.socket(family(a), socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((a, port))
        t.listen(16)
        sel.register(t, selectors.EVENT_READ, 'tcp')
        u = socket.socket(family(a), socket.SOCK_DGRAM)
        u.bind((a, port))
        sel.register(u, selectors.EVENT_READ, 'udp')
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if key.data == 'udp':
                data, peer = s.recvfrom(64)
                s.sendto(data, peer)
                continue
            c, _ = s.accept()
            c.settimeout(1)
            try:
                c.sendall(c.recv(64))
            except OSError:
                pass
            c.close()


def probe(addr, port):
    tcp = udp = 'fail'
    try:
        with socket.create_connection((addr, port), timeout=1.5) as c:
            c.sendall(TOKEN)
            if c.recv(64) == TOKEN:
                tcp = 'ok'
    except OSError:
        pass
    with socket.socket(family(addr), socket.SOCK_DGRAM) as u:
        u.settimeout(1)
        try:
            u.sendto(TOKEN, (addr, port))
            if u.recvfrom(64)[0] == TOKEN:
                udp = 'ok'
        except OSError:
            pass
    print('tcp=%s udp=%s' % (tcp, udp))


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def udp_line(frame):
    """The line of a frame holding a UDP datagram from port 53, else None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20 and ip[9] == 17:
        ihl = (ip[0] & 15) * 4
        total = struct.unpack('!H', ip[2:4])[0]
        udp = ip[ihl:total]
        pseudo = ip[12:20] + struct.pack('!BBH', 0, 17, len(udp))
        fam, ip_ok = 'v4', csum(ip[:ihl]) == 0xffff
        len_ok = total <= len(ip)
    elif etype == 0x86dd and len(ip) >= 40 and ip[6] == 17:
        plen = struct.unpack('!H', ip[4:6])[0]
        udp = ip[40:40 + plen]
        pseudo = ip[8:40] + struct.pack('!IxxxB', len(udp), 17)
        fam, ip_ok = 'v6', True
        len_ok = 40 + plen <= len(ip)
    else:
        return None
    if len(udp) < 20 or struct.unpack('!H', udp[0:2])[0] != 53:
        return None
    len_ok = len_ok and struct.unpack('!H', udp[4:6])[0] == len(udp)
    if fam == 'v4' and udp[6:8] == b'\0\0':
        udp_ok = 'none'
    else:
        udp_ok = 'ok' if csum(pseudo + udp) == 0xffff else 'bad'
    an, ns, ar = struct.unpack('!HHH', udp[14:20])
    return '%s rcode=%d an=%d ns=%d ar=%d len=%s ip=%s udp=%s' % (
        fam, udp[11] & 15, an, ns, ar, 'ok' if len_ok else 'bad', 'ok' if ip_ok else 'bad',
        udp_ok)


def sums(ifname, secs):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((ifname, 0))
    end = time.monotonic() + secs
    print('capturing', flush=True)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        s.settimeout(left)
        try:
            frame, addr = s.recvfrom(4096)
        except socket.timeout:
            return
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        line = udp_line(frame)
        if line:
            print(line, flush=True)


def main():
    try:
        if len(sys.argv) >= 4 and sys.argv[1] == 'serve':
            serve(int(sys.argv[2]), sys.argv[3:])
        elif len(sys.argv) == 4 and sys.argv[1] == 'probe':
            probe(sys.argv[2], int(sys.argv[3]))
        elif len(sys.argv) == 4 and sys.argv[1] == 'sums':
            sums(sys.argv[2], float(sys.argv[3]))
        else:
            raise ValueError('usage')
    except ValueError:
        print('usage: echo_tools.py serve PORT ADDRESS... | probe ADDRESS PORT | '
              'sums IFNAME SECONDS', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
