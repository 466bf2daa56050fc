#!/usr/bin/env python3
"""Seed 003's Tables 3, 4 and 6 from `netreplay topology --json`, next to the paper's values.

    python3 results/seed003_tables.py [--netreplay PATH]

Runs `netreplay topology SPEC --json` (with `--cost seed003` for Table 6) for every network the tables
list and writes, next to the paper's numbers:
  - results/seed003-table6-cost/table6.csv: the five Table 6 networks: terminals, routers, radix,
    router-to-router links, cost over each family's own racks (`seed003`) and over the generic grid of
    one router per rack (`seed003:per_rack=1`), power;
  - results/seed003-table3-4/table3.csv: FleX bisection widths (Table 3);
  - results/seed003-table3-4/table4.csv: bisection ratios, bisection width over router-to-router links
    (Table 4), with the dragonfly's group-granular count floor(g/2) ceil(g/2) the paper's ratios equal.
Prints the same as Markdown. Standard library only; about a minute with a debug build.
"""

import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Table 6: (family, spec, paper's terminals, routers, radix, links, cost in M$, power in W).
TABLE6 = [
    ("fat tree", "fat-tree:k=10,n=3", 1000, 300, 20, 2000, 6.88, 14336),
    ("dragonfly", "dragonfly:p=4,a=8,h=4", 1056, 264, 15, 1452, 5.16, 11088),
    ("HyperX", "hyperx:l=2,s=10,t=10", 1000, 100, 28, 900, 2.75, 7840),
    ("Slim Fly", "slimfly:q=9,p=6", 972, 162, 20, 1053, 3.48, 8618),
    ("FleX", "flex:x=6,y=6,z=3,p=10", 1080, 108, 30, 1080, 3.05, 9072),
]

# Table 3: (N_x, N_y, paper's N_R, eq. (8), the paper's METIS result).
TABLE3 = [
    (4, 4, 48, 96, 96),
    (5, 4, 60, 120, 120),
    (15, 20, 900, 6750, 9000),
    (20, 20, 1200, 12000, 12000),
    (4, 100, 1200, 2400, 2400),
]

# Table 4: per approximate size, the paper's ratios and our configuration of each family under the
# full-global-bandwidth rules of §III-B (fat tree p = k/2, dragonfly a = 2p = 2h, HyperX and Slim Fly
# and FleX p = floor(k/3), HyperX and FleX square), the size nearest the column's N.
FAMILIES = ["fat tree", "dragonfly", "HyperX", "Slim Fly", "FleX"]
TABLE4 = [
    (1000, [0.250, 0.187, 0.278, 0.326, 0.300],
     ["fat-tree:k=10,n=3", "dragonfly:p=4,a=8,h=4", "hyperx:l=2,s=10,t=10", "slimfly:q=9,p=6",
      "flex:x=6,y=6,z=3,p=10"]),
    (2000, [0.250, 0.182, 0.269, 0.354, 0.286],
     ["fat-tree:k=12,n=3", "dragonfly:p=5,a=10,h=5", "hyperx:l=2,s=14,t=13", "slimfly:q=11,p=8",
      "flex:x=8,y=8,z=3,p=14"]),
    (5000, [0.250, 0.179, 0.265, 0.345, 0.278],
     ["fat-tree:k=18,n=3", "dragonfly:p=6,a=12,h=6", "hyperx:l=2,s=18,t=17", "slimfly:q=16,p=12",
      "flex:x=10,y=10,z=3,p=18"]),
    (10000, [0.250, 0.177, 0.262, 0.328, 0.273],
     ["fat-tree:k=22,n=3", "dragonfly:p=7,a=14,h=7", "hyperx:l=2,s=22,t=21", "slimfly:q=19,p=14",
      "flex:x=12,y=12,z=3,p=22"]),
]


def topology(netreplay, spec, *flags):
    out = subprocess.run([netreplay, "topology", spec, "--json", *flags], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def write_csv(path, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)


def markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def dragonfly_groups(spec):
    params = dict(kv.split("=") for kv in spec.split(":", 1)[1].split(","))
    return int(params["a"]) * int(params["h"]) + 1


def main():
    netreplay = "netreplay"
    if len(sys.argv) == 3 and sys.argv[1] == "--netreplay":
        netreplay = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)

    header = ["family", "spec", "terminals", "paper terminals", "routers", "paper routers", "radix",
              "paper radix", "links", "paper links", "cost own racks M$", "cost one per rack M$",
              "paper cost M$", "own/paper", "power W", "paper power W"]
    rows = []
    for family, spec, n, r, k, links, cost, power in TABLE6:
        own = topology(netreplay, spec, "--cost", "seed003")
        grid = topology(netreplay, spec, "--cost", "seed003:per_rack=1")
        total = own["cost"]["total"]
        rows.append([family, spec, own["nodes"], n, own["switches"], r, own["radix"], k,
                     own["switch_links"], links, f"{total / 1e6:.4f}",
                     f"{grid['cost']['total'] / 1e6:.4f}", f"{cost:.2f}", f"{total / 1e6 / cost:.3f}",
                     f"{own['cost']['power_watts']:.0f}", power])
    write_csv(os.path.join(HERE, "seed003-table6-cost", "table6.csv"), header, rows)
    print("Table 6\n\n" + markdown(header, rows) + "\n")

    header = ["N_x", "N_y", "N_R", "eq. (8)", "paper's METIS", "ours", "method", "ours/eq. (8)"]
    rows = []
    for nx, ny, nr, eq8, metis in TABLE3:
        d = topology(netreplay, f"flex:x={nx},y={ny},z=3,p=1")
        assert d["switches"] == nr
        width = d["bisection_width"]
        rows.append([nx, ny, nr, eq8, metis, width, d["bisection_method"], f"{width / eq8:.3f}"])
    write_csv(os.path.join(HERE, "seed003-table3-4", "table3.csv"), header, rows)
    print("Table 3\n\n" + markdown(header, rows) + "\n")

    header = ["N", "family", "spec", "terminals", "router links", "bisection width", "method",
              "ratio", "paper ratio", "group-granular ratio"]
    rows = []
    for n, paper, specs in TABLE4:
        for family, ratio, spec in zip(FAMILIES, paper, specs):
            d = topology(netreplay, spec)
            links, width = d["switch_links"], d["bisection_width"]
            groups = ""
            if family == "dragonfly":
                g = dragonfly_groups(spec)
                groups = f"{(g // 2) * ((g + 1) // 2) / links:.4f}"
            rows.append([n, family, spec, d["nodes"], links, width, d["bisection_method"],
                         f"{width / links:.4f}", f"{ratio:.3f}", groups])
    write_csv(os.path.join(HERE, "seed003-table3-4", "table4.csv"), header, rows)
    print("Table 4\n\n" + markdown(header, rows))


if __name__ == "__main__":
    main()
