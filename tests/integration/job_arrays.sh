#!/usr/bin/env bash
# Job arrays on a real local cluster (4 nodes): tasks run under the %throttle with their own
# ids, SLURM_ARRAY_* and %A/%a file names; squeue collapses the pending tasks; scancel and
# scontrol act on the whole array or on single tasks; sacct lists every task; a job that
# depends on the array waits for all of it (and gantry explain says so); a bad --array is refused.
# usage: job_arrays.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
cd "$WORK"

# 1. Four tasks, at most two at once, each held until its go file exists.
cat >"$WORK/task.sh" <<JOB
#!/bin/bash
env | grep -E '^SLURM_(ARRAY_|JOB_ID=)' | sort
while [ ! -e "$WORK/go-\$SLURM_ARRAY_TASK_ID" ]; do sleep 0.1; done
JOB
array=$(sbatch --parsable --array=1-4%2 -o "$WORK/a-%A_%a-%j.out" "$WORK/task.sh") ||
  fail "sbatch --array"
two_running() { [ "$(squeue -h -j "$array" -t R -o %i | wc -l)" = 2 ]; }
wait_for 30 two_running || { squeue; fail "two tasks should run"; }
listing=$(squeue -h -j "$array" -o '%i %t %r')
grep -qx "${array}_\[3-4%2\] PD JobArrayTaskLimit" <<<"$listing" || fail "squeue: $listing"
grep -qx "${array}_1 R None" <<<"$listing" || fail "squeue: $listing"
grep -qx "${array}_2 R None" <<<"$listing" || fail "squeue: $listing"
[ "$(squeue -h -r -j "$array" -t PD -o %i | tr '\n' ' ')" = "${array}_3 ${array}_4 " ] ||
  fail "squeue -r: $(squeue -r -j "$array")"
scontrol show job "$array" | grep -q "^JobId=$array ArrayJobId=$array ArrayTaskId=3-4%2 ArrayTaskThrottle=2 " ||
  fail "scontrol show job: $(scontrol show job "$array")"
# The whole listing, which gantryd makes and keeps, is the one squeue makes from the records
# (GANTRY_SQUEUE_IN_CLIENT), and a running task's TIME goes on in it.
for format in '%i|%t|%r|%P|%u|%D|%j' '%i|%T|%R|%C|%Q'; do
  for extra in "" "-r" "-S -i"; do
    made=$(squeue $extra -o "$format")
    own=$(GANTRY_SQUEUE_IN_CLIENT=1 squeue $extra -o "$format")
    [ "$made" = "$own" ] || fail "squeue $extra -o '$format': gantryd made
$made
squeue made
$own"
  done
done
grep -qx "${array}_\[3-4%2\]|PD|JobArrayTaskLimit" <<<"$(squeue -o '%i|%t|%r')" ||
  fail "squeue: $(squeue)"
time_used() { squeue -h -t R -o %M | head -1; }
before=$(time_used)
sleep 2.2
[ "$(time_used)" != "$before" ] || fail "squeue: a running task's TIME stays $before"
for t in 1 2 3 4; do touch "$WORK/go-$t"; done
all_done() { [ -z "$(squeue -h -j "$array" -o %i)" ]; }
wait_for 60 all_done || { squeue; fail "array did not finish"; }
for t in 1 2 3 4; do
  out=$(ls "$WORK"/a-"${array}_$t"-*.out 2>/dev/null) || fail "no output file for task $t"
  raw=${out##*-}
  raw=${raw%.out}
  for var in SLURM_ARRAY_JOB_ID=$array SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_COUNT=4 \
             SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_STEP=1 \
             SLURM_JOB_ID=$raw; do
    grep -qx "$var" "$out" || fail "task $t: missing $var in $(cat "$out")"
  done
done
# The last task to start keeps the array's own id.
ls "$WORK"/a-"${array}"_*-"$array".out >/dev/null || fail "no task ran as job $array"
states=$(sacct -n -X -j "$array" -o JobID,State -P | sort | tr '\n' ' ')
[ "$states" = "${array}_1|COMPLETED ${array}_2|COMPLETED ${array}_3|COMPLETED ${array}_4|COMPLETED " ] ||
  fail "sacct: $states"

# 2. Single tasks: cancel one pending task, release another alone, cancel the rest.
held=$(sbatch --parsable -H --array=0-3 -o /dev/null --wrap true) || fail "sbatch -H --array"
scancel "${held}_1" || fail "scancel ${held}_1"
[ "$(squeue -h -j "$held" -o %i)" = "${held}_[0,2-3]" ] || fail "after scancel: $(squeue -j "$held")"
scontrol release "${held}_2" || fail "scontrol release ${held}_2"
task_done() { sacct -n -X -j "${held}_2" -o State -P | grep -qx COMPLETED; }
wait_for 30 task_done || { squeue; sacct -j "$held"; fail "released task did not complete"; }
[ "$(squeue -h -j "$held" -o '%i %r')" = "${held}_[0,3] JobHeldUser" ] ||
  fail "still held: $(squeue -j "$held")"
scancel "$held" || fail "scancel $held"
[ -z "$(squeue -h -j "$held" -o %i 2>/dev/null)" ] || fail "array not cancelled: $(squeue)"
sacct -n -X -j "$held" -o JobID,State -P | grep -qx "${held}_\[0,3\]|CANCELLED by 0" ||
  fail "sacct after scancel: $(sacct -X -j "$held" -o JobID,State -P)"

# 3. A job after the whole array runs only once every task completed.
rm -f "$WORK"/go-*
array=$(sbatch --parsable --array=1-2 -o /dev/null "$WORK/task.sh") || fail "sbatch array 3"
after=$(sbatch --parsable -d "afterok:$array" -o /dev/null --wrap true) || fail "sbatch -d"
wait_for 30 two_running || fail "tasks of array 3 did not start"
touch "$WORK/go-1"
sleep 1
[ "$(job_state "$after")" = PENDING ] || fail "dependent job is $(job_state "$after")"
[ "$(job_field "$after" Reason)" = Dependency ] || fail "reason $(job_field "$after" Reason)"
[ "$(job_field "$after" Dependency)" = "afterok:$array(unfulfilled)" ] ||
  fail "dependency $(job_field "$after" Dependency)"
# gantry explain spells it out, with the state of each task it waits for.
explained=$("$BIN/gantry" explain "$after") || fail "gantry explain $after"
grep -qx "  Dependency: afterok:$array(unfulfilled)." <<<"$explained" || fail "explain: $explained"
grep -q "^  afterok:$array: .*${array}_2 RUNNING" <<<"$explained" || fail "explain: $explained"
touch "$WORK/go-2"
wait_state "$after" COMPLETED
[ "$(job_field "$after" Dependency)" = "(null)" ] || fail "met: $(job_field "$after" Dependency)"

# 4. A bad --array is refused with Slurm's text and nothing is queued.
before=$(squeue -h | wc -l)
if sbatch --array=5-1 --wrap true 2>"$WORK/err"; then fail "sbatch --array=5-1 succeeded"; fi
grep -qx "sbatch: error: Batch job submission failed: Invalid job array specification" \
  "$WORK/err" || fail "error text: $(cat "$WORK/err")"
[ "$(squeue -h | wc -l)" = "$before" ] || fail "a job was queued"
echo PASS
