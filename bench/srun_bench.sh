#!/usr/bin/env bash
# srun launch latency: Gantry's srun (through gantryd and the node agents) beside real Slurm
# 22.05's (the anchor cluster, ../shared/anchors/slurm, switched to 8 nodes for the run and
# back to its default afterwards), on this machine, in the same run. Both run inside an
# 8-node allocation made first (salloc --no-shell), so that only the step is measured: from
# srun's start until it exits, every task having run `true` and reported.
#   srun_1_task     `srun -n1 true`                                  ms (median of N_RUNS)
#   srun_64_tasks   `srun -N8 -n64 true` (8 tasks per node)          ms (median of N_RUNS)
# Prints `<name> <gantry> <slurm> ms <ratio>` (ratio = slurm / gantry: > 1 = Gantry faster).
# usage: bench/srun_bench.sh [BIN_DIR]    (default build/bin; Slurm needs root)
# N_RUNS (21) WITH_SLURM (auto|0|1)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$(cd "${1:-$root/build/bin}" && pwd)
N_RUNS=${N_RUNS:-21}
WITH_SLURM=${WITH_SLURM:-auto}
anchor=$root/../shared/anchors/slurm
. "$here/anchor.sh"

work=$(mktemp -d /tmp/gantry-srun-bench-XXXXXX)
chmod 1777 "$work"
state=$work/state
slurm_nodes_changed=0
cleanup() {
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  if [ "$slurm_nodes_changed" = 1 ]; then
    echo "# slurm: back to the anchor's default node count" >&2
    env -u GANTRY_CONF PATH=/usr/sbin:/usr/bin:/sbin:/bin "$anchor/setup.sh" >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

# median_ms CMD...: runs CMD N_RUNS times (after one warm-up), prints the median in ms.
median_ms() {
  "$@" >/dev/null 2>&1
  for _ in $(seq "$N_RUNS"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>"$work/err" || { echo "# failed: $* $(cat "$work/err")" >&2; }
    end=$(date +%s%N)
    echo $(((end - start) / 1000))
  done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] / 1000}'
}

declare -A G S
echo "# gantry: 8-node cluster (bench/srun-cluster.json)" >&2
"$BIN/gantry" up --spec "$here/srun-cluster.json" --state-dir "$state" >"$work/up.log" 2>&1 ||
  { cat "$work/up.log"; exit 1; }
eval "$("$BIN/gantry" env --state-dir "$state")"
for _ in $(seq 150); do
  [ "$("$BIN/sinfo" -h -N -t idle -o %N | wc -l)" = 8 ] && break
  sleep 0.2
done
"$BIN/salloc" -N 8 --ntasks-per-node=8 --no-shell 2>"$work/salloc.err" || { cat "$work/salloc.err"; exit 1; }
job=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$work/salloc.err")
G[srun_1_task]=$(median_ms "$BIN/srun" --jobid="$job" -n1 true)
G[srun_64_tasks]=$(median_ms "$BIN/srun" --jobid="$job" -N8 -n64 true)
"$BIN/scancel" "$job"

slurm_ok=0
[ "$WITH_SLURM" != 0 ] && [ "$(id -u)" = 0 ] && slurm_nodes_changed=1
start_anchor NNODES=8 && slurm_ok=1
if [ "$slurm_ok" = 1 ]; then
  unset SLURM_JOB_ID
  /usr/bin/salloc -N 8 --ntasks-per-node=8 --no-shell 2>"$work/salloc.err" || cat "$work/salloc.err" >&2
  sjob=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$work/salloc.err")
  S[srun_1_task]=$(median_ms /usr/bin/srun --jobid="$sjob" -n1 true)
  S[srun_64_tasks]=$(median_ms /usr/bin/srun --jobid="$sjob" -N8 -n64 true)
  /usr/bin/scancel "$sjob"
fi

for name in srun_1_task srun_64_tasks; do
  g=${G[$name]}
  s=${S[$name]:-}
  ratio=""
  [ -n "$s" ] && ratio=$(python3 -c "print(round($s / $g, 2))")x
  echo "$name $g ${s:--} ms $ratio"
done
