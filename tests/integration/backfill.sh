#!/usr/bin/env bash
# Backfill on a real 4-node cluster, whole nodes (--exclusive): with two nodes busy for 10 minutes, a 3-node job waits for
# them (Resources, its expected start shown by squeue --start and scontrol); a 1-node job with a
# 5-minute limit fits in the free nodes before that plan and starts at once; a 2-node job with a
# 30-minute limit would delay the 3-node job and waits (Priority); once the wide job's plan is
# gone (the busy job cancelled), everything that fits starts. sdiag counts what happened.
# usage: backfill.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2"
start_cluster

reason() { squeue -h -j "$1" -o %r; }

busy=$(sbatch --parsable -N 2 --exclusive -t 10 -o /dev/null --wrap 'sleep 600') || fail "sbatch busy"
wait_state "$busy" RUNNING 30
wide=$(sbatch --parsable -N 3 --exclusive -t 10 -o /dev/null --wrap 'sleep 1') || fail "sbatch wide"
wait_until 30 '[ "$(reason "$wide")" = Resources ]' || fail "wide: $(reason "$wide")"
short=$(sbatch --parsable -N 1 --exclusive -t 5 -o /dev/null --wrap 'sleep 600') || fail "sbatch short"
long=$(sbatch --parsable -N 2 --exclusive -t 30 -o /dev/null --wrap 'sleep 1') || fail "sbatch long"
wait_state "$short" RUNNING 30
wait_until 30 '[ "$(reason "$long")" = Priority ]' || fail "long: $(reason "$long")"
expect "wide still waits" "PENDING" "$(job_state "$wide")"

# The wide job's expected start: when the busy job's 10 minutes are over (on the minute grid).
busy_end=$(( $(date -d "$(squeue -h -j "$busy" -o %S)" +%s) + 600 ))
planned=$(date -d "$(squeue -h -j "$wide" --start -o %S)" +%s) || fail "no expected start"
[ "$planned" -ge "$busy_end" ] && [ "$planned" -lt $((busy_end + 120)) ] ||
  fail "wide planned at $planned, busy ends at $busy_end"
scontrol show job "$wide" | grep -q "StartTime=$(date -d "@$planned" +%Y-%m-%dT%H:%M:%S)" ||
  fail "scontrol StartTime: $(scontrol show job "$wide" | grep -o 'StartTime=[^ ]*')"

# sdiag: the short job was backfilled; passes planned jobs; the submissions were counted.
stats=$(sdiag) || fail "sdiag"
grep -q "Total backfilled jobs (since last slurm start): [1-9]" <<<"$stats" ||
  fail "sdiag backfilled: $stats"
grep -Eq "^	Total cycles: [1-9]" <<<"$stats" || fail "sdiag cycles: $stats"
grep -Eq "^Jobs submitted: 4$" <<<"$stats" || fail "sdiag submitted: $stats"
grep -Eq "^	REQUEST_SUBMIT_BATCH_JOB +\( 4003\) count:4 " <<<"$stats" || fail "sdiag rpc: $stats"
grep -Eq "^	$(id -un) +\( *$(id -u)\) count:" <<<"$stats" || fail "sdiag user: $stats"
if [ "$(id -u)" = 0 ]; then
  expect "sdiag -r" "Reset scheduling statistics" "$(sdiag -r)"
  grep -q "^Jobs submitted: 0$" <<<"$(sdiag)" || fail "sdiag after reset: $(sdiag)"
fi

# Without the busy job the wide one starts; the long one waits for nodes.
scancel "$busy"
wait_state "$wide" COMPLETED 60
wait_until 30 '[ "$(job_state "$long")" != PENDING ]' || fail "long never started"
scancel "$short"
echo "backfill: ok"
