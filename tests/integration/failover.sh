#!/usr/bin/env bash
# Replicated controllers survive losing any one host (issue 28, decision 0017). Six "hosts"
# (network namespaces, hosts.sh): 1-3 each run an etcd member and a gantryd replica, 4-5 an
# agent each, 6 the commands, which know every controller's address and nothing else. Four
# clients submit without pause while two long jobs run; the leader is killed (-9), then the
# next leader's host is cut off the network. Checked: each takeover (printed: from the loss to
# the first listing a new leader answers), every acknowledged submission is there exactly once,
# the long jobs finish normally, and once the cut is healed the deposed leader stands by.
# Skipped (77) without root, `ip netns` or etcd.
# usage: failover.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/failover.json"
[ -x /usr/bin/etcd ] || { echo "SKIP: no /usr/bin/etcd (etcd-server)"; exit 77; }
source "$(dirname "$0")/hosts.sh"
make_hosts 6
net=$HOSTS_NET
"$BIN/gantry" cluster create --spec "$SPEC" --state-dir "$STATE" >/dev/null || fail "create"
"$BIN/gantry" up --state-dir "$STATE" >/dev/null 2>&1 && "$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1
rm -f "$STATE/state.db"*   # the certificates stay; the state lives in etcd from here on
[ -f "$STATE/tls/controller.crt" ] || fail "no certificates"

members="" endpoints="" controllers=""
for i in 1 2 3; do
  members+="${members:+,}e$i=http://$net.$i.2:2380"
  endpoints+="${endpoints:+,}$net.$i.2:2379"
  controllers+="${controllers:+,}$net.$i.2:6817"
done
start_etcd() {
  local i=$1
  in_host "$i" /usr/bin/etcd --name "e$i" --data-dir "$WORK/etcd-$i" \
    --listen-client-urls "http://$net.$i.2:2379" --advertise-client-urls "http://$net.$i.2:2379" \
    --listen-peer-urls "http://$net.$i.2:2380" --initial-advertise-peer-urls "http://$net.$i.2:2380" \
    --initial-cluster "$members" --initial-cluster-state new --max-txn-ops 100000 \
    --heartbeat-interval 50 --election-timeout 500 \
    --max-request-bytes 33554432 >"$STATE/logs/etcd-$i.log" 2>&1 &
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
}
declare -A CTLD
start_replica() {
  local i=$1
  mkdir -p "$WORK/run-c$i"
  # ip netns exec becomes gantryd: $! is its pid, for the kill -9 below.
  ip netns exec "$HOSTS_TAG-$i" "$BIN/gantryd" --state-dir "$STATE" --listen "$net.$i.2:6817" --etcd "$endpoints" \
    --name "c$i" --run-dir "$WORK/run-c$i" --metrics none >>"$STATE/logs/gantryd-c$i.log" 2>&1 &
  CTLD[$i]=$!
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
}
# Who holds the leader key (a member cut off is passed over: a few tries).
leader() {
  local who="" try
  for try in 1 2 3 4 5; do
    who=$(ETCDCTL_API=3 etcdctl --endpoints "$endpoints" --dial-timeout 1s --command-timeout 2s \
      get gantry/failover/leader --print-value-only 2>/dev/null | cut -d' ' -f1)
    [ -n "$who" ] && break
  done
  echo "$who"
}
for i in 1 2 3; do start_etcd "$i"; done
for i in 1 2 3; do start_replica "$i"; done
wait_until 30 '[ -n "$(leader)" ]' ||
  { cat "$STATE"/logs/etcd-*.log "$STATE"/logs/gantryd-c*.log | tail -40; fail "no controller leads"; }
echo "first leader: $(leader)"

for i in 4 5; do
  node=failover-cpu-$((i - 4))
  in_host "$i" "$BIN/gantry-agent" --node "$node" --controller "$controllers" \
    --ca-file "$STATE/tls/ca.crt" --cert-file "$STATE/tls/node-$node.crt" \
    --cert-key-file "$STATE/tls/node-$node.key" --spool "$WORK/spool-$i" \
    --listen "$net.$i.2:0" --home "$STATE/home" --emulated >"$STATE/logs/agent-$i.log" 2>&1 &
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
done
# The commands reach the controllers by TCP only, every address listed.
cat >"$WORK/client.conf" <<CONF
ClusterName=failover
ControllerAddress=$controllers
KeyFile=$STATE/cluster.key
CaFile=$STATE/tls/ca.crt
CONF
client() { in_host 6 env GANTRY_CONF="$WORK/client.conf" PATH="$PATH" "$@"; }
export GANTRY_CONF=$WORK/client.conf   # this namespace reaches the hosts too (wait_state)
wait_until 30 '[ "$(client sinfo -h -N -t idle -o %N | wc -l)" = 2 ]' ||
  { client sinfo -N; cat "$STATE"/logs/agent-*.log; fail "agents did not register"; }

cd "$WORK"
long=()
for n in 0 1; do
  long+=("$(client sbatch --parsable -w "failover-cpu-$n" -c 1 -o "$WORK/long-%j.out" \
    --wrap 'sleep 25; echo finished')") || fail "long job"
done
# Four clients submit as fast as they can; each acknowledged id goes to acked.N with its name.
for c in 1 2 3 4; do
  (
    k=0
    while [ -d "$WORK" ] && [ ! -e "$WORK/stop" ]; do
      k=$((k + 1))
      if id=$(client sbatch --parsable -c 1 -J "s$c-$k" -o /dev/null --wrap true 2>>"$WORK/refused.$c"); then
        echo "$id s$c-$k" >>"$WORK/acked.$c"
      else
        echo "s$c-$k" >>"$WORK/failed.$c"
      fi
    done
  ) &
  clients="${clients:-} $!"
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
done
sleep 3

# The time from a loss to the first job listing answered: a standby refuses listings, so it
# is a leader's answer.
takeover() {
  local start=$1
  until client squeue -h -j "${long[0]}" >/dev/null 2>&1; do :; done
  echo "$(date +%s.%N) - $start" | bc
}
# The time from START to the line where REPLICA's gantryd began serving as the leader.
serving_after() {
  local stamp
  stamp=$(grep "serving on" "$STATE/logs/gantryd-$1.log" | tail -1 | cut -d' ' -f1)
  echo "$(date -u -d "$stamp" +%s.%N) - $2" | bc
}
first=$(leader)
n=${first#c}
start=$(date +%s.%N)
kill -9 "${CTLD[$n]}"
t1=$(takeover "$start")
second=$(leader)
s1=$(serving_after "$second" "$start")
echo "TAKEOVER 1 (leader $first killed -9): $second serves after ${s1} s, a client's listing answered after ${t1} s"
[ -n "$second" ] && [ "$second" != "$first" ] || fail "no new leader after killing $first"
start_replica "$n"   # the operator brings it back: a standby now
sleep 3

m=${second#c}
start=$(date +%s.%N)
host_link "$m" down
t2=$(takeover "$start")
third=$(leader)
s2=$(serving_after "$third" "$start")
echo "TAKEOVER 2 (leader $second's host cut off): $third serves after ${s2} s, a client's listing answered after ${t2} s"
[ -n "$third" ] && [ "$third" != "$second" ] || fail "no new leader after cutting $second off"
sleep 3
touch "$WORK/stop"
# shellcheck disable=SC2086
wait $clients
host_link "$m" up
# The deposed leader lost its lease: it stands by again, under the leader that followed it.
wait_for 30 grep -q "standing by" <(tail -n 5 "$STATE/logs/gantryd-c$m.log") ||
  { tail -20 "$STATE/logs/gantryd-c$m.log"; fail "c$m does not stand by after the cut healed"; }
[ "$(leader)" = "$third" ] || fail "the lead moved back to $(leader) after the cut healed"
grep -q "lead is lost\|store failed a commit" "$STATE/logs/gantryd-c$m.log" ||
  { tail -20 "$STATE/logs/gantryd-c$m.log"; fail "c$m never noticed it was deposed"; }

# Every acknowledged job exactly once, under the name it was submitted with; no name twice
# (a submission made twice by a retry would show).
for id in "${long[@]}"; do wait_state "$id" COMPLETED 60; done
for id in "${long[@]}"; do
  [ "$(cat "$WORK/long-$id.out")" = finished ] || fail "long job $id: $(cat "$WORK/long-$id.out")"
  client sacct -X -n -P -j "$id" -o State,ExitCode | grep -qx 'COMPLETED|0:0' || fail "long job $id"
done
cat "$WORK"/acked.* | sort -n >"$WORK/acked"
acked=$(wc -l <"$WORK/acked")
failed=$(cat "$WORK"/failed.* 2>/dev/null | wc -l)
[ "$acked" -gt 20 ] || fail "only $acked submissions acknowledged"
client sacct -X -n -P -a -S 2020-01-01 -o JobID,JobName | grep '|s[0-9]' | sort -n >"$WORK/kept"
[ -z "$(cut -d'|' -f2 "$WORK/kept" | sort | uniq -d)" ] || fail "a submission made twice: $(cut -d'|' -f2 "$WORK/kept" | sort | uniq -d | head)"
while read -r id name; do
  grep -qx "$id|$name" "$WORK/kept" || fail "acknowledged job $id ($name) is missing"
done <"$WORK/acked"
[ "$(cut -d'|' -f1 "$WORK/kept" | sort | uniq -d)" = "" ] || fail "a job id twice"
extra=$(($(wc -l <"$WORK/kept") - acked))
echo "submissions: $acked acknowledged, all kept once; $failed refused or unanswered ($extra of those kept anyway)"
[ "$extra" -le "$failed" ] || fail "$extra jobs nobody submitted"
echo "TAKEOVER TIMES (a new leader serving): kill -9 ${s1} s, host cut off ${s2} s; clients answered after ${t1} s and ${t2} s (target < 5 s; Slurm's default SlurmctldTimeout is 120 s)"
echo "PASS"
