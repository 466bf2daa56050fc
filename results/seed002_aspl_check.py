#!/usr/bin/env python3
"""Independent check of seed 002's DSN-x (section II-A) and DSN-F (section III-B) graph metrics.

Builds both graphs from the paper's text, without netreplay, and prints each one's average shortest
path length and diameter between switches and its number of switch links, to set beside
`netreplay topology dsnf:n=N --json --exact` and `dsn:n=N,x=X` (whose `average_distance` and
`diameter` add the two node links). `--short` also drops DSN-F's level p - 1 shortcuts, the reading
of Fig. 2's `l_u = p - 1` discussed in results/README.md. seed002_aspl_readings.py builds the other
readings of both definitions on these metrics.

    python3 results/seed002_aspl_check.py 1024 9          # DSN-F and DSN-9 on 1,024 switches
"""

import sys


def metrics(n, edges):
    """(ASPL over distinct pairs, diameter, links) by breadth-first search from every switch at once.

    reach[v] is the set of switches within d hops of v, as a bit mask; one round widens every set by
    one hop, and the sum of distances adds, per round, the pairs still out of reach.
    """
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    reach = [1 << v for v in range(n)]
    total, diameter, unreached = 0, 0, n * (n - 1)
    while unreached:
        if diameter == n:
            raise ValueError("disconnected graph")
        total += unreached
        diameter += 1
        reach = [r | _union(reach, adj[v]) for v, r in enumerate(reach)]
        unreached = n * n - sum(r.bit_count() for r in reach)
    return total / (n * (n - 1)), diameter, len(edges)


def _union(reach, neighbours):
    out = 0
    for u in neighbours:
        out |= reach[u]
    return out


def dsn(n, x):
    """Ring; level l = i mod p + 1; a level l <= x shortcut to the nearest level l + 1 at least n/2^l on."""
    p = (n - 1).bit_length()
    edges = set()
    for i in range(n):
        edges.add(tuple(sorted((i, (i + 1) % n))))
        level = i % p + 1
        if level <= x:
            for d in range(n >> level, n):
                j = (i + d) % n
                if j % p + 1 == level + 1:
                    if j != i:
                        edges.add(tuple(sorted((i, j))))
                    break
    return edges


def p_dsnf(n):
    """Section III-B's p: the integer with p 2^p <= n < (p + 1) 2^(p + 1)."""
    p = 1
    while not p * 2**p <= n < (p + 1) * 2 ** (p + 1):
        p += 1
    return p


def dsnf(n, short=False):
    """2^p super-nodes of layers; local rings, Layer_Links, Succ, shortcuts of 2^(p-l) super-nodes."""
    p = p_dsnf(n)
    per_layer, supers = p * 2**p, 2**p

    def node(level, layer, s):
        i = layer * per_layer + s * p + level - 1
        return i if i < n else None

    edges = set()
    for i in range(n):
        level, layer, s = i % p + 1, i // per_layer, (i // p) % supers
        succ = node(level % p + 1, layer, s)
        # A partly filled group is a path: its wrap-around closes when the group is full.
        if succ is not None and succ != i and (level < p or node(p, layer, s) is not None):
            edges.add(tuple(sorted((i, succ))))
        if layer >= 1:
            edges.add(tuple(sorted((i, node(level, layer - 1, s)))))
        if layer == 0:
            if level == p:
                edges.add(tuple(sorted((i, node(1, 0, (s + 1) % supers)))))
            elif level < (p - 1 if short else p):
                edges.add(tuple(sorted((i, node(level + 1, 0, (s + 2 ** (p - level)) % supers)))))
    return edges


def main():
    args = [a for a in sys.argv[1:] if a != "--short"]
    if not args:
        sys.exit(__doc__)
    n = int(args[0])
    print("dsnf", metrics(n, dsnf(n, "--short" in sys.argv)))
    for x in args[1:]:
        print(f"dsn x={x}", metrics(n, dsn(n, int(x))))


if __name__ == "__main__":
    main()
