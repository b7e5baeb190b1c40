#!/usr/bin/env bash
# Toil (Debian's toil 5.9, `--batchSystem slurm`) drives a local Gantry cluster unchanged: it
# reads `scontrol show config`, submits with sbatch, polls squeue and `sacct -S 1970-01-01`.
# Three runs of tests/integration/data/toil_workflow.py: one that succeeds, one whose job fails,
# and one whose running job is scancelled from outside (Toil sees it end without its work done,
# runs it again and finishes). Skipped (exit 77) where toil is not installed.
source "$(dirname "$0")/lib.sh" "$1" "$2"
/usr/bin/python3 -c "import toil" 2>/dev/null || { echo "toil not installed: skipped"; exit 77; }
start_cluster
export USER=${USER:-$(id -un)}
for cmd in sbatch sacct scancel squeue scontrol; do
  [ "$(command -v $cmd)" = "$BIN/$cmd" ] || fail "$cmd resolves to $(command -v $cmd)"
done

run_toil() {  # NAME [ARGS...]: the workflow with its own job store; output in $WORK/NAME.log
  local name=$1
  shift
  mkdir -p "$WORK/$name"
  timeout 240 /usr/bin/python3 "$SRC/tests/integration/data/toil_workflow.py" \
    "file:$WORK/$name/jobstore" --out "$WORK/$name" --batchSystem slurm --retryCount 0 \
    --statePollingWait 1 --workDir "$WORK/$name" "$@" >"$WORK/$name.log" 2>&1
}
job_ids() { sacct -n -X -P -S 1970-01-01 -o JobID; }

# 1. Success: two child jobs, their results come back.
run_toil ok --numbers 1,2 || { tail -30 "$WORK/ok.log"; fail "the workflow failed"; }
grep -q "^result \[2, 4\]$" "$WORK/ok.log" || { tail -30 "$WORK/ok.log"; fail "no result"; }
[ -s "$WORK/ok/out-1.txt" ] && [ -s "$WORK/ok/out-2.txt" ] || fail "the jobs left no output"
for id in $(job_ids); do
  [ "$(sacct -n -X -P -o State,ExitCode -j "$id")" = "COMPLETED|0:0" ] ||
    fail "job $id: $(sacct -n -X -P -o State,ExitCode -j "$id")"
done
before=$(job_ids | wc -l)

# 2. A failing job: Toil reports it failed and exits non-zero.
run_toil bad --numbers 1,99 && fail "a failing workflow succeeded"
grep -q "failed jobs" "$WORK/bad.log" || { tail -30 "$WORK/bad.log"; fail "no failure reported"; }
[ -s "$WORK/bad/out-99.txt" ] || fail "the failing job did not run"
before=$(job_ids | wc -l)

# 3. A running job cancelled from outside.
run_toil stop --numbers 5 --sleep 10 &
toil_pid=$!
EXTRA_PIDS=$toil_pid
wait_for 60 bash -c "[ \$(squeue -h -t R -o %i | wc -l) -gt 0 ]" || fail "no Toil job ran"
victim=$(squeue -h -t R -o %i | head -1)
scancel "$victim"
wait "$toil_pid" || { tail -30 "$WORK/stop.log"; fail "Toil did not recover from the cancel"; }
grep -q "^result \[10\]$" "$WORK/stop.log" || { tail -30 "$WORK/stop.log"; fail "no result"; }
[ "$(sacct -n -X -P -o State -j "$victim")" = "CANCELLED by $(id -u)" ] ||
  fail "job $victim: $(sacct -n -X -P -o State -j "$victim")"
[ "$(sacct -n -P -o State,ExitCode -j "$victim.batch")" = "CANCELLED|0:15" ] ||
  fail "job $victim's batch step: $(sacct -n -P -o State,ExitCode -j "$victim.batch")"
[ "$(job_ids | wc -l)" -gt $((before + 1)) ] || fail "Toil did not run the cancelled job again"
echo PASS
