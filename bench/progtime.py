#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The program-time section of bench/run.sh (RAW/progtime.tsv): each
receiver's own XDP program time per packet (bpf_stats) against the floor of
its footprint (rx_floor), and the floor against the table's size. Prints
markdown.

Usage: bench/progtime.py RAW_DIR
"""
import os
import statistics
import sys

MIXES = [("all", "all listed"), ("none", "none listed"), ("mix30", "30% listed")]
DESC = {
    "bare": "bare XDP (no lookup)",
    "bloom-default": "bloomxdp (default layout)",
    "bloom-bits": "bloomxdp, layout bits",
    "bloom-blocked": "bloomxdp, layout blocked",
    "bloom-kernel": "bloomxdp, layout kernel",
    "hash": "BPF hash map (exact)",
    "lpm": "BPF LPM trie (exact, /32)",
    "xdpf": "xdp-filter (xdp-tools), ip --mode src, every feature",
    "xdpf4": "xdp-filter, --features ipv4",
}


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def desc(rx):
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
    return "{:,}".format(n)


def main():
    raw = sys.argv[1]
    ns = {}      # (n, mix, rx) -> {round: ns}
    drop = {}    # (n, mix, rx) -> [packets, dropped]
    order = []
    sizes = []
    for n, rnd, mix, rx, v, _cnt, packets, dropped, _mpps in read_tsv(
            os.path.join(raw, "progtime.tsv")):
        n = int(n)
        if n not in sizes:
            sizes.append(n)
        if rx not in order:
            order.append(rx)
        if float(v) > 0:
            ns.setdefault((n, mix, rx), {})[rnd] = float(v)
        d = drop.setdefault((n, mix, rx), [0, 0])
        d[0] += float(packets)
        d[1] += float(dropped)
    floor_of = {}
    for n, rx, floor, _bytes in read_tsv(os.path.join(raw, "progtime-floors.tsv")):
        floor_of[(int(n), rx)] = floor
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
        w("| receiver | traffic | ns/packet | floor ns/packet | ratio to floor | dropped |")
        w("|---|---|---|---|---|---|")
        for rx in order:
            if rx.startswith("floor-"):
                continue
            fl = floor_of.get((n, rx), "")
            for mix, title in MIXES:
                v = ns.get((n, mix, rx))
                if not v:
                    continue
                xs = list(v.values())
                f = ns.get((n, mix, fl), {})
                rs = [v[r] / f[r] for r in v if r in f and f[r] > 0]
                d = drop.get((n, mix, rx), [0, 0])
                w("| %s | %s | %.1f (%.1f-%.1f) | %s | %s | %.2f%% |" % (
                    desc(rx), title, statistics.median(xs), min(xs), max(xs),
                    "%.1f" % statistics.median(f.values()) if f else "-",
                    "%.2fx (%.2f-%.2f)" % (statistics.median(rs), min(rs), max(rs))
                    if rs else "-", 100 * d[1] / d[0] if d[0] else 0))
        w("")
    floors = sorted({(n, rx) for (n, _m, rx) in ns if rx.startswith("floor-")},
                    key=lambda k: (k[0], int(k[1][6:])))
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
