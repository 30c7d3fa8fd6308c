#!/usr/bin/env python3
# Helper of tests/e2e/test_suffixes.sh: a synthetic phishing list, the names
# under every public suffix, and a DNS client that tells which queries go
# unanswered. Standard library only.
"""usage:
  suffixes.py list N SEED PSL          N phishing-like names, none a public suffix
  suffixes.py names PSL                one SUFFIX a line: explicit ASCII rules whose
                                       every parent is a rule or a TLD
  suffixes.py dig SERVER NAMES_FILE    queries each name (A); prints those never answered
"""
import random
import socket
import struct
import sys
import time


def rules(psl):
    """The explicit, wildcard and exception rules of a Public Suffix List file."""
    plain, other = set(), set()
    with open(psl, encoding="utf-8") as f:
        for line in f:
            rule = line.split()[0] if line.split() else ""
            if not rule or rule.startswith("//"):
                continue
            rule = rule.lower()
            if rule[0] in "*!":
                other.add(rule.lstrip("*.!"))
            else:
                plain.add(rule)
    return plain, other


def names(psl):
    plain, other = rules(psl)
    out = []
    for s in sorted(plain):
        if not s.isascii() or s in other:
            continue
        labels = s.split(".")
        # Every parent a rule or a TLD: any hit on the name S is at a public suffix.
        if all(".".join(labels[i:]) in plain or i == len(labels) - 1
               for i in range(1, len(labels))):
            out.append(s)
    print("\n".join(out))


WORDS = ["secure", "login", "verify", "account", "update", "paypal", "bank", "apple",
         "support", "signin", "wallet", "office365", "billing", "auth", "service"]
SUFFIXES = ["com", "com", "com", "net", "org", "info", "xyz", "top", "ru", "de", "io",
            "co.uk", "com.br", "web.app", "github.io", "blogspot.com", "000webhostapp.com",
            "online", "site", "shop", "tk", "ml", "cn", "in", "pl"]


def phishing_list(n, seed, psl):
    plain, other = rules(psl)
    rnd = random.Random(seed)
    seen = set()
    while len(seen) < n:
        host = "%s-%s%d" % (rnd.choice(WORDS), rnd.choice(WORDS), rnd.randrange(100000))
        name = "%s.%s" % (host, rnd.choice(SUFFIXES))
        for _ in range(rnd.choice([0, 0, 1, 1, 2])):
            name = "%s%d.%s" % (rnd.choice(WORDS), rnd.randrange(100), name)
        if name not in plain and name.split(".", 1)[1] not in other:
            seen.add(name)
    print("\n".join(sorted(seen)))


def query(qid, name):
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack(">HH", 1, 1)


def dig(server, path):
    """Sends every query, reads the answers; unanswered ones twice more."""
    with open(path, encoding="ascii") as f:
        todo = [line.strip() for line in f if line.strip()]
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.setblocking(False)
    for _ in range(3):
        answered = set()

        def drain():
            while True:
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    return
                if len(data) >= 2:
                    answered.add(struct.unpack(">H", data[:2])[0])
        for i, name in enumerate(todo):
            s.sendto(query(i, name), (server, 53))
            if i % 64 == 63:
                time.sleep(0.002)
                drain()
        deadline = time.time() + 2
        while time.time() < deadline:
            drain()
            time.sleep(0.05)
        todo = [name for i, name in enumerate(todo) if i not in answered]
        if not todo:
            break
    print("\n".join(todo))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "list":
        phishing_list(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "names":
        names(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "dig":
        dig(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
