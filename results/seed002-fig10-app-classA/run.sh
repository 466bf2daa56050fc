#!/bin/sh
# Seed 002 Fig. 10 with NPB class A and Himeno (see README.md): the flow-model campaign (all
# placements, about 75 s on one core), the flit-model one (the same placements, about 42 minutes)
# and their tables.
#   sh results/seed002-fig10-app-classA/run.sh
set -eu
bin=${NETREPLAY:-target/release/netreplay}
dir=$(dirname "$0")
python3 "$dir/../seed002-fig10-app/torus16x8.py" > "$dir/../seed002-fig10-app/torus16x8.graph"
"$bin" campaign results/seed002-fig10-app-classA/campaign.toml --out "$dir/campaign" --jobs 1 --quiet > /dev/null
"$bin" campaign results/seed002-fig10-app-classA/campaign-flit.toml --out "$dir/campaign-flit" --jobs 1 --quiet > /dev/null
python3 "$dir/../seed002-fig10-app/table.py" "$dir/campaign/results.jsonl" > "$dir/table.md"
python3 "$dir/../seed002-fig10-app/table.py" "$dir/campaign-flit/results.jsonl" > "$dir/table-flit.md"
