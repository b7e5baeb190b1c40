#!/usr/bin/env bash
# M1: the owner's `scancel -s CONT` resumed a job an operator had suspended, while squeue still
# said S and its time limit stood still. Now every signal but KILL is refused, as in Slurm.
# usage: m1_suspended_signal.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
id=$(as "$ALICE" sbatch --parsable -o "$WORK/$ALICE/n.out" --wrap \
  'i=0; while :; do i=$((i+1)); echo $i > '"$WORK/$ALICE"'/counter; sleep 0.1; done') || fail "sbatch"
wait_state "$id" RUNNING
ln -s "$ALICE/counter" "$WORK/counter"
advancing counter || fail "the job does not run"
scontrol suspend "$id" || fail "scontrol suspend"
wait_state "$id" SUSPENDED
# The agent sends SIGSTOP after the state changed: give a slow one time.
wait_for 10 stopped counter || fail "suspend did not stop the job"
for sig in CONT USR1 STOP TERM; do
  out=$(as "$ALICE" scancel -s "$sig" "$id" 2>&1) && fail "scancel -s $sig of a suspended job succeeded"
  expect "scancel -s $sig" \
    "scancel: error: Kill job error on job id $id: Job can not be altered now, try again later" "$out"
done
for flag in -f -b; do
  as "$ALICE" scancel "$flag" -s CONT "$id" 2>/dev/null && fail "scancel $flag -s CONT succeeded"
done
stopped counter || fail "the suspended job runs again"
[ "$(job_state "$id")" = SUSPENDED ] || fail "state $(job_state "$id")"
scontrol resume "$id" || fail "scontrol resume"
advancing counter || fail "resume did not continue the job"
as "$ALICE" scancel "$id" || fail "scancel"
wait_state "$id" CANCELLED
# KILL still ends a suspended job.
id=$(as "$ALICE" sbatch --parsable --wrap 'sleep 100') || fail "sbatch"
wait_state "$id" RUNNING
scontrol suspend "$id" || fail "suspend"
wait_state "$id" SUSPENDED
as "$ALICE" scancel -s KILL "$id" || fail "scancel -s KILL of a suspended job"
wait_state "$id" CANCELLED
echo PASS
