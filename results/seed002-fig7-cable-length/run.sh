#!/bin/sh
# Seed 002 Fig. 7: mean switch-to-switch cable length of DSN-F, DSN, DLN-4 and the 2-D torus at 2^7 to
# 2^12 switches (one node each), in seed 002's machine room (`topology --json`'s `cables`, the
# `seed002` floor layout of src/cost/layout.rs). Tori only where 2^m is a square (k-ary 2-cubes).
#   sh results/seed002-fig7-cable-length/run.sh > results/seed002-fig7-cable-length/cable_length.csv
set -eu
bin=${NETREPLAY:-target/release/netreplay}
echo "switches,family,spec,cables,intra_cabinet,cabinets,total_m,mean_m"
for m in 7 8 9 10 11 12; do
  n=$((1 << m))
  specs="dsnf:n=$n dsn:n=$n,x=$((m - 1)) dln:n=$n,x=4,seed=1"
  if [ $((m % 2)) -eq 0 ]; then specs="$specs torus:k=$((1 << (m / 2))),n=2"; fi
  for spec in $specs; do
    "$bin" topology "$spec" --json | python3 -c "
import json, sys
v = json.load(sys.stdin); c = v['cables']
print(f\"$n,{'$spec'.split(':')[0]},\\\"$spec\\\",{c['cables']},{c['intra_cabinet']},{c['cabinets']},{c['total_m']:.1f},{c['mean_m']:.3f}\")"
  done
done
