#!/usr/bin/env bash
# scontrol suspend/resume on a real local cluster: a running job's processes (the script and a
# child it started in its own session) really stop and continue, squeue shows S, RunTime stops,
# the state survives a controller crash, and scancel still ends a suspended job. Then scontrol
# update PartitionName= State=: DRAIN refuses submissions, DOWN holds new jobs back (reason
# PartitionDown), sinfo's AVAIL follows.
# usage: suspend_resume.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
cd "$WORK"

# A job whose script and a setsid child each write a counter every 0.1 s.
id=$(sbatch --parsable -t 10 -o "$WORK/counter.out" --wrap "
setsid bash -c 'i=0; while true; do i=\$((i+1)); echo \$i > $WORK/child; sleep 0.1; done' &
i=0; while true; do i=\$((i+1)); echo \$i > $WORK/counter; sleep 0.1; done") || fail "sbatch"
wait_state "$id" RUNNING
wait_for 20 test -s "$WORK/child" || fail "the job's child never wrote"

advancing counter || fail "the job does not count"

scontrol suspend "$id" || fail "scontrol suspend"
[ "$(job_state "$id")" = SUSPENDED ] || fail "state $(job_state "$id") after suspend"
[ "$(squeue -h -j "$id" -o %t)" = S ] || fail "squeue ST $(squeue -h -j "$id" -o %t)"
# The agent sends SIGSTOP after scontrol returns: give a slow one time.
wait_for 10 stopped counter || fail "the script still runs while suspended"
wait_for 10 stopped child || fail "the script's setsid child still runs while suspended"
run1=$(job_field "$id" RunTime)
sleep 1.2
[ "$(job_field "$id" RunTime)" = "$run1" ] || fail "RunTime moves while suspended"
[ "$(job_field "$id" SuspendTime)" != None ] || fail "SuspendTime not set"
# Slurm: the node of a suspended job shows idle (its CPUs are free, its memory is not).
node=$(job_field "$id" NodeList)
[ "$(sinfo -h -n "$node" -o %t)" = idle ] || fail "node $node is $(sinfo -h -n "$node" -o %t)"
# Suspending again is no error; resuming a running job is.
scontrol suspend "$id" || fail "second suspend"
end1=$(job_field "$id" EndTime)

sleep 2
scontrol resume "$id" || fail "scontrol resume"
[ "$(job_state "$id")" = RUNNING ] || fail "state $(job_state "$id") after resume"
advancing counter || fail "the script does not run again after resume"
advancing child || fail "the child does not run again after resume"
[ "$(job_field "$id" EndTime)" != "$end1" ] || fail "EndTime did not move on resume"
err=$(scontrol resume "$id" 2>&1) && fail "resume of a running job succeeded"
[ "$err" = "Job is not suspended for job $id" ] || fail "resume error: $err"

# Suspended across a controller crash: still suspended, still stopped; resume works after.
scontrol suspend "$id" || fail "suspend before the crash"
# Crash the controller only once the job is stopped (it sends SIGSTOP after scontrol returns).
wait_for 10 stopped counter || fail "not stopped before the crash"
kill -9 "$(cat "$STATE/run/gantryd.pid")"
sleep 1
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up"; }
wait_for 30 is_state "$id" SUSPENDED || fail "state $(job_state "$id") after the restart"
stopped counter || fail "the job runs again after the controller restarted"
scontrol resume "$id" || fail "resume after the restart"
advancing counter || fail "no progress after resume following the restart"

# scancel of a suspended job ends it: every process goes (SIGCONT before SIGTERM).
scontrol suspend "$id" || fail "suspend before scancel"
wait_for 10 stopped counter || fail "not stopped before scancel"
scancel "$id" || fail "scancel"
wait_state "$id" CANCELLED
# CANCELLED may come before the agent killed the processes (KillWait): a survivor counts on.
wait_for 15 stopped counter || fail "the script survived scancel"
wait_for 15 stopped child || fail "the child survived scancel"

# Partitions: DRAIN refuses new jobs, DOWN queues them with PartitionDown, UP runs them.
scontrol update PartitionName=cpu State=DRAIN || fail "State=DRAIN"
[ "$(sinfo -h -p cpu -o %a | head -1)" = drain ] || fail "sinfo AVAIL $(sinfo -h -p cpu -o %a)"
err=$(sbatch --wrap true 2>&1) && fail "sbatch into a drained partition succeeded"
[ "$err" = "sbatch: error: Batch job submission failed: Required partition not available (inactive or drain)" ] ||
  fail "sbatch error: $err"
scontrol update PartitionName=cpu State=DOWN || fail "State=DOWN"
id=$(sbatch --parsable --wrap true) || fail "sbatch into a down partition"
wait_for 10 bash -c "[ \"\$(squeue -h -j $id -o %r)\" = PartitionDown ]" ||
  fail "reason $(squeue -h -j "$id" -o %r)"
# Durable: the partition stays DOWN over a controller restart.
kill -9 "$(cat "$STATE/run/gantryd.pid")"
sleep 1
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up3.out" 2>&1 || { cat "$WORK/up3.out"; fail "up"; }
wait_for 30 bash -c "scontrol show partition cpu 2>/dev/null | grep -q ' State=DOWN '" ||
  fail "partition state after the restart: $(scontrol show partition cpu | grep State=)"
[ "$(job_state "$id")" = PENDING ] || fail "job ran in a DOWN partition"
scontrol update PartitionName=cpu State=UP || fail "State=UP"
wait_state "$id" COMPLETED
echo PASS
