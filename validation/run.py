#!/usr/bin/env python3
"""netreplay's side of the validation suite: replays every case of reference.json and prints
netreplay's figure next to the other tool's, with the ratio and whether it is within the tolerance.

    python3 validation/run.py            # FSIN 64-node cases and the Booksim curves
    python3 validation/run.py --large    # also the 4,096-node FSIN cases (minutes each)

Uses target/release/netreplay (build it with `cargo build --release`) or $NETREPLAY. Exit status 1 when a
case is outside its tolerance. The fast cases are also tests: tests/validation.rs.
"""
import json, os, statistics, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("NETREPLAY", os.path.join(HERE, "..", "target", "release", "netreplay"))
REF = json.load(open(os.path.join(HERE, "reference.json")))
TMP = tempfile.mkdtemp(prefix="netreplay-validation-")


def run_cycles(topology, workload, size, seed, network=""):
    cfg = os.path.join(TMP, f"{topology}-{workload}-{size}-{seed}.toml".replace(":", "_"))
    with open(cfg, "w") as f:
        f.write(f'topology = "{topology}"\nworkload = "{workload}:size={size}"\nseed = {seed}\n[network]\n{network}\n')
    out = subprocess.run([BIN, "run", cfg, "--json", "--quiet"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["completion_cycles"]


def fsin(large):
    ref = REF["fsin"]
    tol = ref["tolerance"]
    cases = [c for c in ref["cases"] if large or not c.get("large")]
    jobs = [(c, s) for c in cases for s in range(1, 9)]
    with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        cycles = list(ex.map(lambda j: run_cycles(j[0]["topology"], j[0]["workload"], j[0]["size"], j[1]), jobs))
    bad = 0
    print(f"FSIN ({ref['tool']} @{ref['commit']}; {ref['configuration']})")
    print(f"{'network':18} {'pattern':7} {'bytes':>6} {'FSIN':>8} {'netreplay':>10} {'ratio':>6}  netreplay seeds 1-8 [min-max]")
    for i, c in enumerate(cases):
        vals = cycles[i * 8:(i + 1) * 8]
        mean = statistics.mean(vals)
        ratio = mean / c["cycles"]
        ok = abs(ratio - 1) <= tol
        bad += not ok
        print(f"{c['label']:18} {c['workload']:7} {c['size']:6} {c['cycles']:8} {mean:10.1f} {ratio:6.3f}  "
              f"[{min(vals)}-{max(vals)}] {'ok' if ok else 'OUT'}")
    return bad


def booksim():
    ref = REF["booksim"]
    bad = 0
    print(f"\nBooksim2 @{ref['commit']} ({ref['configuration']}); netreplay: {ref['netreplay_model']}")
    for curve in ref["curves"]:
        loads = [l for l, _ in curve["latency"]]
        sweep = [round(0.02 * k, 2) for k in range(1, 40)]
        cfg = os.path.join(TMP, "sweep.toml")
        with open(cfg, "w") as f:
            f.write('[network]\npreset = "booksim-iq"\n')
        out = subprocess.run([BIN, "load-latency", cfg, "--topology", curve["topology"], "--json", "--quiet",
                              "--loads", ",".join(str(x) for x in sorted(set(loads + sweep)))],
                             capture_output=True, text=True, check=True)
        points = json.loads(out.stdout)[0]["points"]
        by_load = {round(p["offered"], 3): p for p in points}
        print(f"{curve['label']}:")
        for load, lat in curve["latency"]:
            p = by_load.get(round(load, 3))
            ours = p["mean_latency"] if p else float("nan")
            ok = p is not None and abs(ours / lat - 1) <= ref["latency_tolerance"] + 1e-3  # figures to 0.1
            bad += (not ok) and load <= 0.3
            print(f"  load {load:5.2f}: Booksim {lat:6.1f}, netreplay {ours:6.1f} ({ours / lat:5.3f}) "
                  f"{'ok' if ok else ('OUT' if load <= 0.3 else 'beyond 0.3')}")
        # The peak: every offered load past the reference ones (0.02 steps up to 0.6, then 0.7, 0.8, 1),
        # each run on its own, since a sweep stops at its first unstable point and accepted throughput
        # falls again under heavier overload.
        first = round(loads[-1] / 0.02) + 1
        over = []
        for load in [round(0.02 * k, 2) for k in range(first, 31)] + [0.7, 0.8, 1.0]:
            out = subprocess.run([BIN, "load-latency", cfg, "--topology", curve["topology"], "--json", "--quiet",
                                  "--loads", str(load)], capture_output=True, text=True, check=True)
            over += json.loads(out.stdout)[0]["points"]
        peak = max(p["accepted"] for p in points + over)
        ok = abs(peak / curve["peak_accepted"] - 1) <= ref["peak_tolerance"]
        bad += not ok
        print(f"  peak accepted: Booksim {curve['peak_accepted']:.3f}, netreplay {peak:.3f} "
              f"({peak / curve['peak_accepted']:5.3f}) {'ok' if ok else 'OUT'}")
    return bad


if __name__ == "__main__":
    bad = fsin("--large" in sys.argv) + booksim()
    print(f"\n{bad} case(s) outside tolerance")
    sys.exit(1 if bad else 0)
