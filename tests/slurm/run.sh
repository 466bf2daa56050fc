#!/usr/bin/env bash
# A campaign on a real, one-machine Slurm cluster, run by tests/slurm.rs:
#
#   NETREPLAY=/path/to/netreplay bash tests/slurm/run.sh
#
# Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) with a minimal slurm.conf in a
# temporary directory (one node: this machine with its CPUs and memory; free ports), then:
#   1. submits tests/slurm/campaign.toml with `campaign --slurm --submit`, waits for the array and the
#      merge job, and checks the merged report and results equal a local `netreplay campaign` of the
#      same config (wall times excluded);
#   2. submits it again into a new directory, cancels array task 1 mid-way (`scancel JOB_1`), checks
#      that the merge job fails and `--status` names the missing runs, resubmits, and checks that every
#      run is in the results exactly once and the report equals the local one.
# The daemons are stopped on exit however the script ends. KEEP=1 keeps the temporary directory.
set -euo pipefail

: "${NETREPLAY:?set NETREPLAY to the netreplay binary}"
here=$(cd "$(dirname "$0")" && pwd)
config="$here/campaign.toml"
export PATH="$PATH:/usr/sbin:/sbin"
TIMEOUT=${TIMEOUT:-300}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
say() { echo "[slurm test $(date +%T)] $*"; }

for cmd in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$cmd" >/dev/null || fail "$cmd not found (install Debian's slurm-wlm and munge)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/netreplay-slurm.XXXXXX")
chmod 755 "$tmp"
pids=()
cleanup() {
  local rc=$?
  # Jobs first, so no task outlives its slurmd.
  if [ -f "$tmp/slurm.conf" ]; then scancel --quiet --user "$(id -un)" 2>/dev/null || true; fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$rc" -ne 0 ]; then
    for log in "$tmp"/log/*.log "$tmp"/a/slurm/logs/* "$tmp"/b/slurm/logs/*; do
      [ -f "$log" ] && { echo "---- $log (last lines)"; tail -n 20 "$log"; }
    done
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT

# A free TCP port on the loopback, from a range that depends on this process, so two test runs (or
# a real Slurm on 6817/6818) do not clash.
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}
base=$((20000 + ($$ % 20000)))
ctld_port=$(free_port "$base")
slurmd_port=$(free_port $((ctld_port + 1)))

# --- munge ------------------------------------------------------------------------------------------
mkdir -p "$tmp/munge" "$tmp/log" "$tmp/state" "$tmp/spool"
chmod 755 "$tmp/munge"
mungekey --create --keyfile "$tmp/munge/munge.key"
socket="$tmp/munge/munge.socket"
munged --foreground --force --key-file "$tmp/munge/munge.key" --socket "$socket" \
  --pid-file "$tmp/munge/munged.pid" --log-file "$tmp/log/munged.log" \
  --seed-file "$tmp/munge/munged.seed" >>"$tmp/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not start (see $tmp/log/munged.log)"

# --- slurm.conf -------------------------------------------------------------------------------------
user=$(id -un)
host=$(hostname -s)
# slurmd -C prints this machine's NodeName=... CPUs=... RealMemory=... line.
node=$(slurmd -C | head -n 1)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
[ -n "$cpus" ] || fail "slurmd -C printed no CPU count: $node"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=netreplay-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerParameters=sched_interval=2
KillWait=5
MinJobAge=600
InactiveLimit=0
${node/NodeName=$host /NodeName=$host NodeAddr=127.0.0.1 }
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"

slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 120); do
  state=$(sinfo -h -o %T 2>/dev/null | head -n 1) || true
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the node is not idle after 60 s (state: ${state:-no answer})"
say "cluster up: $node, ports $ctld_port/$slurmd_port"

# --- helpers ----------------------------------------------------------------------------------------
# Waits until no job is pending or running (every job on this private cluster is ours).
wait_all() {
  local t=0
  while [ -n "$(squeue -h -o %i)" ]; do
    [ "$t" -lt "$((TIMEOUT * 2))" ] || { squeue; fail "jobs still queued after $TIMEOUT s"; }
    sleep 0.5
    t=$((t + 1))
  done
}
# The state of a job (or JOB_TASK) once ended, as squeue keeps it for MinJobAge.
job_state() { squeue -h -t all -j "$1" -o %T | head -n 1; }
submitted() { sed -n "s/^submitted $1 job \([0-9]*\).*/\1/p" <<<"$2"; }
# Results lines without the wall time, sorted: the deterministic part of a results directory.
runs_of() { cat "$@" | sed -E 's/,"wall_seconds":[0-9.eE+-]+//' | sort; }
# Same report files and same runs (wall time excluded) in local directory $1 and Slurm layout $2.
same_as_local() {
  local f
  for f in report.json report.md relative_times.csv summary.csv; do
    cmp -s "$1/$f" "$2/$f" || { diff "$1/$f" "$2/$f" | head -n 20 >&2; return 1; }
  done
  diff <(runs_of "$1/results.jsonl") <(runs_of "$2"/shards/*/results.jsonl) >&2
}
# Every planned run exactly once over the shards of $1 (runs counted by label, workload, size).
each_run_once() {
  local counts
  counts=$(cat "$1"/shards/*/results.jsonl | sed -E 's/.*"label":("[^"]*"),"workload":("[^"]*"),"size":([^,]*),.*/\1 \2 \3/' | sort | uniq -c)
  [ "$(wc -l <<<"$counts")" -eq "$runs" ] || { echo "$counts" >&2; fail "$1: not $runs distinct runs"; }
  if grep -qv '^ *1 ' <<<"$counts"; then echo "$counts" >&2; fail "$1: a run appears twice"; fi
}

# --- the local reference ----------------------------------------------------------------------------
mkdir -p "$tmp/work"
cd "$tmp/work"
"$NETREPLAY" campaign "$config" --out "$tmp/local" --jobs "$cpus" >/dev/null 2>&1 ||
  fail "the local campaign failed"
runs=$(wc -l <"$tmp/local/results.jsonl")
[ "$runs" -eq 12 ] || fail "the local campaign wrote $runs results, not 12"
say "local campaign: $runs runs"

# --- 1. submit, wait, compare -----------------------------------------------------------------------
out=$("$NETREPLAY" campaign "$config" --slurm --array 3 --time 10 --submit --out "$tmp/a")
echo "$out"
array=$(submitted array "$out")
merge=$(submitted merge "$out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in the --submit output"
grep -q "tasks 1-3 of 3" <<<"$out" || fail "the first submission should run tasks 1-3"
wait_all
for t in 1 2 3; do
  s=$(job_state "${array}_$t")
  [ "$s" = COMPLETED ] || fail "array task ${array}_$t ended $s"
done
[ "$(job_state "$merge")" = COMPLETED ] || fail "merge job $merge ended $(job_state "$merge")"
[ -f "$tmp/a/report.json" ] || fail "the merge job wrote no report"
same_as_local "$tmp/local" "$tmp/a" || fail "the merged Slurm report differs from the local campaign's"
each_run_once "$tmp/a"
"$NETREPLAY" campaign --status "$tmp/a" >/dev/null || fail "--status says runs are missing"
# The comparison can fail: one changed completion time is caught.
cp -r "$tmp/a" "$tmp/a-altered"
sed -i -E '0,/^( *)([0-9]+),$/s//\1999\2,/' "$tmp/a-altered/report.json"
cmp -s "$tmp/a/report.json" "$tmp/a-altered/report.json" && fail "the report could not be altered"
if same_as_local "$tmp/local" "$tmp/a-altered" 2>/dev/null; then
  fail "an altered report compared equal"
fi
say "1/2: Slurm campaign (array $array, merge $merge) equals the local one"

# --- 2. cancel a task mid-way, resubmit -------------------------------------------------------------
out=$("$NETREPLAY" campaign "$config" --slurm --array 3 --time 10 --submit --out "$tmp/b")
echo "$out"
array=$(submitted array "$out")
merge=$(submitted merge "$out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in the --submit output"
shard1="$tmp/b/shards/1/results.jsonl"
t=0
until [ "$(job_state "${array}_1")" = RUNNING ] && [ -s "$shard1" ]; do
  [ "$t" -lt "$((TIMEOUT * 10))" ] || fail "task ${array}_1 wrote no result in $TIMEOUT s"
  sleep 0.1
  t=$((t + 1))
done
scancel "${array}_1"
say "cancelled task ${array}_1 after $(wc -l <"$shard1") of its 4 runs"
wait_all
[ "$(job_state "${array}_1")" = CANCELLED ] || fail "task ${array}_1 ended $(job_state "${array}_1")"
done1=$(grep -c . "$shard1" || true)
[ "$done1" -lt 4 ] || fail "task ${array}_1 finished its 4 runs before the cancel reached it"
[ "$(job_state "$merge")" = FAILED ] || fail "merge job $merge after a cancelled task ended $(job_state "$merge"), not FAILED"
if status=$("$NETREPLAY" campaign --status "$tmp/b"); then
  fail "--status exited 0 with runs missing"
fi
echo "$status"
grep -q "shard 1/3 *$done1 of 4 done, missing" <<<"$status" || fail "--status does not name shard 1's missing runs"
grep -q "$((runs - 4 + done1)) of $runs runs done" <<<"$status" || fail "--status totals are wrong"

out=$("$NETREPLAY" campaign "$config" --slurm --time 10 --submit --out "$tmp/b")
echo "$out"
grep -q "tasks 1 of 3" <<<"$out" || fail "the resubmission should run task 1 only"
array=$(submitted array "$out")
merge=$(submitted merge "$out")
wait_all
[ "$(job_state "${array}_1")" = COMPLETED ] || fail "resubmitted task ${array}_1 ended $(job_state "${array}_1")"
[ "$(job_state "$merge")" = COMPLETED ] || fail "merge job $merge ended $(job_state "$merge")"
grep -q "$done1 already done, $((4 - done1)) run now" "$tmp"/b/slurm/logs/array-"${array}"_1.out ||
  fail "the resubmitted task did not resume (see its log)"
each_run_once "$tmp/b"
same_as_local "$tmp/local" "$tmp/b" || fail "the report after resubmission differs from the local one"
"$NETREPLAY" campaign --status "$tmp/b" >/dev/null || fail "--status says runs are missing"
say "2/2: cancelled task resubmitted; every run exactly once, report equals the local one"
say "both parts passed"
