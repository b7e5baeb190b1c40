#!/usr/bin/env bash
# The same binaries across hosts: each agent runs in its own network namespace (veth pair to the
# host, tests/integration/hosts.sh), reaching the controller over mutual TLS with their node's
# certificate; a command in a third namespace submits over TLS too, with a credential bound to
# each call. A 2-node job runs across the two "hosts".
# Skipped (77) without root or `ip netns`.
# usage: multi_host.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/two-hosts.json"
source "$(dirname "$0")/hosts.sh"
make_hosts 3
start_tcp_gantryd
port=$CTLD_PORT
net=$HOSTS_NET
for i in 1 2; do start_host_agent "$i" "hosts-cpu-$((i - 1))"; done
# Commands in namespace 3 reach the controller by TCP only: no socket in their config.
cat >"$WORK/remote.conf" <<CONF
ClusterName=hosts
ControllerAddress=$net.3.1:$port
KeyFile=$STATE/cluster.key
CaFile=$STATE/tls/ca.crt
CONF
remote() { in_host 3 env GANTRY_CONF="$WORK/remote.conf" PATH="$PATH" "$@"; }
export GANTRY_CONF=$STATE/gantry.conf
# An agent given another node's certificate does not start.
out=$("$BIN/gantry-agent" --node hosts-cpu-0 --controller "127.0.0.1:$port" \
  --ca-file "$STATE/tls/ca.crt" --cert-file "$STATE/tls/node-hosts-cpu-1.crt" \
  --cert-key-file "$STATE/tls/node-hosts-cpu-1.key" --spool "$WORK/spool-x" 2>&1) &&
  fail "an agent started with another node's certificate"
echo "$out" | grep -q "names hosts-cpu-1.node.gantry, not node hosts-cpu-0" || fail "wrong cert: $out"
wait_for 30 bash -c "[ \$(sinfo -h -N -t idle -o %N | wc -l) = 2 ]" ||
  { sinfo -N; cat "$WORK"/agent-*.log; fail "agents did not register"; }
sinfo -h -N -o '%N %t' | grep -q 'hosts-cpu-0 idle' || fail "sinfo"

cd "$WORK"
id=$(remote sbatch --parsable -N 2 -o "$WORK/mh-%j.out" --wrap 'echo $SLURM_JOB_NODELIST') ||
  fail "remote sbatch"
wait_state "$id" COMPLETED
[ "$(cat "$WORK/mh-$id.out")" = "hosts-cpu-[0-1]" ] || fail "nodelist $(cat "$WORK/mh-$id.out")"
remote squeue -h -t all -o '%i %T' | grep -q "^$id COMPLETED" || fail "remote squeue"
# The agents' addresses are their namespaces' (different hosts).
scontrol show node hosts-cpu-0 | grep -q "NodeAddr=$net.1.2" || { scontrol show node hosts-cpu-0; fail "NodeAddr"; }
# A command without the key cannot speak over TCP, unless a munged on this host vouches for it
# (the controller takes MUNGE credentials too).
grep -v KeyFile "$WORK/remote.conf" >"$WORK/nokey.conf"
# (Asked through munge's default socket: a private munged of another test, slurmctld_accepts_spec,
# may be running meanwhile, and vouches for nobody here.)
if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  in_host 3 env GANTRY_CONF="$WORK/nokey.conf" "$BIN/squeue" >/dev/null 2>&1 ||
    fail "no-key squeue with munged running"
else
  out=$(in_host 3 env GANTRY_CONF="$WORK/nokey.conf" "$BIN/squeue" 2>&1) &&
    fail "no-key squeue worked: $out"
  echo "without the key: $out"
fi
# Without the CA the commands do not talk to the controller at all.
grep -v CaFile "$WORK/remote.conf" >"$WORK/noca.conf"
out=$(in_host 3 env GANTRY_CONF="$WORK/noca.conf" "$BIN/squeue" 2>&1) &&
  fail "squeue without the CA worked: $out"
echo "$out" | grep -q "CaFile is not set" || fail "no-CA squeue: $out"
remote scontrol ping || true
echo PASS
