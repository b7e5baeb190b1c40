#!/usr/bin/env bash
# Issue 25, item 3: `scancel -s USR1` meant for an srun step's tasks also hit the batch script
# (the job ended FAILED 0:10) and srun passed it on, so each task got it twice. As in Slurm, it
# now reaches the steps' tasks once and the script goes on; -b reaches only the batch shell.
# usage: signal_scope.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
d=$WORK/$ALICE
id=$(as "$ALICE" sbatch --parsable -N 2 -o "$d/job.out" --wrap "
trap 'echo script-usr1 >> $d/script.got' USR1
srun -N 2 -n 2 bash -c 'trap \"echo task-\$SLURM_PROCID >> $d/tasks.got\" USR1
  touch $d/ready.\$SLURM_PROCID; while [ ! -e $d/stop ]; do sleep 0.1; done'
echo srun-exit=\$?") || fail "sbatch"
wait_for 30 test -e "$d/ready.0" -a -e "$d/ready.1" || { cat "$d/job.out"; fail "tasks did not start"; }
as "$ALICE" scancel -s USR1 "$id" || fail "scancel -s USR1"
wait_until 30 '[ "$(wc -l <"$d/tasks.got" 2>/dev/null)" = 2 ]' || fail "tasks got: $(cat "$d/tasks.got")"
sleep 1  # a second delivery (srun passing the signal on) would land by now
expect "tasks' USR1" "task-0
task-1" "$(sort "$d/tasks.got")"
[ -e "$d/script.got" ] && fail "the batch script got USR1"
# -b: the batch shell only (bash runs its trap once srun, its foreground child, returns).
as "$ALICE" scancel -b -s USR1 "$id" || fail "scancel -b"
sleep 1
[ "$(wc -l <"$d/tasks.got")" = 2 ] || fail "scancel -b reached the tasks: $(cat "$d/tasks.got")"
touch "$d/stop"
wait_state "$id" COMPLETED
expect "the script's USR1" script-usr1 "$(cat "$d/script.got" 2>/dev/null)"
[ "$(job_field "$id" ExitCode)" = 0:0 ] || fail "ExitCode $(job_field "$id" ExitCode)"
grep -qx srun-exit=0 "$d/job.out" || fail "srun: $(cat "$d/job.out")"
echo PASS
