#!/usr/bin/env bash
# A prolog that fails drains its node with a reason and requeues the job held; releasing the job
# runs it elsewhere. scontrol update drains and resumes nodes.
# usage: prolog_failure.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
cd "$WORK"

bad=itest-cpu-0
touch "$WORK/fail-prolog-on-$bad"
# Only the bad node is usable at first, so the job must land there.
scontrol update NodeName='itest-cpu-[1-3]' State=DRAIN Reason="test hold" || fail "drain"
sinfo -N -h -o '%N %t' | grep -q "itest-cpu-1 drain" || { sinfo -N; fail "node not drained"; }
id=$(sbatch --parsable --wrap 'echo ran on $SLURMD_NODENAME') || fail "sbatch"
wait_for 30 bash -c "scontrol show node $bad | grep -q 'Reason=Prolog error'" ||
  { scontrol show node $bad; fail "node $bad not drained after the prolog failed"; }
wait_state "$id" PENDING
scontrol show job "$id" | grep -q "Reason=launch_failed_requeued_held" ||
  { scontrol show job "$id"; fail "job not requeued held"; }
[ "$(job_field "$id" Restarts)" = 1 ] || fail "Restarts=$(job_field "$id" Restarts)"
[ "$(job_field "$id" Priority)" = 0 ] || fail "held job priority $(job_field "$id" Priority)"

# The other nodes come back; the released job runs on one of them.
scontrol update NodeName='itest-cpu-[1-3]' State=RESUME || fail "resume"
scontrol release "$id" || fail "release"
wait_state "$id" COMPLETED
grep -q "^ran on itest-cpu-[123]$" "$WORK/slurm-$id.out" || fail "ran: $(cat "$WORK/slurm-$id.out")"

# Reasons are required for DRAIN, and plain users may not change nodes.
out=$(scontrol update NodeName=itest-cpu-2 State=DRAIN 2>&1) && fail "drain without reason accepted"
echo "$out" | grep -q "You must specify a reason" || fail "message: $out"
echo PASS
