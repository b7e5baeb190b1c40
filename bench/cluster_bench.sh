#!/usr/bin/env bash
# Cluster benchmark: Gantry's local cluster against real Slurm 22.05 (the anchor cluster,
# ../shared/anchors/slurm) on this machine, in the same run. Prints one line per figure:
#   <name> <gantry> <slurm> <unit> <ratio>
# where ratio is gantry/slurm for rates and slurm/gantry for costs (>1 = Gantry better).
#
# Figures:
#   sbatch_1_client   `sbatch -H --wrap=true -o /dev/null` from one loop           jobs/s
#   sbatch_4_clients  the same from 4 parallel loops                              jobs/s
#   e2e_trivial       N x `sbatch --wrap=true -o /dev/null` until all have ended     jobs/s
#   e2e_process_floor the processes such a job needs and nothing else, from 2 loops: Gantry's
#                     sbatch start-up, a bash prolog, `sh -c true`, a bash epilog (no
#                     daemon involved): the most any system can reach here    jobs/s
#   ctld_kib_per_job  controller RSS growth per queued (held) job, from a freshly started
#                     controller (both systems)                                      KiB
#   ctld_kib_listed   the same once the queue was listed (squeue, sacct, scontrol, sinfo below):
#                     the caches of listings and wire records included                 KiB
#   ctld_rss_queue    controller RSS with the queue filled (Gantry 100k, Slurm N_SLURM_QUEUE) MiB
#   squeue_queue      `squeue >/dev/null` with that queue                            ms
#   squeue_long       `squeue -l >/dev/null` (two more columns, the state spelled out)  ms
#   squeue_resorted   `squeue -S -i >/dev/null`: every job moves (the queue's equal
#                     priorities leave the default order as the jobs arrive)          ms
#   squeue_changed    `squeue` right after `scontrol update` changed one queued job: Gantry
#                     makes that job's block of the listing again and puts it in order  ms
#   squeue_new_view   the first `squeue -o FORMAT` of a format no listing used before: Gantry
#                     makes the whole listing (each run names another width)         ms
#   sacct_queue       `sacct >/dev/null` with that queue (held jobs never became eligible, so
#                     both leave them out: the cost of finding that out)             ms
#   squeue_user       `squeue -u nobody` with that queue (server-side user filter)   ms
#   scontrol_job      `scontrol show job <a queued id>` with that queue              ms
#   sinfo_queue       `sinfo >/dev/null` with that queue                             ms
#   e2e_queue         e2e_trivial with that queue in the controller                 jobs/s
#   e2e_queue_polled  the same while 4 clients list the whole queue (`squeue`) in loops:
#                     how much polling slows scheduling                              jobs/s
#   e2e_queue_busy    the same while 4 loops run `squeue --version` (no listing): the part
#                     of that slowdown that is only the pollers' processes taking the cores
#
# usage: bench/cluster_bench.sh [BIN_DIR]      (default build/bin; needs root for Slurm)
# Sizes: N_SUBMIT (1000) N_E2E (1000) N_QUEUE (100000) N_SLURM_QUEUE (10000)
#        N_SLURM_E2E (N_E2E: both run the same jobs) WITH_SLURM (auto|0|1)
# Slurm is tuned as the anchor's README says (its HTC SchedulerParameters, MaxJobCount=100000,
# MinJobAge=30, 4 controller ports, munged with 10 threads); Gantry runs its defaults with the
# spec bench/bench-cluster.json (4 nodes, like the anchor).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$(cd "${1:-$root/build/bin}" && pwd)
N_SUBMIT=${N_SUBMIT:-1000}
N_E2E=${N_E2E:-1000}
N_QUEUE=${N_QUEUE:-100000}
N_SLURM_QUEUE=${N_SLURM_QUEUE:-10000}
N_SLURM_E2E=${N_SLURM_E2E:-$N_E2E}
WITH_SLURM=${WITH_SLURM:-auto}
anchor=$root/../shared/anchors/slurm
. "$here/anchor.sh"
. "$here/process_floor.sh"

work=$(mktemp -d /tmp/gantry-bench-XXXXXX)
chmod 1777 "$work"
state=$work/state
cleanup() {
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

now() { date +%s.%N; }
calc() { python3 -c "print(round($1, 2))"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
declare -A G S

# submit_loops CLIENTS TOTAL SBATCH [ARGS...]: parallel loops, prints the rate in jobs/s.
submit_loops() {
  local clients=$1 total=$2
  shift 2
  local per=$((total / clients)) t0 t1 k
  t0=$(now)
  for ((k = 0; k < clients; k++)); do
    (for ((i = 0; i < per; i++)); do "$@" >/dev/null 2>&1; done) &
  done
  wait
  t1=$(now)
  calc "$((per * clients)) / ($t1 - $t0)"
}

# e2e SBATCH SQUEUE N NAME: submits N trivial jobs, waits until none is left in the queue.
e2e() {
  local sbatch=$1 squeue=$2 n=$3 name=$4 t0 t1
  t0=$(now)
  for ((i = 0; i < n; i++)); do "$sbatch" -J "$name" -o /dev/null --wrap=true >/dev/null 2>&1; done
  while [ "$("$squeue" -h -n "$name" -o %i 2>/dev/null | wc -l)" -gt 0 ]; do sleep 0.2; done
  t1=$(now)
  calc "$n / ($t1 - $t0)"
}

# e2e_polled SBATCH SQUEUE N NAME: e2e while 4 clients run SQUEUE (the whole queue) in loops.
e2e_polled() {
  e2e_beside "" "$@"
}
# e2e_busy: the same while 4 loops start squeue to print its version only (no listing): what
# the pollers' processes alone take from the jobs on this machine's cores.
e2e_busy() {
  e2e_beside --version "$@"
}
e2e_beside() {
  local pids=() k arg=$1
  shift
  for ((k = 0; k < 4; k++)); do
    (while :; do "$2" $arg >/dev/null 2>&1; done) &
    pids+=($!)
  done
  e2e "$@"
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
}

# wait_idle PID: until the process used under 2 % of a CPU for a second (at most 60 s), so that
# queries are measured against a controller done with the queue's arrival (snapshots, scheduling
# passes), as a cluster's users meet it.
wait_idle() {
  local a b k
  for ((k = 0; k < 60; k++)); do
    a=$(awk '{print $14 + $15}' "/proc/$1/stat")
    sleep 1
    b=$(awk '{print $14 + $15}' "/proc/$1/stat")
    [ $((b - a)) -le 2 ] && return 0
  done
}

# The median of 7 runs after one unmeasured run (which may fill caches on either side). The
# clock is bash's own ($EPOCHREALTIME): no process is started between the two readings.
median_ms() {
  median_ms_after true "$@"
}

# median_ms_after PREP CMD...: the same, with `PREP K` (K = 0 for the unmeasured run, then 1..7)
# run before each run of CMD, untimed. In CMD, {K} becomes K.
median_ms_after() {
  local prep=$1 ts=() a b k
  shift
  for k in 0 1 2 3 4 5 6 7; do
    "$prep" "$k"
    local cmd=("${@//\{K\}/$k}")
    a=$EPOCHREALTIME
    "${cmd[@]}" >/dev/null 2>&1
    b=$EPOCHREALTIME
    [ "$k" = 0 ] || ts+=("$(calc "($b - $a) * 1000")")
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n 4p
}
changed_job=0
change_job() { "$SCONTROL" update JobId="$changed_job" Comment="bench-$1" >/dev/null 2>&1; }

# ---- Gantry -------------------------------------------------------------------------------
echo "# gantry: starting the local cluster ($here/bench-cluster.json)" >&2
GANTRY_HOME=$work/home "$BIN/gantry" up --spec "$here/bench-cluster.json" --state-dir "$state" \
  >"$work/up.log" 2>&1 || { cat "$work/up.log"; exit 1; }
eval "$("$BIN/gantry" env --state-dir "$state")"
gpid=$(cat "$state/run/gantryd.pid")
until [ "$("$BIN/sinfo" -h -N -t idle -o %N | wc -l)" = 4 ]; do sleep 0.2; done

echo "# gantry: sbatch, 1 and 4 clients x $N_SUBMIT held jobs" >&2
G[sbatch_1_client]=$(submit_loops 1 "$N_SUBMIT" "$BIN/sbatch" -H -o /dev/null --wrap=true)
G[sbatch_4_clients]=$(submit_loops 4 "$N_SUBMIT" "$BIN/sbatch" -H -o /dev/null --wrap=true)
"$BIN/scancel" -u "$(id -un)" >/dev/null 2>&1
echo "# gantry: end to end, $N_E2E trivial jobs" >&2
G[e2e_trivial]=$(e2e "$BIN/sbatch" "$BIN/squeue" "$N_E2E" bench-e2e)

echo "# the process floor of a trivial job, $N_E2E jobs" >&2
G[e2e_process_floor]=$(process_floor "$N_E2E" "$BIN" "$work")

echo "# gantry: queue of $N_QUEUE held jobs" >&2
"$BIN/gantry" down --state-dir "$state" >/dev/null
rm -f "$state/state.db"*  # a fresh controller: measure the queue alone
"$BIN/gantry" up --state-dir "$state" >/dev/null 2>&1
gpid=$(cat "$state/run/gantryd.pid")
sleep 1
before=$(rss_kib "$gpid")
"$BIN/bulk_submit" "$state/run/gantryd.sock" "$N_QUEUE" 8 >&2 || { echo "bulk_submit failed" >&2; exit 1; }
sleep 2
after=$(rss_kib "$gpid")
G[ctld_kib_per_job]=$(calc "($after - $before) / $N_QUEUE")
G[ctld_rss_queue]=$(calc "$after / 1024")
wait_idle "$gpid"
G[squeue_queue]=$(median_ms "$BIN/squeue")
G[squeue_long]=$(median_ms "$BIN/squeue" -l)
G[squeue_resorted]=$(median_ms "$BIN/squeue" -S -i)
SCONTROL=$BIN/scontrol changed_job=$((N_QUEUE / 3))
G[squeue_changed]=$(median_ms_after change_job "$BIN/squeue")
G[squeue_new_view]=$(median_ms_after true "$BIN/squeue" -o "%.18i %.9P %.{K}1j %.8u %.2t %.10M %.6D %R")
G[sacct_queue]=$(median_ms "$BIN/sacct")
G[squeue_user]=$(median_ms "$BIN/squeue" -u nobody)
G[scontrol_job]=$(median_ms "$BIN/scontrol" show job "$((N_QUEUE / 2))")
G[sinfo_queue]=$(median_ms "$BIN/sinfo")
sleep 6  # what the listings freed goes back to the system (gantryd: at most every 5 s)
G[ctld_kib_listed]=$(calc "($(rss_kib "$gpid") - $before) / $N_QUEUE")
until [ "$("$BIN/sinfo" -h -N -t idle -o %N | wc -l)" = 4 ]; do sleep 0.2; done
echo "# gantry: end to end with that queue, $N_E2E trivial jobs, then with 4 pollers" >&2
G[e2e_queue]=$(e2e "$BIN/sbatch" "$BIN/squeue" "$N_E2E" bench-eq)
G[e2e_queue_polled]=$(e2e_polled "$BIN/sbatch" "$BIN/squeue" "$N_E2E" bench-ep)
G[e2e_queue_busy]=$(e2e_busy "$BIN/sbatch" "$BIN/squeue" "$N_E2E" bench-eb)
"$BIN/gantry" down --state-dir "$state" >/dev/null

# ---- Slurm --------------------------------------------------------------------------------
slurm_ok=0
start_anchor && slurm_ok=1
if [ "$slurm_ok" = 1 ]; then
  spid=$(cat "$RUN_DIR/slurmctld.pid")
  /usr/bin/scancel -u "$(id -un)" >/dev/null 2>&1
  sleep 2
  echo "# slurm: sbatch, 1 and 4 clients x $N_SUBMIT held jobs" >&2
  S[sbatch_1_client]=$(submit_loops 1 "$N_SUBMIT" /usr/bin/sbatch -H -o /dev/null --wrap=true)
  S[sbatch_4_clients]=$(submit_loops 4 "$N_SUBMIT" /usr/bin/sbatch -H -o /dev/null --wrap=true)
  /usr/bin/scancel -u "$(id -un)" >/dev/null 2>&1
  sleep 35  # MinJobAge=30: let the cancelled jobs leave
  echo "# slurm: end to end, $N_SLURM_E2E trivial jobs" >&2
  S[e2e_trivial]=$(e2e /usr/bin/sbatch /usr/bin/squeue "$N_SLURM_E2E" bench-e2e)
  sleep 35
  echo "# slurm: queue of $N_SLURM_QUEUE held jobs" >&2
  # A fresh slurmctld, as gantryd is for this figure: one that had run the jobs before grew
  # only into the memory they had freed (1.19 KiB per job on 12-05, -1.1 to 3.95 on 12-07).
  restart_slurmctld || echo "# slurm: slurmctld did not restart; its memory figure is not fresh" >&2
  sleep 1
  before=$(rss_kib "$spid")
  submit_loops 4 "$N_SLURM_QUEUE" /usr/bin/sbatch -H -J bench-q -o /dev/null --wrap=true >/dev/null
  after=$(rss_kib "$spid")
  S[ctld_kib_per_job]=$(calc "($after - $before) / $N_SLURM_QUEUE")
  S[ctld_rss_queue]=$(calc "$after / 1024")
  wait_idle "$spid"
  S[squeue_queue]=$(median_ms /usr/bin/squeue)
  S[squeue_long]=$(median_ms /usr/bin/squeue -l)
  S[squeue_resorted]=$(median_ms /usr/bin/squeue -S -i)
  SCONTROL=/usr/bin/scontrol changed_job=$(/usr/bin/squeue -h -n bench-q -o %i | sed -n 3p)
  S[squeue_changed]=$(median_ms_after change_job /usr/bin/squeue)
  S[squeue_new_view]=$(median_ms_after true /usr/bin/squeue -o "%.18i %.9P %.{K}1j %.8u %.2t %.10M %.6D %R")
  S[sacct_queue]=$(median_ms /usr/bin/sacct)
  S[squeue_user]=$(median_ms /usr/bin/squeue -u nobody)
  S[scontrol_job]=$(median_ms /usr/bin/scontrol show job "$(/usr/bin/squeue -h -n bench-q -o %i | head -1)")
  S[sinfo_queue]=$(median_ms /usr/bin/sinfo)
  sleep 6
  S[ctld_kib_listed]=$(calc "($(rss_kib "$spid") - $before) / $N_SLURM_QUEUE")
  echo "# slurm: end to end with that queue, $N_SLURM_E2E trivial jobs, then with 4 pollers" >&2
  S[e2e_queue]=$(e2e /usr/bin/sbatch /usr/bin/squeue "$N_SLURM_E2E" bench-eq)
  S[e2e_queue_polled]=$(e2e_polled /usr/bin/sbatch /usr/bin/squeue "$N_SLURM_E2E" bench-ep)
  S[e2e_queue_busy]=$(e2e_busy /usr/bin/sbatch /usr/bin/squeue "$N_SLURM_E2E" bench-eb)
  /usr/bin/scancel -n bench-q >/dev/null 2>&1
fi

# ---- report -------------------------------------------------------------------------------
echo "# $(date -u +%FT%TZ) $(nproc) cores; gantry queue $N_QUEUE jobs, slurm queue $N_SLURM_QUEUE jobs"
printf '%-18s %12s %12s %-8s %s\n' figure gantry slurm unit ratio
for f in sbatch_1_client sbatch_4_clients e2e_trivial e2e_process_floor ctld_kib_per_job \
  ctld_kib_listed ctld_rss_queue squeue_queue squeue_long squeue_resorted squeue_changed squeue_new_view sacct_queue squeue_user scontrol_job \
  sinfo_queue e2e_queue e2e_queue_polled e2e_queue_busy; do
  g=${G[$f]:-n/a}
  s=${S[$f]:-n/a}
  case $f in
    sbatch_*|e2e_*) unit=jobs/s; better=higher ;;
    ctld_kib_*) unit=KiB; better=lower ;;
    ctld_rss_queue) unit=MiB; better=lower ;;
    squeue_*|sacct_queue|scontrol_job|sinfo_queue) unit=ms; better=lower ;;
  esac
  ratio=n/a
  same_size=1
  case $f in ctld_rss_queue|squeue_*|sacct_queue|scontrol_job|sinfo_queue|e2e_queue*)
    [ "$N_QUEUE" = "$N_SLURM_QUEUE" ] || same_size=0 ;;
  esac
  if [ "$s" != n/a ] && [ "$g" != n/a ] && [ "$same_size" = 1 ]; then
    if [ "$better" = higher ]; then ratio=$(calc "$g / max($s, 0.001)")x; else
      ratio=$(calc "$s / max($g, 0.001)")x; fi
  fi
  printf '%-18s %12s %12s %-8s %s\n' "$f" "$g" "$s" "$unit" "$ratio"
done
