#!/usr/bin/env python3
# TCP and UDP echo for the end-to-end tests (test_dns_answers.sh).
#   echo_tools.py serve PORT ADDRESS...  echoes TCP and UDP on PORT of each ADDRESS, until killed
#   echo_tools.py probe ADDRESS PORT     prints "tcp=ok|fail udp=ok|fail": a TCP connection that
#                                        echoes a token back (1.5 s at most), and a UDP datagram
#                                        echoed back (1 s at most)
# Exits 2 on a bad argument. Reads and writes 64 bytes at most per message.
import selectors
import socket
import sys

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


def main():
    try:
        if len(sys.argv) >= 4 and sys.argv[1] == 'serve':
            serve(int(sys.argv[2]), sys.argv[3:])
        elif len(sys.argv) == 4 and sys.argv[1] == 'probe':
            probe(sys.argv[2], int(sys.argv[3]))
        else:
            raise ValueError('usage')
    except ValueError:
        print('usage: echo_tools.py serve PORT ADDRESS... | probe ADDRESS PORT', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
