#!/usr/bin/env python3
"""Flow model against flit model, from a campaign of `configs/flow-vs-flit.toml`.

    python3 results/flow-vs-flit/compare.py results/flow-vs-flit

Pairs the runs of candidates "<network> flit" and "<network> flow" (same workload and size), and
writes into the directory (atomically: a temporary file renamed over the old one):
  - errors.csv: one row per (network, workload, size): both completion times, the flow model's
    relative error (flow - flit) / flit, both wall times;
  - comparison.md: the error distribution (overall, per size, per pattern, per network), Kendall's
    tau-b between the two models' rankings of the networks per (workload, size), and the per-run table.
Standard library only.
"""

import csv
import io
import json
import os
import statistics
import sys
from collections import defaultdict


def load(directory):
    runs = {}
    with open(os.path.join(directory, "results.jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a torn last line (killed campaign)
            r = json.loads(line)
            network, _, model = r["label"].rpartition(" ")
            if model not in ("flit", "flow"):
                sys.exit(f"label `{r['label']}` does not end in ` flit` or ` flow`")
            key = (network, short(r["workload"]), r["size"])
            runs.setdefault(key, {})[model] = r
    return runs


def short(workload):
    """`trace:file=traces/simgrid/npb3.3/bt.S.16/bt.S.16.txt,cache=off` -> `bt.S.16`."""
    if workload.startswith("trace:"):
        path = workload.split("file=", 1)[1].split(",", 1)[0]
        return os.path.basename(os.path.dirname(path))
    return workload.upper()


def kendall_tau_b(xs, ys):
    """Kendall's tau-b of two equally long sequences (ties counted as in tau-b); None if undefined."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            dx = (xs[i] > xs[j]) - (xs[i] < xs[j])
            dy = (ys[i] > ys[j]) - (ys[i] < ys[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return None if denominator == 0 else (concordant - discordant) / denominator


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summary(errors):
    a = [abs(e) for e in errors]
    return (
        f"{len(errors)} | {statistics.mean(errors) * 100:+.1f}% | {statistics.median(a) * 100:.1f}% | "
        f"{statistics.mean(a) * 100:.1f}% | {percentile(a, 0.9) * 100:.1f}% | {max(a) * 100:.1f}% | "
        f"{min(errors) * 100:+.1f}% .. {max(errors) * 100:+.1f}%"
    )


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def size_name(size):
    return "trace" if size is None else f"{size // 1000} KB"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    runs = load(directory)
    rows = []
    for (network, workload, size), pair in sorted(
        runs.items(), key=lambda kv: (kv[0][1], kv[0][2] or 0, kv[0][0])
    ):
        if "flit" not in pair or "flow" not in pair:
            continue
        flit, flow = pair["flit"], pair["flow"]
        err = (flow["completion_cycles"] - flit["completion_cycles"]) / flit["completion_cycles"]
        rows.append((network, workload, size, flit, flow, err))

    # The csv module quotes fields that need it (network labels such as "4,3-fat-tree" hold commas).
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(
        ["network", "workload", "size", "flit_cycles", "flow_cycles", "error", "flit_wall_s", "flow_wall_s"]
    )
    for network, workload, size, flit, flow, err in rows:
        writer.writerow(
            [
                network,
                workload,
                "" if size is None else size,
                flit["completion_cycles"],
                flow["completion_cycles"],
                f"{err:.6f}",
                f"{flit['wall_seconds']:.4f}",
                f"{flow['wall_seconds']:.4f}",
            ]
        )
    write_atomic(os.path.join(directory, "errors.csv"), table.getvalue())

    md = ["# Flow model vs flit model", ""]
    md.append(
        "Relative error of the flow model's completion time, (flow - flit) / flit, from "
        f"`{os.path.join(directory, 'results.jsonl')}`; written by `compare.py`."
    )
    md += ["", "## Error distribution", ""]
    header = "| runs | mean (signed) | median abs | mean abs | p90 abs | max abs | range |"
    rule = "| --- | --- | --- | --- | --- | --- | --- |"
    md += ["| group " + header, "| --- " + rule]
    md.append("| all " + "| " + summary([r[5] for r in rows]) + " |")
    groups = defaultdict(list)
    for r in rows:
        groups[("size", size_name(r[2]))].append(r[5])
        groups[("workload", r[1])].append(r[5])
        groups[("network", r[0])].append(r[5])
    for kind in ("size", "workload", "network"):
        for (k, name), errors in sorted(groups.items(), key=lambda kv: str(kv[0])):
            if k == kind:
                md.append(f"| {kind} {name} | " + summary(errors) + " |")

    md += ["", "## Ranking of the networks: Kendall tau-b, flit ranking vs flow ranking", ""]
    md.append("Per (workload, size), the networks ordered by completion time under each model; "
              "1 = same order, -1 = reversed; ties count as in tau-b.")
    md += ["", "| workload | size | tau | flit order (fastest first) | flow order |", "| --- | --- | --- | --- | --- |"]
    cells = defaultdict(list)
    for r in rows:
        cells[(r[1], r[2])].append(r)
    taus = []
    for (workload, size), rs in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        xs = [r[3]["completion_cycles"] for r in rs]
        ys = [r[4]["completion_cycles"] for r in rs]
        tau = kendall_tau_b(xs, ys)
        if tau is not None:
            taus.append(tau)
        order = lambda key: " < ".join(r[0] for r in sorted(rs, key=key))
        md.append(
            f"| {workload} | {size_name(size)} | {'n/a' if tau is None else f'{tau:.2f}'} | "
            f"{order(lambda r: r[3]['completion_cycles'])} | {order(lambda r: r[4]['completion_cycles'])} |"
        )
    if taus:
        same = sum(1 for t in taus if t == 1.0)
        md += ["", f"Mean tau {statistics.mean(taus):.3f} over {len(taus)} cells; identical order in "
               f"{same}; lowest {min(taus):.2f}."]

    md += ["", "## Every run", "", "| network | workload | size | flit cycles | flow cycles | error | flit s | flow s |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for network, workload, size, flit, flow, err in rows:
        md.append(
            f"| {network} | {workload} | {size_name(size)} | {flit['completion_cycles']} | "
            f"{flow['completion_cycles']} | {err * 100:+.1f}% | {flit['wall_seconds']:.3f} | {flow['wall_seconds']:.3f} |"
        )
    write_atomic(os.path.join(directory, "comparison.md"), "\n".join(md) + "\n")
    print("\n".join(md[: md.index("## Every run")]))


if __name__ == "__main__":
    main()
