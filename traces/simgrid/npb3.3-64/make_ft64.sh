#!/bin/bash
# Rebuilds the NPB 3.3 FT class A and B SimGrid TI traces on 64 ranks in this folder (provenance in
# README.md), with the class A traces' sources, build flags, platform and tracing options. Needs
# Debian 12's libsimgrid-dev 3.32 (smpicc, smpiff, smpirun), gfortran, git, bc and zstd. Run from the
# repository root:
#   sh traces/simgrid/npb3.3-64/make_ft64.sh WORKDIR
# WORKDIR (outside git) receives the sources, binaries and raw traces. Tracing took 6 s (A) and 32 s
# (B) on one core. The compute figures are measured anew, so the sha256 sums differ from SHA256SUMS.
set -eu
W=$(realpath -m "${1:?usage: make_ft64.sh WORKDIR}")
R=$(pwd)
H=$R/results/seed002-fig10-app-classA
T=$R/traces/simgrid/npb3.3-64
. "$H/npb_setup.sh"
for c in A B; do
  (cd "$N" && make FT NPROCS=64 CLASS=$c > "$W/build-ft-$c.log" 2>&1)
  bash "$H/trace_one.sh" "$W" ft.$c.64 "$N/bin/ft.$c.64" 64
  d=$T/ft.$c.64
  rm -rf "$d"; mkdir -p "$d"
  cp -r "$W/runs/ft.$c.64/ft.$c.64.txt" "$W/runs/ft.$c.64/ft.$c.64.txt_files" "$d/"
  cp "$W/runs/ft.$c.64/run.log" "$d/smpirun.log"
  for f in "$d/ft.$c.64.txt" "$d/ft.$c.64.txt_files"/*; do
    zstd -19 -q -c "$f" > "$f.zst" && mv "$f.zst" "$f"
  done
done
(cd "$T" && sha256sum ft.*/*.txt ft.*/*.txt_files/*)
