#!/usr/bin/env bash
# What a metrics scrape costs the scheduler: the same work measured with nobody scraping and
# with a scraper reading gantryd's /metrics every SCRAPE_EVERY (1) second (Prometheus' default
# is every 15 s), on a cluster whose queue holds N_PENDING (10000) jobs waiting behind
# whole-node jobs, so that every scheduling cycle walks them. Per phase it prints:
#   - the scheduler's mean cycle (slurm_sched_mean_cycle, after sdiag -r at the phase's start),
#   - submissions per second (bulk_submit of N_SUBMIT held jobs, 8 threads);
# then how long one scrape takes (the median of 21) and its size.
# usage: bench/scrape_cost_bench.sh [BIN_DIR]      Sizes: N_PENDING N_SUBMIT PHASE_S SCRAPE_EVERY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$(cd "${1:-$root/build/bin}" && pwd)
N_PENDING=${N_PENDING:-10000}
N_SUBMIT=${N_SUBMIT:-5000}
PHASE_S=${PHASE_S:-20}
SCRAPE_EVERY=${SCRAPE_EVERY:-1}
work=$(mktemp -d /tmp/gantry-scrapebench-XXXXXX)
chmod 755 "$work"
state=$work/state
scraper=
cleanup() {
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
export GANTRY_HOME=$work/root PATH=$BIN:$PATH
unset SLURM_CONF GANTRY_CONF GANTRY_STATE_DIR
"$BIN/gantry" up --spec "$here/bench-cluster.json" --state-dir "$state" >/dev/null ||
  { echo "gantry up failed"; exit 1; }
eval "$("$BIN/gantry" env --state-dir "$state")"
url=$(cat "$state/run/metrics.url")/metrics
metric() { curl -sf "$url/scheduler" | awk -v m="$1" '$1 == m { print $2 }'; }

# Every node held by a whole-node job; the queue fills behind them.
for _ in $(sinfo -h -N -o %N | sort -u); do
  sbatch --exclusive -N1 -o /dev/null --wrap 'sleep 3600' >/dev/null
done
"$BIN/bulk_submit" "$state/run/gantryd.sock" "$N_PENDING" 8 --run >/dev/null ||
  { echo "bulk_submit failed"; exit 1; }
sleep 5  # let the first cycles see the whole queue

phase() {  # phase NAME: prints the figures of one phase
  sdiag -r >/dev/null
  local submit
  submit=$("$BIN/bulk_submit" "$state/run/gantryd.sock" "$N_SUBMIT" 8 | sed -n 's/.*(\(.*\) jobs\/s).*/\1/p')
  sleep "$PHASE_S"
  printf '%-22s mean cycle %6.0f us over %4s cycles   submissions %6s jobs/s\n' "$1" \
    "$(metric slurm_sched_mean_cycle)" "$(metric slurm_schedule_cycle_cnt)" "$submit"
}
echo "queue: $(squeue -h -t pending | wc -l) pending jobs, $(squeue -h -t running | wc -l) running"
phase "nobody scraping"
( while :; do curl -sf "$url" >/dev/null; sleep "$SCRAPE_EVERY"; done ) &
scraper=$!
phase "scraping every ${SCRAPE_EVERY} s"
kill "$scraper"; scraper=
phase "nobody scraping again"
times=$(for _ in $(seq 21); do curl -sf -o /dev/null -w '%{time_total}\n' "$url"; done | sort -n)
echo "one scrape: $(echo "$times" | sed -n 11p) s (median of 21), $(curl -sf "$url" | wc -c) bytes"
