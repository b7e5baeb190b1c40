#!/usr/bin/env bash
# M9: an agent cut off from the controller kept running its jobs while the controller requeued
# them elsewhere after SlurmdTimeout: two copies at once. Now the agent's lease runs out with
# SlurmdTimeout and it ends its jobs; the controller requeues them only after SlurmdTimeout +
# KillWait + 3 s. Each agent runs in its own network namespace; the test cuts the link of the one
# running the job and checks that the job's two runs never overlap. Skipped (77) without root or
# `ip netns`.
# usage: m9_partition.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
source "$(dirname "$0")/../integration/lib.sh" "$1" "$2" "$2/tests/integration/specs/two-hosts.json"
tag=p$$
net=10.$(( ($$ % 200) + 20 ))
namespaces=()
teardown() {
  local rc=$?
  for ns in "${namespaces[@]}"; do ip netns pids "$ns" 2>/dev/null | xargs -r kill -9; ip netns del "$ns" 2>/dev/null; done
  (exit $rc)
  cleanup
}
trap teardown EXIT
for i in 1 2; do
  ns=$tag-$i
  ip netns add "$ns" || { echo "SKIP: cannot create namespaces"; exit 77; }
  namespaces+=("$ns")
  ip link add "$tag-h$i" type veth peer name "$tag-n$i"
  ip link set "$tag-n$i" netns "$ns"
  ip addr add "$net.$i.1/24" dev "$tag-h$i"
  ip link set "$tag-h$i" up
  ip -n "$ns" addr add "$net.$i.2/24" dev "$tag-n$i"
  ip -n "$ns" link set "$tag-n$i" up
  ip -n "$ns" link set lo up
done
"$BIN/gantry" cluster create --spec "$SPEC" --state-dir "$STATE" >/dev/null || fail "create"
gantryd --state-dir "$STATE" --listen 0.0.0.0:0 >"$WORK/gantryd.log" 2>&1 &
EXTRA_PIDS="$!"
wait_for 20 test -s "$STATE/run/gantryd.addr" || { cat "$WORK/gantryd.log"; fail "gantryd"; }
port=$(sed 's/.*://' "$STATE/run/gantryd.addr")
for i in 1 2; do
  node=hosts-cpu-$((i - 1))
  ip netns exec "$tag-$i" "$BIN/gantry-agent" --node "$node" --controller "$net.$i.1:$port" \
    --ca-file "$STATE/tls/ca.crt" --cert-file "$STATE/tls/node-$node.crt" \
    --cert-key-file "$STATE/tls/node-$node.key" --spool "$WORK/spool-$i" --listen "$net.$i.2:0" \
    >"$WORK/agent-$i.log" 2>&1 &
  EXTRA_PIDS="$EXTRA_PIDS $!"
done
export GANTRY_CONF=$STATE/gantry.conf
wait_for 30 bash -c "[ \$(sinfo -h -N -t idle -o %N | wc -l) = 2 ]" ||
  { sinfo -N; cat "$WORK"/agent-*.log; fail "agents did not register"; }

# The job logs each run's start and, every 0.2 s while it runs, a beat, to a file both hosts see.
log=$WORK/runs.log
id=$(sbatch --parsable -o /dev/null --wrap \
  "echo \"start \${SLURM_RESTART_COUNT:-0}\" >> $log; while :; do echo \"beat \${SLURM_RESTART_COUNT:-0} \$(date +%s.%N)\" >> $log; sleep 0.2; done") ||
  fail "sbatch"
wait_for 20 grep -q "^beat 0" "$log" || fail "the job did not start"
node=$(squeue -h -j "$id" -o %N)
i=$(( ${node##*-} + 1 ))
ip link set "$tag-h$i" down  # the job's node hears nothing from the controller from now on
echo "cut $node off at $(date +%s.%N)"
wait_for 40 grep -q "^beat 1" "$log" || { sinfo -N; squeue; fail "the job was not run again"; }
requeued=$(awk '$1 == "beat" && $2 == 1 {print $3; exit}' "$log")
last_old=$(awk '$1 == "beat" && $2 == 0 {t = $3} END {print t}' "$log")
echo "first run's last beat $last_old, second run's first beat $requeued"
awk -v a="$last_old" -v b="$requeued" 'BEGIN {exit !(a < b)}' ||
  fail "the two runs overlapped: the first beat at $last_old, the second started at $requeued"
grep -q "the lease ran out" "$WORK/agent-$i.log" || fail "agent log: $(tail -5 "$WORK/agent-$i.log")"
scontrol show node "$node" | grep -q "State=DOWN" || fail "$node not DOWN"
echo PASS
