#!/usr/bin/env python3
"""Seed 004's Tables 4 and 5 from campaign results, next to the paper's values.

    python3 results/seed004_tables.py results/seed004-same-size-fsin [results/seed004-same-size ...]
    python3 results/seed004_tables.py --table5a-only results/seed004-table5a-fsin-default

Reads each directory's results.jsonl (runs of configs/seed004-same-size.toml, seed004-radix12.toml or
seed004-table5a-fsin-default.toml) and prints, per directory, the tables the paper gives for that set:
  - same-size set: Table 4a (every pattern and size weighs 1) and Table 5a (BU and BT only);
  - radix-12 set: Table 4b (CN and U costs) and Table 5b (100 KB only, U costs).
Σ is the sum of relative times (completion time / reference network's) over the weighted cells, φ the
normalised performance (reference Σ / Σ), performance/cost φ divided by the normalised cost per node
(seed 004 §5.2-5.3; costs per node from the paper's Table 3). A cell missing from the results (run not
done yet) is left out of every network's Σ alike, and the table says how many cells it covers.
Writes nothing; standard library only.
"""

import json
import os
import sys

PATTERNS = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"]
SIZES = [10, 100, 1000, 10000, 100000]

# Seed 004, Tables 3-5 (Σ, normalised φ, cost per node, performance/cost), in the papers' column order.
SAME_SIZE = {
    "networks": ["8,4-fat-tree", "8:4,4-thin-tree", "8:2,4-thin-tree", "8:4,8-slender-tree",
                 "8:2,5-slender-tree"],
    "cost": [3413, 1023, 564, 1087, 566],
    "4a": {"sigma": [35.00, 46.95, 131.66, 91.17, 243.85], "phi": [1.00, 0.75, 0.27, 0.38, 0.14],
           "perf_cost": [1.00, 2.49, 1.61, 1.21, 0.87]},
    "5a": {"sigma": [10.00, 17.00, 67.43, 56.29, 160.82], "phi": [1.00, 0.59, 0.15, 0.18, 0.06],
           "perf_cost": [1.00, 1.96, 0.90, 0.56, 0.38]},
}
RADIX12 = {
    "networks": ["6,5-fat-tree", "8:4,4-thin-tree", "9:3,4-thin-tree", "8:4,8-slender-tree",
                 "9:3,6-slender-tree"],
    "cost_cn": [3387, 1023, 743, 1087, 751],
    "cost_u": [4080, 1023, 765, 1087, 762],
    "4b": {"sigma": [35.00, 34.17, 55.74, 55.77, 100.10], "phi": [1.00, 1.02, 0.63, 0.63, 0.35],
           "perf_cost_cn": [1.00, 3.39, 2.86, 1.96, 1.58], "perf_cost_u": [1.00, 4.09, 3.35, 2.36, 1.87]},
    "5b": {"sigma": [7.00, 6.39, 10.58, 9.47, 15.19], "phi": [1.00, 1.09, 0.66, 0.74, 0.46],
           "perf_cost_u": [1.00, 4.37, 3.53, 2.77, 2.47]},
}


def load(directory):
    """(label, pattern, size) -> completion cycles."""
    runs = {}
    with open(os.path.join(directory, "results.jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a torn last line (killed campaign)
            r = json.loads(line)
            runs[(r["label"], r["workload"], r["size"])] = r["completion_cycles"]
    return runs


def table(runs, networks, cells, paper, costs):
    """Rows of Σ, φ and performance/cost for `cells` ((pattern, size) pairs weighing 1) present for
    every network, next to the paper's."""
    have = [c for c in cells if all((n, c[0], c[1]) in runs for n in networks)]
    if not have:
        return f"cells: 0 of {len(cells)} done for every network"
    ref = networks[0]
    sigma = [sum(runs[(n, p, s)] / runs[(ref, p, s)] for p, s in have) for n in networks]
    phi = [sigma[0] / x for x in sigma]
    lines = [f"cells: {len(have)} of {len(cells)}" + ("" if len(have) == len(cells) else
             " (missing: " + ", ".join(f"{p} {s}" for p, s in cells if (p, s) not in have) + ")"),
             "", "| | " + " | ".join(networks) + " |", "|---|" + "---:|" * len(networks)]

    def row(name, ours, theirs, fmt):
        cells_ = [f"{fmt(o)} ({fmt(t)})" for o, t in zip(ours, theirs)]
        lines.append(f"| {name}, netreplay (paper) | " + " | ".join(cells_) + " |")

    row("Σ relative time", sigma, paper["sigma"], lambda x: f"{x:.2f}")
    row("normalised φ", phi, paper["phi"], lambda x: f"{x:.2f}")
    for name, cost in costs:
        norm = [c / cost[0] for c in cost]
        row(f"perf./cost{name}", [f / c for f, c in zip(phi, norm)],
            paper["perf_cost" + name.replace("-", "_").lower()], lambda x: f"{x:.2f}")
    return "\n".join(lines)


def relative(runs, networks, patterns):
    """Per-cell relative times of the weighted patterns, as a markdown table."""
    ref = networks[0]
    lines = ["| pattern | size | " + " | ".join(networks[1:]) + " |", "|---|---:|" + "---:|" * (len(networks) - 1)]
    for p in patterns:
        for s in SIZES:
            vals = [runs.get((n, p, s)) for n in networks]
            if vals[0] is None:
                continue
            cells = ["-" if v is None else f"{v / vals[0]:.2f}" for v in vals[1:]]
            lines.append(f"| {p} | {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(args):
    only_5a = "--table5a-only" in args
    for directory in [a for a in args if not a.startswith("--")]:
        runs = load(directory)
        labels = {k[0] for k in runs}
        print(f"# {directory}\n")
        if "6,5-fat-tree" in labels:
            nets = RADIX12["networks"]
            all_cells = [(p, s) for p in PATTERNS for s in SIZES]
            print("## Table 4b (all patterns and sizes)\n")
            print(table(runs, nets, all_cells, RADIX12["4b"],
                        [("-CN", RADIX12["cost_cn"]), ("-U", RADIX12["cost_u"])]))
            print("\n## Table 5b (100 KB only, used resources)\n")
            print(table(runs, nets, [(p, 100000) for p in PATTERNS], RADIX12["5b"],
                        [("-U", RADIX12["cost_u"])]))
        else:
            nets = [n for n in SAME_SIZE["networks"] if n in labels]
            cost = [c for n, c in zip(SAME_SIZE["networks"], SAME_SIZE["cost"]) if n in labels]
            pick = lambda key: {k: [v for n, v in zip(SAME_SIZE["networks"], vals) if n in labels]
                                for k, vals in SAME_SIZE[key].items()}
            if not only_5a:
                print("## Table 4a (all patterns and sizes)\n")
                print(table(runs, nets, [(p, s) for p in PATTERNS for s in SIZES], pick("4a"), [("", cost)]))
                print()
            print("## Table 5a (BU and BT, every size)\n")
            print(table(runs, nets, [(p, s) for p in ("bu", "bt") for s in SIZES], pick("5a"), [("", cost)]))
            print("\nBU and BT relative times:\n")
            print(relative(runs, nets, ["bu", "bt"]))
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
