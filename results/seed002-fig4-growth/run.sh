#!/bin/sh
# Seed 002 Fig. 4: diameter and average shortest path length of the 1,024-node DSN-F as 0 to 1,024
# nodes are added (64 at a time), with the cables each step adds and the transformation rewires.
#   sh results/seed002-fig4-growth/run.sh
set -eu
bin=${NETREPLAY:-target/release/netreplay}
dir=$(dirname "$0")
"$bin" topology dsnf:n=1024 --grow-to 2048 --step 64 --csv --svg "$dir/growth.svg" > "$dir/growth.csv"
