#!/usr/bin/env bash
# M9: an agent cut off from the controller kept running its jobs while the controller requeued
# them elsewhere after SlurmdTimeout: two copies at once. Now the agent's lease runs out with
# SlurmdTimeout and it ends its jobs; the controller requeues them only after SlurmdTimeout +
# KillWait + 3 s. Each agent runs in its own network namespace; the test cuts the link of the one
# running the job and checks that the job's two runs never overlap. Skipped (77) without root or
# `ip netns`.
# usage: m9_partition.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/../integration/lib.sh" "$1" "$2" "$2/tests/integration/specs/two-hosts.json"
source "$(dirname "$0")/../integration/hosts.sh"
make_hosts 2
start_tcp_gantryd
for i in 1 2; do start_host_agent "$i" "hosts-cpu-$((i - 1))"; done
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
host_link "$i" down  # the job's node hears nothing from the controller from now on
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
