"""Fig. 10's bars from a campaign's results.jsonl: per benchmark and network, the 2-D torus's
completion time over the network's under the same model and placement (= Mop/s relative to the
torus, higher is better), "Ave" the arithmetic mean over the benchmarks as in the figure. Labels are
"NETWORK / MODEL / PLACEMENT"; the random placements are also averaged (mean of the per-seed ratios).
Benchmarks are named by their trace file, NAME.CLASS.16.txt (class S, A or Himeno's size M); only
the models the campaign ran are tabulated.
    python3 results/seed002-fig10-app/table.py results/seed002-fig10-app/campaign/results.jsonl"""
import json
import re
import sys
from statistics import mean

t = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    bench = re.search(r"/(\w+)\.[SAM]\.16\.txt", r["workload"]).group(1).upper()
    net, model, place = r["label"].split(" / ")
    t[(model, place, bench, net)] = r["completion_cycles"]
nets = ["DSN-F", "DSN-F minimal", "DSN", "2-D torus", "DLN"]
benches = sorted({k[2] for k in t})
randoms = sorted({k[1] for k in t if k[1].startswith("random")})


def rel(model, place, bench, net):
    return t[(model, place, bench, "2-D torus")] / t[(model, place, bench, net)]


def table(model, places, title):
    print(f"\n{title}\n")
    print("| benchmark | torus time (ms) | " + " | ".join(nets) + " |")
    print("|---|---:|" + "---:|" * len(nets))
    for b in benches + ["Ave"]:
        bs = benches if b == "Ave" else [b]
        cells = [mean(rel(model, p, x, n) for p in places for x in bs) for n in nets]
        ref = "" if b == "Ave" else f"{mean(t[(model, p, b, '2-D torus')] for p in places) / 1e6:.3f}"
        print(f"| {b} | {ref} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")


for model in [m for m in ["flow", "flit"] if any(k[0] == m for k in t)]:
    table(model, ["consecutive"], f"{model} model, consecutive placement (switches 0-15)")
    if randoms:
        table(model, randoms, f"{model} model, random placement, mean over {', '.join(randoms)}")
    for p in randoms:
        table(model, [p], f"{model} model, {p}")
