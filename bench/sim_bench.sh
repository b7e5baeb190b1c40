#!/bin/sh
# sim_bench.sh: how fast `gantry sim` replays workloads (issue 26's targets: the NASA trace in
# under 10 s; a million jobs on 10,000 nodes in under 10 minutes, on a 2-core machine).
# Prints, per workload, the simulated span, the seconds it took, the times faster than real
# time, the passes, and the peak memory.
#
# usage: bench/sim_bench.sh [JOBS]   (JOBS: the synthetic trace's size, 1000000 by default)
# Run from the repository root after a release build (build/bin/gantry).
set -eu
jobs=${1:-1000000}
gantry=build/bin/gantry
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # NAME SPEC TRACE
  /usr/bin/time -f '%M' -o "$tmp/rss" "$gantry" sim --spec "$2" --trace "$3" --out "$tmp/out" \
    >"$tmp/log" 2>&1
  line=$(grep '^as specified:' "$tmp/log")
  echo "$1: ${line#as specified: }; peak RSS $(($(cat "$tmp/rss") / 1024)) MiB"
}

run "NASA iPSC/860 (18,239 jobs, 128 nodes)" examples/sim-ipsc.json \
  data/traces/NASA-iPSC-1993-3.1-cln.swf.gz
python3 bench/synthetic_swf.py "$jobs" 10000 >"$tmp/synthetic.swf"
run "synthetic ($jobs jobs, 10,000 nodes)" bench/sim-10k.json "$tmp/synthetic.swf"
