#!/bin/sh
# Seed 002 Fig. 10 at the closest size the traces here allow (see README.md):
#   sh results/seed002-fig10-app/run.sh
set -eu
bin=${NETREPLAY:-target/release/netreplay}
dir=$(dirname "$0")
python3 "$dir/torus16x8.py" > "$dir/torus16x8.graph"
"$bin" campaign configs/seed002-app.toml --out "$dir/campaign" --jobs 2 --quiet > /dev/null
python3 "$dir/table.py" "$dir/campaign/results.jsonl" > "$dir/table.md"
