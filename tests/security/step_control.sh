#!/usr/bin/env bash
# Issue 25: what the agent added to its spool for jobs that outlive it is root's alone. A user
# whose srun step runs on a node can neither command its gantry-stepd (the control FIFO takes
# "signal N" and "terminate MS" and is obeyed as root) nor forge the agent's lease (which tells
# every keeper on the node when to end its job): bob, and alice whose step it is, are refused
# both, and the step goes on.
# usage: step_control.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
d=$WORK/$ALICE
id=$(as "$ALICE" sbatch --parsable -o "$d/job.out" --wrap "
srun -n1 bash -c 'touch $d/ready; while [ ! -e $d/stop ]; do sleep 0.1; done; echo step-done'") ||
  fail "sbatch"
wait_for 30 test -e "$d/ready" || { cat "$d/job.out"; fail "the step did not start"; }
node=$(job_field "$id" NodeList)
spool=$STATE/spool/$node
fifo=$spool/jobs/$id.0.ctl
lease=$spool/lease
[ -p "$fifo" ] || fail "no control FIFO at $fifo"
[ -f "$lease" ] || fail "no lease file at $lease"
expect "FIFO mode and owner" "600 root" "$(stat -c '%a %U' "$fifo")"
expect "lease mode and owner" "600 root" "$(stat -c '%a %U' "$lease")"
for who in "$BOB" "$ALICE"; do
  as "$who" bash -c "echo 'terminate 0' > $fifo" 2>/dev/null && fail "$who wrote to the step's FIFO"
  as "$who" bash -c "echo 'lease 1 1 1 0' > $lease" 2>/dev/null && fail "$who wrote the lease"
  as "$who" cat "$lease" >/dev/null 2>&1 && fail "$who read the lease"
done
# The step was not touched: it ends when alice lets it.
[ "$(job_state "$id")" = RUNNING ] || fail "the job is $(job_state "$id")"
touch "$d/stop"
wait_state "$id" COMPLETED
grep -qx step-done "$d/job.out" || fail "the step's output: $(cat "$d/job.out")"
echo PASS
