#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The section "Prefix lists and load, round two" of bench/results.md, from the
raw data of bench/prefixes.sh (its directory: meta.txt, throughput.tsv,
verify.tsv, load.tsv, status-*.json, load-*.txt). Markdown on stdout."""
import json
import os
import sys

from benchlib import med, read_meta, read_tsv

DESC = {
    "bare": "bare XDP (verdict stamped in the frame, no lookup)",
    "bloom-auto": "bloomxdp, `--store auto`",
    "bloom-intervals": "bloomxdp, `--store intervals` (both families exact)",
    "lpmnet": "BPF LPM trie (IPv4 prefixes)",
    "nft": "nftables, sets with `flags interval`, prerouting priority raw",
    "ipset": "ipset `hash:net` + iptables raw",
}
MIXES = [("all", "all listed"), ("mix30", "30% listed"), ("none", "none listed")]
# Measured before round two: commit d4e4e49 on this machine, 10M hosts, alone (quiet) and
# interleaved run by run with this round's loader while others loaded the machine.
BEFORE = {
    "blocked": "8.3 s quiet, 10.4-11.6 s loaded; 918 MiB",
    "bits": "6.0-8.0 s loaded; 918 MiB",
    "kernel": "14.9-18.8 s loaded (17.5 s in the last make bench); 918 MiB",
}


def main():
    raw = sys.argv[1]
    meta = read_meta(os.path.join(raw, "meta.txt"))
    n4, n6 = meta.get("prefixes", "50000 10000").split()
    rates, per_round, drops = {}, {}, {}
    for _n, rnd, mix, rx, mpps, _gen, _ref in read_tsv(os.path.join(raw, "throughput.tsv")):
        rates.setdefault((rx, mix), []).append(float(mpps))
        per_round[(rnd, mix, rx)] = float(mpps)
    for _n, rx, mix, _p, _d, frac in read_tsv(os.path.join(raw, "verify.tsv")):
        drops[(rx, mix)] = float(frac)
    receivers = [r for r in DESC if any(k[0] == r for k in rates)]

    def ratio(rx, mix):
        rs = [v / per_round[(rnd, m, "bare")] for (rnd, m, r), v in per_round.items()
              if r == rx and m == mix and (rnd, m, "bare") in per_round]
        return med(rs)

    L = []
    w = L.append
    w("## Prefix lists and load, round two")
    w("")
    w("Written by bench/prefixes.sh (part of `make bench`; alone: `bench/prefixes.sh`, "
      "raw data in build/bench/prefixes/), %s, commit %s, kernel %s; load average %s at "
      "the start, %s at the end." % (meta.get("date"), meta.get("commit"),
                                     meta.get("kernel"), meta.get("load_start"),
                                     meta.get("load_end")))
    w("")
    if receivers:
        w("### A prefix list of every length")
        w("")
        w("%s IPv4 and %s IPv6 prefixes (`build/bench/mklists --prefixes`: disjoint, "
          "lengths /8 to /32 and /16 to /128, mostly /24, /22, /23, /21 and /32, and "
          "/48, /32 and /29, as in published country and ASN lists; IPv4 inside "
          "240.0.0.0/4, half of it covered). The same list in every receiver (the LPM "
          "trie: its IPv4 part). IPv4 traffic as in the throughput runs above: listed "
          "frames from inside a random listed prefix, unlisted ones from the rest of "
          "240.0.0.0/4. %s rounds of %s s per receiver and mix, receivers alternating; "
          "Mpps medians, ratios to bare medians of the ratios within a round."
          % (format(int(n4), ","), format(int(n6), ","), meta.get("rounds"),
             meta.get("window")))
        w("")
        w("| receiver | %s | dropped (%s) |" % (
            " | ".join("%s: Mpps (x bare)" % t for _, t in MIXES),
            " / ".join(t for _, t in MIXES)))
        w("|---|---|---|---|---|")
        for rx in receivers:
            cells = []
            for mix, _ in MIXES:
                r = med(rates.get((rx, mix), []))
                cells.append("%.2f (%.2fx)" % (r, ratio(rx, mix)))
            w("| %s | %s | %s |" % (DESC[rx], " | ".join(cells), " / ".join(
                "%.1f%%" % (100 * drops[(rx, m)]) if (rx, m) in drops else "-"
                for m, _ in MIXES)))
        w("")
        for rx in ("bloom-auto", "bloom-intervals"):
            try:
                with open(os.path.join(raw, "status-%s.json" % rx)) as f:
                    st = json.load(f)
            except (OSError, ValueError):
                continue
            store = []
            for fam, key in (("IPv4", "ranges_v4"), ("IPv6", "ranges_v6")):
                n = st.get(key, 0)
                store.append("%s %s" % (fam, "in %s exact intervals" % format(n, ",") if n
                                        else "in the Bloom filter (lengths %s)" %
                                        st.get("prefix_lengths_" + key[-2:], "?")))
            w("- %s: %s; Bloom keys %s, filter %s bytes, intervals %s bytes." % (
                DESC[rx], ", ".join(store), format(st.get("keys", 0), ","),
                format(st.get("bytes", 0), ","), format(st.get("ranges_bytes", 0), ",")))
        w("")
    profiles = sorted(f for f in os.listdir(raw) if f.startswith("perf-p-"))
    if profiles:
        w("Where the receiving CPU spends its time on unlisted frames (perf, cpu-clock, 1 s; "
          "symbols over 1.5%; `bpf_prog_*` is the XDP program itself):")
        for p in profiles:
            w("")
            w("`%s`:" % p[len("perf-p-"):-len(".txt")])
            w("")
            w("```")
            with open(os.path.join(raw, p)) as f:
                for line in f:
                    if line.strip():
                        w(line.rstrip("\n"))
            w("```")
        w("")
    loads = read_tsv(os.path.join(raw, "load.tsv"))
    plist = [r for r in loads if r[0] == "p"]
    if plist:
        w("Loading the prefix list (wall time, peak RSS of the loading process):")
        w("")
        w("| receiver | what | seconds | peak RSS |")
        w("|---|---|---|---|")
        for _n, rx, what, sec, _e, rss in plist:
            w("| %s | %s | %s | %s MiB |" % (DESC.get(rx, rx), what, sec,
                                             int(rss) // 1024 if rss.isdigit() else rss))
        w("")
    hosts = [r for r in loads if r[0] != "p"]
    if hosts:
        n = int(hosts[0][0])
        w("### Load: %s hosts" % format(n, ","))
        w("")
        w("`bloomxdp load` of a list of %s IPv4 addresses (mklists), %s runs per layout, "
          "each replacing the last (read, parse, plan, hash, insert into a new filter, "
          "swap): wall time and the loader's peak RSS (/usr/bin/time). Before: the same "
          "on this machine before round two." % (format(n, ","), meta.get("load_runs")))
        w("")
        w("| layout | seconds, median (min-max) | entries/s | peak RSS | before |")
        w("|---|---|---|---|---|")
        by = {}
        for _n, layout, _what, sec, _e, rss in hosts:
            by.setdefault(layout, []).append((float(sec), int(rss)))
        for layout, v in by.items():
            secs = [s for s, _ in v]
            before = BEFORE.get(layout) if n == 10000000 else None
            w("| %s | %.2f (%.2f-%.2f) | %s | %d MiB | %s |" % (
                layout, med(secs), min(secs), max(secs),
                format(int(n / med(secs)), ","), med([r for _, r in v]) // 1024,
                before or "-"))
        w("")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
