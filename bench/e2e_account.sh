#!/usr/bin/env bash
# e2e_account.sh: where the CPU of a trivial job goes, end to end, on Gantry's local cluster
# (bench/bench-cluster.json: 4 nodes, a bash prolog and epilog). Submits N `sbatch --wrap=true`
# jobs from one loop, waits until all have ended, and prints the CPU time per job of each part,
# read from /proc before and after:
#   gantryd        the controller
#   agents         the node agents themselves (gantry-agent, 4 processes)
#   agent_children what the agents started and reaped: gantry-stepd, the prologs and epilogs,
#                  the jobs' shells
#   sbatch         the submitting commands (and this script's squeue polls)
# and the rate (jobs/s) beside the process floor measured right after (as bench/cluster_bench.sh's
# e2e_process_floor: the VM's speed at starting processes varies by half between minutes).
#
# usage: bench/e2e_account.sh [N] [BIN_DIR]     (N 1000, BIN_DIR build/bin)
set -u
n=${1:-1000}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/process_floor.sh"
BIN=$(cd "${2:-$here/../build/bin}" && pwd)
work=$(mktemp -d /tmp/gantry-e2e-account.XXXXXX)
state=$work/state
cleanup() {
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)
now() { date +%s.%N; }
calc() { python3 -c "print(round($1, 2))"; }
# ticks PID FIELDS: the sum of the given /proc/PID/stat fields (14 utime, 15 stime, 16 cutime,
# 17 cstime), 0 when the process is gone.
ticks() {
  awk -v f="$2" '{split(f, a, ","); s = 0; for (i in a) s += $(a[i]); print s}' \
    "/proc/$1/stat" 2>/dev/null || echo 0
}
sum_ticks() {
  local fields=$1 total=0 pid
  shift
  for pid in "$@"; do total=$((total + $(ticks "$pid" "$fields"))); done
  echo "$total"
}

GANTRY_HOME=$work/home "$BIN/gantry" up --spec "$here/bench-cluster.json" --state-dir "$state" \
  >"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
eval "$("$BIN/gantry" env --state-dir "$state")"
until [ "$("$BIN/sinfo" -h -N -t idle -o %N | wc -l)" = 4 ]; do sleep 0.2; done
gpid=$(cat "$state/run/gantryd.pid")
mapfile -t apids < <(pgrep -f "gantry-agent.*$state")
[ "${#apids[@]}" = 4 ] || { echo "expected 4 agents, found ${#apids[@]}" >&2; exit 1; }

read -r g0 < <(ticks "$gpid" 14,15)
a0=$(sum_ticks 14,15 "${apids[@]}")
c0=$(sum_ticks 16,17 "${apids[@]}")
t0=$(now)
for ((i = 0; i < n; i++)); do "$BIN/sbatch" -J e2e -o /dev/null --wrap=true >/dev/null 2>&1; done
while [ "$("$BIN/squeue" -h -n e2e -o %i 2>/dev/null | wc -l)" -gt 0 ]; do sleep 0.2; done
t1=$(now)
g1=$(ticks "$gpid" 14,15)
a1=$(sum_ticks 14,15 "${apids[@]}")
c1=$(sum_ticks 16,17 "${apids[@]}")
# This shell's children: the sbatch and squeue processes (`times` in this shell, not a subshell).
times >"$work/times"
child=$(tail -1 "$work/times" | awk '{
  split($1, u, /[ms]/); split($2, s, /[ms]/); print (u[1] * 60 + u[2]) + (s[1] * 60 + s[2]) }')

# The process floor in the same run.
floor=$(process_floor "$n" "$BIN" "$work")

ms_per_job() { calc "$1 * 1000.0 / $hz / $n"; }
echo "jobs $n"
rate=$(calc "$n / ($t1 - $t0)")
echo "rate $rate jobs/s; process floor $floor jobs/s: $(calc "100.0 * $rate / $floor") %"
echo "gantryd $(ms_per_job $((g1 - g0))) ms/job"
echo "agents $(ms_per_job $((a1 - a0))) ms/job"
echo "agent_children $(ms_per_job $((c1 - c0))) ms/job"
echo "sbatch $(calc "$child * 1000.0 / $n") ms/job (with the squeue polls)"
