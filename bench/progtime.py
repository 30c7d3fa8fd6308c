#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The program-time tables of the bench (RAW/progtime.tsv, written by
bench/run.sh's pt_slot and pt_record): each receiver's own program time per
packet (bpf_stats) against the floor of its footprint (rx_floor,
RAW/progtime-floors.tsv), and the floor against the table's size. Prints
markdown.

Usage: bench/progtime.py RAW_DIR            the section of bench/run.sh
       bench/progtime.py RAW_DIR TITLE      a table of another script
                                            (hooks.sh, lists.sh, ...), "### TITLE"
"""
import os
import statistics
import sys

from benchlib import RECEIVERS, read_tsv

MIX_TITLE = {
    "all": "all listed", "none": "none listed", "mix30": "30% listed",
    "unlisted-3": "DNS, unlisted zone, 3 labels", "unlisted-5": "DNS, unlisted zone, 5 labels",
    "listed-3": "DNS, listed zone, 3 labels", "listed-5": "DNS, listed zone, 5 labels",
    "tls-3": "TLS ClientHello, SNI of 3 labels, unlisted",
    "http-3": "HTTP request, Host of 3 labels, unlisted",
    "answers": "DNS response: CNAME + 3 A, none listed",
    "unlisted": "QUIC Initials, unlisted SNI", "repeated": "one QUIC Initial again",
    "listed": "QUIC Initials, listed SNI", "other-port": "Initials to port 4443",
}
DESC = {
    "bare": "bare XDP (no lookup)",
    **RECEIVERS,
    "xdpf": "xdp-filter (xdp-tools), ip --mode src, every feature",
    "xdpf4": "xdp-filter, --features ipv4",
    "xdp": "bloomxdp, XDP ingress (sender: build/bench/tx)",
    "tc": "bloomxdp, tc ingress (tcx; sender: build/bench/tx)",
    "egress": "bloomxdp, tc egress (tcx; sender: build/bench/tx)",
    "xdp-live": "bloomxdp, XDP ingress, live frames",
    "tc-live": "bloomxdp, tc ingress (tcx), live frames",
    "one": "bloomxdp, the default list",
    "lists1": "bloomxdp, 1 named list",
    "lists4": "bloomxdp, 4 named lists",
    "lists16": "bloomxdp, 16 named lists",
    "bloom-auto": "bloomxdp, prefix list, `--store auto`",
    "bloom-intervals": "bloomxdp, prefix list, `--store intervals`",
    "lpmnet": "BPF LPM trie (IPv4 prefixes)",
    "names": "bloomxdp `--match dns`",
    "names-tls": "bloomxdp `--match sni`",
    "names-http": "bloomxdp `--match http`",
    "answers": "bloomxdp `--match dns-answers`",
}


def desc(rx):
    if rx.startswith("quic-"):
        return "bloomxdp `--match sni`, %s (sender: build/bench/tx udp)" % rx[5:]
    if rx.endswith("-alt"):
        return DESC.get(rx[:-4], rx[:-4]) + ", the other build (BENCH_BLOOMXDP_ALT)"
    if rx.endswith("-ev0"):
        return DESC.get(rx[:-4], rx[:-4]) + ", no drop events"
    if rx.startswith("floor-"):
        return "floor, %s table" % size(int(rx[6:]))
    return DESC.get(rx, rx)


def size(b):
    return "%.2f MB" % (b / 1e6) if b >= 100000 else "%.1f KB" % (b / 1e3)


def fmt_n(n):
    return "{:,}".format(int(n)) if str(n).isdigit() else str(n)


def read(raw):
    """progtime.tsv and progtime-floors.tsv of RAW: ns[(n, mix, rx)] = {round: ns},
    drop[(n, mix, rx)] = [packets, dropped], receivers, mixes and sizes in order, and
    floor_of[(n, rx)]."""
    ns, drop, order, mixes, sizes = {}, {}, [], [], []
    for n, rnd, mix, rx, v, _cnt, packets, dropped, _mpps in read_tsv(
            os.path.join(raw, "progtime.tsv")):
        for x, xs in ((n, sizes), (rx, order), (mix, mixes)):
            if x not in xs:
                xs.append(x)
        if float(v) > 0:
            ns.setdefault((n, mix, rx), {})[rnd] = float(v)
        d = drop.setdefault((n, mix, rx), [0, 0])
        d[0] += float(packets)
        d[1] += float(dropped)
    floor_of = {}
    for n, rx, floor, _bytes in read_tsv(os.path.join(raw, "progtime-floors.tsv")):
        floor_of[(n, rx)] = floor
    return ns, drop, order, mixes, sizes, floor_of


def table(w, data, n):
    """The table of size n: receiver, traffic, ns, its floor, the ratio, drops."""
    ns, drop, order, mixes, _sizes, floor_of = data
    w("| receiver | traffic | ns/packet | floor (table) | floor ns/packet | ratio to floor "
      "| dropped |")
    w("|---|---|---|---|---|---|---|")
    for rx in order:
        if rx.startswith("floor-"):
            continue
        fl = floor_of.get((n, rx), "")
        for mix in mixes:
            v = ns.get((n, mix, rx))
            if not v:
                continue
            xs = list(v.values())
            f = ns.get((n, mix, fl), {})
            rs = [v[r] / f[r] for r in v if r in f and f[r] > 0]
            d = drop.get((n, mix, rx), [0, 0])
            w("| %s | %s | %.1f (%.1f-%.1f) | %s | %s | %s | %.2f%% |" % (
                desc(rx), MIX_TITLE.get(mix, mix), statistics.median(xs), min(xs), max(xs),
                size(int(fl[6:])) if fl.startswith("floor-") else "-",
                "%.1f" % statistics.median(f.values()) if f else "-",
                "%.2fx (%.2f-%.2f)" % (statistics.median(rs), min(rs), max(rs))
                if rs else "-", 100 * d[1] / d[0] if d[0] else 0))
    w("")


def titled(title, data):
    """A table of another script's path, under ### TITLE."""
    out = []
    w = out.append
    w("### %s" % title)
    w("")
    w("Program time per packet from bpf_stats (delta run_time_ns / delta run_cnt of the "
      "program over a window), beside the floor of the same footprint (rx_floor: one "
      "random 64-byte line of an array of the same bytes, under bench/gen's live frames, "
      "in the same rounds); ratio: median of the per-round ratios, same round and "
      "traffic. ns: median (min-max) of rounds.")
    w("")
    for n in data[4]:
        if len(data[4]) > 1:
            w("#### %s entries" % fmt_n(n))
            w("")
        table(w, data, n)
    return out


def main():
    raw = sys.argv[1]
    data = read(raw)
    ns, sizes = data[0], data[4]
    if len(sys.argv) > 2:
        print("\n".join(titled(sys.argv[2], data)))
        return
    out = []
    w = out.append
    w("## Program time against the floor")
    w("")
    w("Each receiver's own XDP program time per packet, from the kernel's bpf_stats "
      "(kernel.bpf_stats_enabled=1; delta run_time_ns / delta run_cnt around a window of "
      "live frames at that receiver alone), rounds alternating receivers and mixes. The "
      "floor (bench/receivers.bpf.c, rx_floor) reads the source address, hashes it and "
      "reads one 64-byte line of a BPF array as large as the receiver's live filter: the "
      "one cache line a lookup cannot avoid. Receivers without a footprint of their own are "
      "set against the default bloomxdp's floor. Ratio: median of the per-round ratios "
      "to the floor (in the same round and mix). ns: median (min-max) over rounds.")
    w("")
    for n in sizes:
        w("### %s entries" % fmt_n(n))
        w("")
        table(w, data, n)
    floors = sorted({(n, rx) for (n, _m, rx) in ns if rx.startswith("floor-")},
                    key=lambda k: (sizes.index(k[0]), int(k[1][6:])))
    if floors:
        w("### The floor against the table's size")
        w("")
        w("| entries (run) | table | all listed, ns/packet | none listed, ns/packet |")
        w("|---|---|---|---|")
        for n, rx in floors:
            cells = []
            for mix in ("all", "none"):
                xs = list(ns.get((n, mix, rx), {}).values())
                cells.append("%.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs))
                             if xs else "-")
            w("| %s | %s | %s |" % (fmt_n(n), size(int(rx[6:])), " | ".join(cells)))
        w("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
