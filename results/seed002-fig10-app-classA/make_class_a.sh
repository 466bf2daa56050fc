#!/bin/bash
# Rebuilds the NPB 3.3 class A and Himeno SimGrid TI traces of traces/simgrid/npb3.3-classA/ and
# traces/simgrid/himeno/ (provenance: the README.md in each). Needs Debian 12's libsimgrid-dev 3.32
# (smpicc, smpiff, smpirun), gfortran, git, bc and zstd. Run from the repository root:
#   sh results/seed002-fig10-app-classA/make_class_a.sh WORKDIR
# WORKDIR (outside git) receives the sources, binaries and raw traces; the compressed traces are
# written into traces/. Each run is serialised on one core; the nine took 3.5 minutes of tracing on
# two shared cores (timings in traces/simgrid/npb3.3-classA/README.md). The sha256 sums it prints
# differ from SHA256SUMS, since the compute times are measured anew.
set -eu
W=$(realpath -m "${1:?usage: make_class_a.sh WORKDIR}")
R=$(pwd)
H=$R/results/seed002-fig10-app-classA
HIMENO_REPO=https://github.com/calorie/himeno_benchmark
HIMENO_COMMIT=b926d97eb754caca9b69cbffeb3e4d3dfcb97aa0

# NPB 3.3-MPI, unchanged but for config/make.def (the class S traces' make.def.smpi).
. "$H/npb_setup.sh"
for k in bt cg ep ft is lu mg sp; do
  (cd "$N" && make "$(echo $k | tr a-z A-Z)" NPROCS=16 CLASS=A > "$W/build-$k.log" 2>&1)
done

# Himeno MPI C (RIKEN himenoBMTxps.c, version 3.0): size M on 2 x 2 x 4 ranks; the only change fixes
# the measured loop at 100 iterations instead of as many as fill 60 s of (simulated) time.
[ -d "$W/src/himeno" ] || git clone -q "$HIMENO_REPO" "$W/src/himeno"
git -C "$W/src/himeno" checkout -q "$HIMENO_COMMIT"
mkdir -p "$W/himeno"
cp "$W/src/himeno/himenoBMTxps.c" "$W/src/himeno/paramset.sh" "$W/himeno/"
(cd "$W/himeno" && sh paramset.sh M 2 2 4 \
  && sed -i 's|nn= (int)(target/(cpu/3.0));|nn= NN;|' himenoBMTxps.c \
  && grep -q 'nn= NN;' himenoBMTxps.c \
  && smpicc -O3 -DNN=100 -o himeno.M.16 himenoBMTxps.c > "$W/build-himeno.log" 2>&1)

# Trace, then compress every file in place (zstd -19, names kept, as the class S traces). Himeno's
# MPI_Cart_shift gives MPI_PROC_NULL at the grid's faces; SimGrid's tracer writes those isends and
# irecvs (no-ops in MPI) with peer -333, the value it also writes for MPI_ANY_SOURCE, so they are
# dropped (Himeno has no wildcard receive); its waitall lines wait on every outstanding request.
for k in is ep cg mg ft lu sp bt; do
  bash "$H/trace_one.sh" "$W" $k.A.16 "$N/bin/$k.A.16" 16
done
bash "$H/trace_one.sh" "$W" himeno.M.16 "$W/himeno/himeno.M.16" 16
store() { # NAME DEST SED-SCRIPT
  rm -rf "$2/$1"; mkdir -p "$2/$1"
  cp -r "$W/runs/$1/$1.txt" "$W/runs/$1/$1.txt_files" "$W/runs/$1/run.log" "$2/$1/"
  mv "$2/$1/run.log" "$2/$1/smpirun.log"
  for f in "$2/$1/$1.txt" "$2/$1/$1.txt_files"/*; do
    sed -E "$3" "$f" | zstd -19 -q -c > "$f.zst" && mv "$f.zst" "$f"
  done
}
for k in bt cg ep ft is lu mg sp; do store $k.A.16 "$R/traces/simgrid/npb3.3-classA" ''; done
store himeno.M.16 "$R/traces/simgrid/himeno" '/^[0-9]+ (isend|irecv) -333 /d'
(cd "$R/traces/simgrid" && sha256sum npb3.3-classA/*/*.txt npb3.3-classA/*/*.txt_files/* \
  himeno/*/*.txt himeno/*/*.txt_files/*)
