#!/bin/bash
# Run one SMPI binary under smpirun with time-independent tracing, as the class S traces were made
# (/work/shared/traces/simgrid-ti/npb3.3/setup/trace_npb.sh): 64-host cluster platform, host speed 1Gf.
# Usage: trace_one.sh WORKDIR NAME BINARY NP   (writes WORKDIR/runs/NAME/NAME.txt and NAME.txt_files/)
set -u
W=$1; name=$2; bin=$3; np=$4
d=$W/runs/$name; rm -rf "$d"; mkdir -p "$d"; cd "$d" || exit 1
start=$(date +%s.%N)
timeout 600 smpirun -np "$np" -platform "$W/cluster64.xml" -hostfile "$W/hosts64" \
  -trace-ti --cfg=tracing/filename:"$name.txt" --cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:yes \
  "$bin" > run.log 2>&1
rc=$?
end=$(date +%s.%N)
printf "%s rc=%d wall=%.1fs verif=%s simtime=%s files=%s size=%s\n" "$name" $rc "$(echo "$end - $start" | bc)" \
  "$(grep -o 'Verification *= *[A-Z]*' run.log | awk '{print $3}')" \
  "$(grep -o 'Simulated time: [0-9.e+-]*' run.log | tail -1)" \
  "$(ls "$name.txt_files" 2>/dev/null | wc -l)" "$(du -sh "$name.txt_files" 2>/dev/null | cut -f1)"
