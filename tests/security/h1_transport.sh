#!/usr/bin/env bash
# H1: the TCP transport was plain text with replayable credentials signed for no particular call;
# one captured header ran a job as root on every agent. Now every TCP channel is TLS with the
# cluster's CA, controller and agents prove themselves with their certificates, and a command's
# credential is bound to its method, body and cluster and is accepted once. The probe
# (tests/security/probe/transport_probe.cc) tries each attack of the review as root, who holds
# every key; bob, a local user, cannot even read the keys.
# usage: h1_transport.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
probe=$BIN/../tests/transport_probe
[ -x "$probe" ] || fail "no $probe"
cluster=$(scontrol show config | awk '$1 == "ClusterName" {print $3}')
read -r node_a node_b < <(sinfo -h -N -o '%N' | sort | head -2 | paste -sd' ')
"$probe" "$STATE" "$cluster" "$node_a" "$node_b" || fail "transport probe"
# The private halves stay the owner's: bob reads the CA certificate, no key.
as "$BOB" cat "$STATE/tls/ca.crt" >/dev/null || fail "bob cannot read the CA certificate"
for key in ca.key controller.key "node-$node_a.key" ../cluster.key; do
  as "$BOB" cat "$STATE/tls/$key" >/dev/null 2>&1 && fail "bob read $key"
done
# The agent logged the refused call; jobs still run across the TLS channels, refused nowhere.
refused() { cat "$STATE"/logs/agent-*.log | grep -c "refused"; }
[ "$(refused)" = 1 ] || fail "agent logs: $(grep refused "$STATE"/logs/agent-*.log)"
id=$(as "$ALICE" sbatch --parsable -N 2 --wrap true) || fail "sbatch"
wait_state "$id" COMPLETED
[ "$(refused)" = 1 ] || fail "a call refused: $(grep refused "$STATE"/logs/agent-*.log)"
echo PASS
