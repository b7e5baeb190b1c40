#!/usr/bin/env bash
# Node health: HealthCheckProgram (run as root with SLURMD_NODENAME, before the agent registers,
# then every HealthCheckInterval; a non-zero exit drains the node with its first output line)
# and the built-in checks: a fake GPU that disappears (the GPU node drains, its requeueable job
# is requeued, the other keeps running), a full TmpFS, a missing home. Only what a health check
# drained comes back by itself when the check passes again; an operator's drain stays.
# `gantry nodes health` (also as another unix user) and the metrics count the runs.
# usage: health.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/health.json"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (fake GPU devices, a tmpfs)"; exit 77; }

# Fake NVIDIA devices for the GPU node (the agents look there: GANTRY_DEV_DIR).
mkdir -p "$WORK/dev" "$WORK/tmpfs"
for i in 0 1 2 3 4 5 6 7; do mknod "$WORK/dev/nvidia$i" c 195 "$i" || fail "mknod"; done
export GANTRY_DEV_DIR=$WORK/dev
# TmpFS: a 16 MiB tmpfs, to fill.
mount -t tmpfs -o size=16m tmpfs "$WORK/tmpfs" || fail "mount a tmpfs"
trap 'rc=$?; umount -l "$WORK/tmpfs" 2>/dev/null; (exit $rc); cleanup' EXIT
# The site's program: refuses a node that has a marker file; logs every run.
cat >"$WORK/check.sh" <<SCRIPT
#!/bin/sh
echo "\$SLURMD_NODENAME \$(id -u)" >> "$WORK/ran"
if [ -e "$WORK/sick-\$SLURMD_NODENAME" ]; then echo "NHC: \$(cat "$WORK/sick-\$SLURMD_NODENAME")"; exit 1; fi
echo fine
SCRIPT
chmod 755 "$WORK/check.sh"

prepare_spec
cpu0=health-cpu-0 cpu1=health-cpu-1 gpu=health-a4-0   # the spec's pools: cpu (2), a4 (1)

# 1. At the agent's start, before it registers: cpu0 is sick, so it comes up drained.
echo "ib0 is down" >"$WORK/sick-$cpu0"
gantry up --spec "$SPEC" --state-dir "$STATE" >"$WORK/up.out" 2>&1 || { cat "$WORK/up.out"; fail "gantry up"; }
eval "$(gantry env --state-dir "$STATE")"
reason_of() { sinfo -h -N -n "$1" -o '%E' | head -1; }
state_of() { sinfo -h -N -n "$1" -o '%T' | head -1; }
wait_until 30 '[ "$(state_of "$cpu0")" = drained ] && [ "$(state_of "$cpu1")" = idle ] && [ "$(state_of "$gpu")" = idle ]' ||
  { sinfo -N -o '%N %T %E'; fail "cpu0 drained, the others idle"; }
expect "the program's first line" "NHC: ib0 is down" "$(reason_of "$cpu0")"
log=$STATE/logs/agent-$cpu0.log
checked=$(grep -n "health check failed: NHC: ib0 is down" "$log" | head -1 | cut -d: -f1)
registered=$(grep -n "registered with controller" "$log" | head -1 | cut -d: -f1)
[ -n "$checked" ] && [ -n "$registered" ] && [ "$checked" -lt "$registered" ] ||
  fail "the check did not run before the registration: $(cat "$log")"
expect "run as root with SLURMD_NODENAME" "$cpu0 0" "$(grep "^$cpu0 " "$WORK/ran" | head -1)"

# 2. It passes again: the node the check drained resumes by itself.
rm "$WORK/sick-$cpu0"
wait_until 30 '[ "$(state_of "$cpu0")" = idle ]' || fail "cpu0 did not resume: $(sinfo -N -o '%N %T %E')"

# 3. An operator's drain stays through passing checks, and keeps its reason through failing ones.
scontrol update nodename="$cpu1" state=drain reason="replacing a DIMM" || fail "drain"
echo "bad disk" >"$WORK/sick-$cpu1"
sleep 5
expect "operator's reason" "replacing a DIMM" "$(reason_of "$cpu1")"
rm "$WORK/sick-$cpu1"
sleep 5
expect "operator's drain stays" "drained" "$(state_of "$cpu1")"
scontrol update nodename="$cpu1" state=resume || fail "resume"

# 4. A GPU falls off the bus while jobs run: the node drains, the job that may be requeued is.
a=$(sbatch --parsable -p gpu --gpus=1 -o /dev/null --wrap 'sleep 600') || fail "sbatch a"
b=$(sbatch --parsable -p gpu --gpus=1 --no-requeue -o /dev/null --wrap 'sleep 600') || fail "sbatch b"
wait_state "$a" RUNNING 30
wait_state "$b" RUNNING 30
rm "$WORK/dev/nvidia3"
wait_until 30 '[ "$(state_of "$gpu")" = draining ] || [ "$(state_of "$gpu")" = drained ]' ||
  fail "the GPU node did not drain: $(sinfo -N -o '%N %T %E')"
expect "gpu reason" "gpu: 7 of 8 GPUs present (nvidia3 missing in $WORK/dev)" "$(reason_of "$gpu")"
wait_state "$a" PENDING 30
expect "requeued why" "health check failed on $gpu: gpu: 7 of 8 GPUs present (nvidia3 missing in $WORK/dev)" \
  "$(squeue -h -j "$a" -o %r)"
expect "the job that may not be requeued" RUNNING "$(job_state "$b")"
health=$(gantry nodes health "$gpu")
echo "$health" | grep -q "^$gpu .* failed  *health  *gpu: 7 of 8 GPUs present" ||
  fail "gantry nodes health: $health"
mknod "$WORK/dev/nvidia3" c 195 3
wait_until 30 '[ "$(state_of "$gpu")" = mixed ] || [ "$(state_of "$gpu")" = allocated ]' ||
  fail "the GPU node did not resume: $(sinfo -N -o '%N %T %E')"
wait_state "$a" RUNNING 30
scancel "$a" "$b"

# 5. A full TmpFS: every node (they share it) drains; emptied, they resume.
dd if=/dev/zero of="$WORK/tmpfs/fill" bs=1M count=32 2>/dev/null
wait_until 30 '[ "$(sinfo -h -N -t drain -o %N | sort -u | wc -l)" = 3 ]' ||
  fail "a full TmpFS: $(sinfo -N -o '%N %T %E')"
expect "disk reason" "disk: TmpFS $WORK/tmpfs: 0 B free of 16.0 MiB" "$(reason_of "$cpu0")"
rm "$WORK/tmpfs/fill"
wait_until 30 '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" = 3 ]' ||
  fail "after emptying TmpFS: $(sinfo -N -o '%N %T %E')"

# 6. The home gone: the nodes drain; back, they resume.
mv "$STATE/home" "$STATE/home.away"
wait_until 30 '[ "$(sinfo -h -N -t drain -o %N | sort -u | wc -l)" = 3 ]' ||
  fail "a missing home: $(sinfo -N -o '%N %T %E')"
expect "home reason" "home: $STATE/home: No such file or directory" "$(reason_of "$cpu1")"
mv "$STATE/home.away" "$STATE/home"
wait_until 30 '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" = 3 ]' ||
  fail "after the home came back: $(sinfo -N -o '%N %T %E')"

# 7. gantry nodes health: every node, for any user; -v lists each check.
two_users health
out=$(su "$u1" -c "GANTRY_CONF=$GANTRY_CONF PATH=$BIN:\$PATH gantry nodes health") ||
  fail "gantry nodes health as $u1: $out"
expect "header" "NODE STATE CHECKED RESULT DRAINED REASON" "$(echo "$out" | head -1 | tr -s ' ')"
expect "rows" 3 "$(echo "$out" | grep -c " passed ")"
verbose=$(gantry nodes health -v "$gpu")
for check in gpu disk memory home program; do
  echo "$verbose" | grep -q "^  $check  *ok " || fail "no $check check in: $verbose"
done
echo "$verbose" | grep -q "8 of 8 GPUs present" || fail "gpu check: $verbose"
gantry nodes health nosuchnode 2>"$WORK/err" && fail "an unknown node"
expect "unknown node" "gantry nodes health: Invalid node name specified: nosuchnode" "$(cat "$WORK/err")"

# 8. The metrics count the runs: the controller's and the agent's.
metrics=$(curl -sf "${GANTRY_METRICS_URL%/metrics}/metrics/nodes") || fail "controller metrics"
echo "$metrics" | grep -q '^gantry_node_health_checks_total{result="fail"} [1-9]' ||
  fail "no failed runs counted: $(echo "$metrics" | grep health)"
echo "$metrics" | grep -q '^gantry_nodes_health_drained 0$' || fail "health-drained nodes: $metrics"
agent=$(curl -sf "$(cat "$STATE/spool/$gpu/metrics.url")/metrics") || fail "agent metrics"
echo "$agent" | grep -q "^gantry_agent_health_checks_total{node=\"$gpu\",result=\"fail\"} [1-9]" ||
  fail "agent metrics: $(echo "$agent" | grep health)"
echo "$agent" | grep -q "^gantry_agent_health_ok{node=\"$gpu\"} 1$" || fail "agent health_ok"
echo PASS
