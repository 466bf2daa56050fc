#!/usr/bin/env python3
"""Seed 002 Fig. 5/6: every reading of DSN (section II-A) and DSN-F (section III-B) against the paper.

The paper says DSN-F's diameter and average shortest path length (ASPL) are "at most 16.7% and 4.6%
lower than those of DSN" at the same number of switches. This script builds each reading of the two
definitions listed in the constants below, measures both graphs at 2^7..2^12 switches (the sizes of
the paper's Fig. 7) with `seed002_aspl_check.metrics`, and prints, per pair of readings and per way of
measuring, the largest gaps over those sizes, `100 (DSN - DSN-F) / DSN`, then the combinations that
match the paper's pair and the nearest ones. `--table` prints the per-size values of every reading
instead; `--sizes 5-13` changes the sizes (powers of two). Pure Python, a few seconds on one core.
results/README.md ("Seed 002 Fig. 6") discusses the output: the only DSN that matches the paper's pair
against the text's DSN-F is ("ceil-1", "p", "floor-cw" or "ceil-cw", "complete"), a DSN of average
degree 4 whose p is one below section II-A's.

    python3 results/seed002_aspl_readings.py            # summary of every combination
    python3 results/seed002_aspl_readings.py --table    # per-size values of every reading
"""

import math
import sys
from itertools import product

from seed002_aspl_check import metrics, p_dsnf

# DSN (section II-A). The text's reading is ("ceil", "p-1", "floor-cw", "all").
# p = ceil(log2 n) (the text), one more (floor(log2 n) + 1 at 2^k) or one less (denser at 2^k: the
# shortest shortcuts of p = ceil(log2 n) are shorter than a super-node and mostly wasted)
DSN_P = {"ceil": 0, "ceil+1": 1, "ceil-1": -1}
DSN_X = ("p-1", "p")  # x = p - 1 is the largest x allowed; x = p wraps level p's shortcut to level 1
DSN_TARGET = ("floor-cw", "ceil-cw", "nearest", "at-most")
DSN_SOURCES = ("all", "complete", "complete-both")
# DSN-F (section III-B). The text's reading is ("packed", "path", "all").
DSNF_LAYERS = ("packed", "spread")
DSNF_PARTIAL = ("path", "ring")
DSNF_SHORTCUTS = ("all", "short")
DSNF_P = ("text", "grown")
# How the paper may measure: between switches, between hosts (h per switch, two node links more).
MEASURES = ("switches", "hosts-1", "hosts-4")


def dsn_variant(n, p_mode, x_mode, target, sources):
    """DSN-x (section II-A) under one reading; ("ceil", "p-1", "floor-cw", "all") is the text's.

    target: the level l + 1 node nearest clockwise at distance >= floor(n / 2^l) ("floor-cw", the
    text), >= ceil(n / 2^l) ("ceil-cw"), nearest to i + n / 2^l on either side ("nearest"), or the
    farthest clockwise at distance <= n / 2^l ("at-most"). sources: every node of level <= x ("all"),
    only nodes of complete super-nodes ("complete"), or those and only to such nodes ("complete-both").
    """
    p = (n - 1).bit_length() + DSN_P[p_mode]
    x = p - 1 if x_mode == "p-1" else p
    complete = n // p * p
    edges = {tuple(sorted((i, (i + 1) % n))) for i in range(n)}
    for i in range(n):
        level = i % p + 1
        if level > x or (sources != "all" and i >= complete):
            continue
        want = level % p + 1

        def ok(j):
            return j % p + 1 == want and (sources != "complete-both" or j < complete)

        span = n / 2**level
        if target in ("floor-cw", "ceil-cw"):
            start = math.floor(span) if target == "floor-cw" else math.ceil(span)
            ds = range(max(start, 1), n)
        elif target == "at-most":
            ds = range(int(span), 0, -1)
        else:
            window = range(max(int(span) - p - 1, 1), min(int(span) + p + 2, n))
            ds = sorted(window, key=lambda d: (abs(d - span), d))
        j = next(((i + d) % n for d in ds if ok((i + d) % n)), None)
        if j is not None and j != i:
            edges.add(tuple(sorted((i, j))))
    return edges


def dsnf_variant(n, layers, partial, shortcuts, p_mode="text"):
    """DSN-F (section III-B) under one reading; ("packed", "path", "all", "text") is the text's.

    layers: node i of layer k >= 1 in super-node (i / p) mod 2^p ("packed", the text's labelling), or
    dealt round-robin to the super-nodes ("spread", so that every super-node grows alike, as the
    transformation of section III-D assumes: all of them reach 2p + 2 nodes together; so does section
    IV-A: "each original super-node set also grows twice as large"). partial: a
    group of m < p nodes of one layer and super-node is a path ("path") or closes into a ring
    ("ring"). shortcuts: every level below p ("all", the text) or below p - 1 ("short"). p_mode:
    section III-B's p ("text"), or that of the network grown to n before its transformation to
    p + 1 ("grown": p 2^p <= n <= (p + 1) 2^(p + 1); differs from the text only when n is exactly
    (p + 1) 2^(p + 1), 2,048 here, the end point of Fig. 4's growth from 1,024).
    """
    p = p_dsnf(n)
    if p_mode == "grown" and p * 2**p == n:
        p -= 1
    supers, per_layer = 2**p, p * 2**p

    def label(i):
        if layers == "packed" or i < per_layer:
            return i % p + 1, i // per_layer, (i // p) % supers
        j = i - per_layer
        pos = j // supers
        return pos % p + 1, 1 + pos // p, j % supers

    where = {label(i): i for i in range(n)}
    edges = set()
    for i in range(n):
        level, layer, s = label(i)
        group = [where[(m, layer, s)] for m in range(1, p + 1) if (m, layer, s) in where]
        if level < p and (level + 1, layer, s) in where:
            edges.add(tuple(sorted((i, where[(level + 1, layer, s)]))))
        if level == 1 and len(group) > 2 and (len(group) == p or partial == "ring"):
            edges.add(tuple(sorted((i, group[-1]))))
        if layer >= 1:
            edges.add(tuple(sorted((i, where[(level, layer - 1, s)]))))
        if layer == 0:
            if level == p:
                edges.add(tuple(sorted((i, where[(1, 0, (s + 1) % supers)]))))
            elif level < (p - 1 if shortcuts == "short" else p):
                edges.add(tuple(sorted((i, where[(level + 1, 0, (s + 2 ** (p - level)) % supers)]))))
    return edges


def gap(dsn, dsnf):
    """How much lower DSN-F is than DSN, in percent of DSN (the paper's "at most 16.7% lower")."""
    return 100 * (dsn - dsnf) / dsn


def main():
    args = sys.argv[1:]
    lo, hi = 7, 12
    if "--sizes" in args:
        lo, hi = map(int, args[args.index("--sizes") + 1].split("-"))
    sizes = [2**k for k in range(lo, hi + 1)]
    dsns = {r: [metrics(n, dsn_variant(n, *r))[:2] for n in sizes]
            for r in product(DSN_P, DSN_X, DSN_TARGET, DSN_SOURCES)}
    dsnfs = {r: [metrics(n, dsnf_variant(n, *r))[:2] for n in sizes]
             for r in product(DSNF_LAYERS, DSNF_PARTIAL, DSNF_SHORTCUTS, DSNF_P)}
    if "--table" in args:
        for name, table in (("dsn", dsns), ("dsnf", dsnfs)):
            for r, row in table.items():
                cells = "  ".join(f"{a:.3f}/{d}" for a, d in row)
                print(f"{name:4} {','.join(r):34} {cells}")
        return
    print("sizes", sizes)
    print("dsn reading | dsnf reading | measure | max ASPL gap % | max diameter gap % | ASPL gaps per size")
    rows = []
    for (rd, row_d), (rf, row_f), m in product(dsns.items(), dsnfs.items(), MEASURES):
        pairs = [(measured(n, a, d, m), measured(n, af, df, m))
                 for n, (a, d), (af, df) in zip(sizes, row_d, row_f)]
        ag = [gap(x[0], y[0]) for x, y in pairs]
        dg = [gap(x[1], y[1]) for x, y in pairs]
        rows.append((max(ag), max(dg), f"{','.join(rd)} | {','.join(rf)} | {m} | {max(ag):.1f} | "
                     f"{max(dg):.1f} | " + " ".join(f"{g:.1f}" for g in ag)))
    for *_, line in rows:
        print(line)
    # The paper's pair: ASPL at most 4.6% lower (within half a point), diameter at most 16.7% (2/12).
    hits = [r for r in rows if abs(r[0] - 4.6) <= 0.5 and abs(r[1] - 100 / 6) < 0.1]
    print(f"\n{len(rows)} combinations; {len(hits)} with max ASPL gap 4.1..5.1% and max diameter gap 16.7%")
    for *_, line in hits:
        print(line)
    print("nearest (by (ASPL gap - 4.6)^2 + ((diameter gap - 16.7) / 2)^2):")
    for *_, line in sorted(rows, key=lambda r: (r[0] - 4.6) ** 2 + ((r[1] - 100 / 6) / 2) ** 2)[:8]:
        print(line)


def measured(n, aspl, diameter, measure):
    """(ASPL, diameter) between switches, or between h hosts on every switch: two node links more on
    every path, and h (h - 1) ordered pairs per switch at distance 2."""
    if measure == "switches":
        return aspl, diameter
    h = int(measure.split("-")[1])
    total = (aspl + 2) * n * (n - 1) * h * h + 2 * n * h * (h - 1)
    return total / (n * h * (n * h - 1)), diameter + 2


if __name__ == "__main__":
    main()
