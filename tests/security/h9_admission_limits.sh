#!/usr/bin/env bash
# H9, L6 and L8: MaxJobCount, MaxStepCount, max_script_size and field lengths were accepted in the
# spec but never enforced, so one user could fill gantryd's memory and disk. Now each holds
# with Slurm's errors; a full queue makes sbatch wait and retry, as Slurm's does.
# usage: h9_admission_limits.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@" "$(dirname "$0")/specs/limits.json"
start_cluster
too_long="sbatch: error: Batch job submission failed: Pathname of a file, directory or other \
parameter too long"
{ echo '#!/bin/bash'; head -c 1200 /dev/zero | tr '\0' '#'; echo; } >"$WORK/$BOB/big.sh"
chmod 644 "$WORK/$BOB/big.sh"
expect "script over max_script_size" "$too_long" "$(as "$BOB" sbatch big.sh 2>&1)"
expect "name over 1024 bytes" "$too_long" \
  "$(as "$BOB" sbatch -J "$(head -c 1025 /dev/zero | tr '\0' x)" --wrap true 2>&1)"
grep -q "refused: name: 1025 bytes, at most 1024" "$STATE/logs/gantryd.log" ||
  fail "gantryd's log does not name the field"
# L6: a terminal escape in a job name would reach every user who lists the queue.
expect "an escape in a name" "sbatch: error: Batch job submission failed: name: holds the \
control character 0x1b; texts other users see may hold none" \
  "$(as "$BOB" sbatch -J "$(printf 'x\033[2J')" --wrap true 2>&1)"

# MaxJobCount=4: three records at most; a fourth submission waits until one is purged.
ids=()
for _ in 1 2 3; do ids+=("$(as "$ALICE" sbatch --parsable -H --wrap true)") || fail "sbatch"; done
as "$BOB" sbatch --parsable --wrap true >"$WORK/bob.out" 2>"$WORK/bob.err" &
waiting=$!
wait_for 10 grep -q "sleeping and retrying" "$WORK/bob.err" || fail "bob's sbatch: $(cat "$WORK/bob.err")"
expect "a full queue" "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying" \
  "$(cat "$WORK/bob.err")"
as "$ALICE" scancel "${ids[0]}" || fail "scancel"
wait "$waiting" || fail "bob's sbatch gave up: $(cat "$WORK/bob.err")"
bob_job=$(cat "$WORK/bob.out")
[ -n "$bob_job" ] || fail "no job id for bob"
wait_state "$bob_job" COMPLETED

# MaxStepCount=2: a third srun step is refused.
as "$ALICE" scancel "${ids[1]}" "${ids[2]}"
wait_until 15 '[ "$(squeue -h | wc -l)" = 0 ]' || fail "the queue did not empty"
sleep 6  # MinJobAge=1: purged within the next purge pass
id=$(as "$ALICE" sbatch --parsable -o "$WORK/$ALICE/steps.out" --wrap \
  'srun true; srun true; srun true; echo "third=$?"') || fail "sbatch steps"
wait_state "$id" COMPLETED 60
grep -qx "srun: error: Unable to create step for job $id: Step limit reached for this job" \
  "$WORK/$ALICE/steps.out" || fail "steps: $(cat "$WORK/$ALICE/steps.out")"
grep -qx "third=1" "$WORK/$ALICE/steps.out" || fail "srun's exit: $(cat "$WORK/$ALICE/steps.out")"
expect_alive
echo PASS
