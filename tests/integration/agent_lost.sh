#!/usr/bin/env bash
# An agent killed with SIGKILL that does not come back: the controller counts its node lost after
# SlurmdTimeout and requeues its jobs to run elsewhere, while their batch scripts, which outlive
# the agent under gantry-keeper, would run on. Each keeper watches the dead agent's lease (in the
# spool) and ends its job when the lease runs out, before the controller's requeue: the job is
# never running twice at once. (Its end on the lost node is not reported: the requeue settles it.)
# usage: agent_lost.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
# The node is lost, and the lease runs out, after SlurmdTimeout: 6 s here (30 s in local.json, so
# that agents on a loaded machine keep their leases in the other tests).
sed 's/"SlurmdTimeout": "30"/"SlurmdTimeout": "6"/' "$SPEC" >"$WORK/lease-spec.json"
grep -q '"SlurmdTimeout": "6"' "$WORK/lease-spec.json" || fail "local.json has no SlurmdTimeout 30"
SPEC=$WORK/lease-spec.json
start_cluster
cd "$WORK"

# Each run says where and when it started and when SIGTERM ended it, as seconds since the epoch.
cat >"$WORK/job.sh" <<EOF
#!/bin/bash
echo "start \$(date +%s.%N) \$SLURMD_NODENAME \$\$" >> $WORK/runs
trap 'echo "term \$(date +%s.%N) \$SLURMD_NODENAME" >> $WORK/runs; exit 143' TERM
while :; do sleep 0.1; done
EOF
chmod 755 "$WORK/job.sh"
id=$(sbatch --parsable -o /dev/null "$WORK/job.sh") || fail "sbatch"
wait_state "$id" RUNNING
wait_for 20 grep -qs start "$WORK/runs" || fail "the job did not start"
read -r _ _ node pid <"$WORK/runs"
[ "$node" = "$(job_field "$id" NodeList)" ] || fail "runs on $node, squeue says $(job_field "$id" NodeList)"

kill -9 "$(cat "$STATE/run/agent-$node.pid")"
# The keeper ends the script once the lease has run out (SlurmdTimeout 6 s after the agent's last
# acknowledged call, and a second more).
wait_for 30 bash -c "! kill -0 $pid 2>/dev/null" || fail "the script outlived its agent's lease"
grep -q "^term .* $node\$" "$WORK/runs" || fail "the script was not sent SIGTERM: $(cat "$WORK/runs")"
log=$STATE/logs/agent-$node.log
grep -q "the agent is gone and its lease ran out" "$log" || fail "keeper said nothing: $(tail -5 "$log")"

# The controller requeues the job, and it runs again on another node, after the first run ended.
wait_for 60 bash -c "[ \$(grep -c '^start' $WORK/runs) -ge 2 ]" ||
  fail "the job did not run again: $(cat "$WORK/runs"); squeue: $(squeue -h -j "$id" -o '%T %r')"
second=$(grep '^start' "$WORK/runs" | sed -n 2p)
[ "$(echo "$second" | cut -d' ' -f3)" != "$node" ] || fail "ran again on the lost node $node"
ended=$(grep '^term' "$WORK/runs" | head -1 | cut -d' ' -f2)
restarted=$(echo "$second" | cut -d' ' -f2)
awk -v a="$ended" -v b="$restarted" 'BEGIN { exit !(a < b) }' ||
  fail "two runs at once: the first ended at $ended, the second started at $restarted"
expect "restarts" 1 "$(job_field "$id" Restarts)"
scancel "$id"
echo PASS
