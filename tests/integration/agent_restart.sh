#!/usr/bin/env bash
# An agent killed with SIGKILL and started again (`gantry up`) within SlurmdTimeout takes over the
# jobs of its node (their batch scripts run under gantry-keeper, not under the agent): a running
# job goes on (same process, same StartTime) and ends with its own exit code and whole output; a
# job that ended while no agent ran is reported COMPLETED; scancel still reaches a taken-over
# job. An srun step goes on too (its tasks run under gantry-stepd, which carries their I/O to
# srun): what its task prints after the restart reaches srun, and srun ends with the task's
# exit code.
# usage: agent_restart.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
# Room for a slow restart: the node must not be declared DOWN meanwhile.
sed 's/"SlurmdTimeout": "30"/"SlurmdTimeout": "60"/' "$SPEC" >"$WORK/restart.json"
SPEC=$WORK/restart.json
start_cluster
cd "$WORK"

node=$(sinfo -h -N -o %N | head -1)
a=$(sbatch --parsable -w "$node" -o "$WORK/a.out" --wrap \
  "echo start \$\$; echo \$\$ > $WORK/a.pid; while [ ! -e $WORK/go-a ]; do sleep 0.1; done; echo end; exit 3") ||
  fail "sbatch a"
c=$(sbatch --parsable -w "$node" -o /dev/null --wrap \
  "echo \$\$ > $WORK/c.pid; while [ ! -e $WORK/go-c ]; do sleep 0.1; done") || fail "sbatch c"
d=$(sbatch --parsable -w "$node" -o /dev/null --wrap "echo \$\$ > $WORK/d.pid; sleep 1000") ||
  fail "sbatch d"
e=$(sbatch --parsable -w "$node" -o "$WORK/e.out" --wrap \
  "srun -n1 sh -c 'echo \$\$ > $WORK/e.task; while [ ! -e $WORK/go-e ]; do sleep 0.1; done; echo task-done'; echo \"srun exit \$?\"; sleep 1000") ||
  fail "sbatch e"
for id in "$a" "$c" "$d" "$e"; do wait_state "$id" RUNNING; done
for f in a.pid c.pid d.pid e.task; do
  wait_for 20 test -s "$WORK/$f" || fail "$f not written: the job did not start"
done
a_pid=$(cat a.pid)
a_start=$(job_field "$a" StartTime)

agent_pid=$(cat "$STATE/run/agent-$node.pid")
kill -9 "$agent_pid"
# Job c ends while no agent runs on its node.
touch "$WORK/go-c"
wait_for 10 bash -c "! kill -0 $(cat c.pid) 2>/dev/null" || fail "job c's script did not end"
kill -0 "$a_pid" || fail "job a's script ended with its agent"

"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up"; }
[ "$(cat "$STATE/run/agent-$node.pid")" != "$agent_pid" ] || fail "the agent was not restarted"
log=$STATE/logs/agent-$node.log
wait_for 10 grep -q "taken over" "$log" || fail "agent log: $(tail -5 "$log")"

wait_state "$c" COMPLETED
expect "job c's exit code" "0:0" "$(job_field "$c" ExitCode)"
[ "$(job_state "$a")" = RUNNING ] || fail "job a is $(job_state "$a")"
expect "job a's StartTime" "$a_start" "$(job_field "$a" StartTime)"
kill -0 "$a_pid" || fail "job a's script died"

# The srun step went on: its task lives, and its output after the restart reaches srun.
wait_for 10 grep -q "srun step 0 taken over" "$log" || fail "step not taken over: $(tail -5 "$log")"
kill -0 "$(cat e.task)" || fail "the srun task died with its agent"
touch "$WORK/go-e"
wait_for 20 grep -q "srun exit" "$WORK/e.out" || fail "srun did not end: $(cat "$WORK/e.out")"
expect "job e's output" "task-done
srun exit 0" "$(cat "$WORK/e.out")"
[ "$(job_state "$e")" = RUNNING ] || fail "job e is $(job_state "$e")"

# A taken-over job can be cancelled: its processes end.
scancel "$d" || fail "scancel d"
wait_state "$d" CANCELLED
wait_for 20 bash -c "! kill -0 $(cat d.pid) 2>/dev/null" || fail "job d's script survived scancel"
scancel "$e"

touch "$WORK/go-a"
wait_state "$a" FAILED
expect "job a's exit code" "3:0" "$(job_field "$a" ExitCode)"
expect "job a's output" "start $a_pid
end" "$(cat "$WORK/a.out")"
# The node still works.
id=$(sbatch --parsable -w "$node" -o /dev/null --wrap true) || fail "sbatch after the restart"
wait_state "$id" COMPLETED
echo PASS
