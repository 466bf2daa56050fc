#!/usr/bin/env python3
"""Independent check of seed 002's DSN-x (section II-A) and DSN-F (section III-B) graph metrics.

Builds both graphs from the paper's text, without netreplay, and prints each one's average shortest
path length and diameter between switches and its number of switch links, to set beside
`netreplay topology dsnf:n=N --json --exact` and `dsn:n=N,x=X` (whose `average_distance` and
`diameter` add the two node links). `--short` also drops DSN-F's level p - 1 shortcuts, the reading
of Fig. 2's `l_u = p - 1` discussed in results/README.md.

    python3 results/seed002_aspl_check.py 1024 9          # DSN-F and DSN-9 on 1,024 switches
"""

import sys
from collections import deque


def metrics(n, edges):
    """(ASPL over distinct pairs, diameter, links) by breadth-first search from every switch."""
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    total, diameter = 0, 0
    for s in range(n):
        dist = [-1] * n
        dist[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        total += sum(dist)
        diameter = max(diameter, max(dist))
    return total / (n * (n - 1)), diameter, len(edges)


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


def dsnf(n, short=False):
    """2^p super-nodes of layers; local rings, Layer_Links, Succ, shortcuts of 2^(p-l) super-nodes."""
    p = 1
    while not p * 2**p <= n < (p + 1) * 2 ** (p + 1):
        p += 1
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
