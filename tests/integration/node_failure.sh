#!/usr/bin/env bash
# An agent killed with SIGKILL: its node goes DOWN (not responding) after SlurmdTimeout, a
# requeueable job on it goes back to PENDING and runs again elsewhere, a --no-requeue job ends
# NODE_FAIL; `gantry up` restarts only the dead agent and the node returns to service; the batch
# script a dead agent leaves behind (under gantry-keeper) ends when the agent's lease runs out,
# before its job runs again elsewhere.
# usage: node_failure.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
# The node is lost, and the lease runs out, after SlurmdTimeout: 6 s here (30 s in local.json, so
# that agents on a loaded machine keep their leases in the other tests).
sed 's/"SlurmdTimeout": "30"/"SlurmdTimeout": "6"/' "$SPEC" >"$WORK/lease-spec.json"
grep -q '"SlurmdTimeout": "6"' "$WORK/lease-spec.json" || fail "local.json has no SlurmdTimeout 30"
SPEC=$WORK/lease-spec.json
start_cluster
cd "$WORK"

# --exclusive: a and b on nodes of their own (sharing, both could land on the same two nodes,
# and killing b's agent would take a's first run with it).
a=$(sbatch --parsable -N 2 --exclusive --requeue \
  --wrap "echo attempt; echo \$\$ >> $WORK/a.pids; sleep 1000") || fail "sbatch a"
b=$(sbatch --parsable -N 2 --exclusive --no-requeue --wrap 'sleep 1000') || fail "sbatch b"
wait_state "$a" RUNNING
wait_state "$b" RUNNING
victim=$(scontrol show hostnames "$(job_field "$b" NodeList)" | head -1)
[ -n "$victim" ] || victim=$(job_field "$b" BatchHost)
pid=$(cat "$STATE/run/agent-$victim.pid")
kill -9 "$pid"
wait_for 40 bash -c "sinfo -h -N -n $victim -o '%t' | grep -q 'down\*'" ||
  { sinfo -N; fail "node $victim not down* after its agent died"; }
wait_state "$b" NODE_FAIL 30
# Job a did not use the victim: it keeps running.
[ "$(job_state "$a")" = RUNNING ] || fail "job a is $(job_state "$a")"

"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up"; }
grep -q "$victim" "$WORK/up2.out" || fail "up did not restart $victim: $(cat "$WORK/up2.out")"
[ "$(cat "$STATE/run/agent-$victim.pid")" != "$pid" ] || fail "pid unchanged"
wait_for 30 bash -c "sinfo -h -N -n $victim -o '%t' | grep -qx idle" ||
  { sinfo -N; fail "$victim did not return to service"; }

# Now kill the agent of the requeueable job's batch host (where its script, whose pid is in
# a.pids, runs): it is requeued and runs again. (The lowest-named node of the job need not be
# the batch host: the other agent ends the job's processes on its own node when it is requeued.)
victim=$(job_field "$a" BatchHost)
kill -9 "$(cat "$STATE/run/agent-$victim.pid")"
wait_for 40 bash -c "[ \"\$(scontrol show job $a | grep -o 'Restarts=[0-9]*')\" = Restarts=1 ]" ||
  { scontrol show job "$a"; fail "job a not requeued"; }
wait_state "$a" RUNNING 30
# The first run's script outlived its agent only until the lease ran out (agent_lost.sh).
first=$(head -1 "$WORK/a.pids")
kill -0 "$first" 2>/dev/null && fail "job a's first run outlived its agent's lease"
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up3.out" 2>&1 || { cat "$WORK/up3.out"; fail "up"; }
wait_for 30 bash -c "sinfo -h -N -n $victim -o '%t' | grep -qx idle" ||
  { sinfo -N; fail "$victim did not return to service"; }
echo PASS
