# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Helpers shared by the bench's Python scripts (report.py, progtime.py,
prefixes.py): the raw data of bench/*.sh is tab-separated text."""
import os
import statistics

# The receivers both tables name alike (report.py's throughput, progtime.py's program
# time), in their order; each script puts its own around them.
RECEIVERS = {
    "bloom-default": "bloomxdp (default layout)",
    "bloom-bits": "bloomxdp, layout bits",
    "bloom-blocked": "bloomxdp, layout blocked",
    "bloom-kernel": "bloomxdp, layout kernel",
    "hash": "BPF hash map (exact)",
    "lpm": "BPF LPM trie (exact, /32)",
}


def read_tsv(path):
    """The rows of a tab-separated file as lists of strings; [] if it is missing."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def med(xs):
    """The median of xs, or NaN for none."""
    return statistics.median(xs) if xs else float("nan")


def read_meta(path):
    """meta.txt of a run ("KEY VALUE" lines) as a dict; {} if it is missing."""
    meta = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                meta[k] = v
    return meta
