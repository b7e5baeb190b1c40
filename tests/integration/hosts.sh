# Shared helper for tests whose agents run on separate "hosts": each host is a network namespace
# joined to this one by a veth pair (host i: this side $HOSTS_NET.i.1, its side $HOSTS_NET.i.2).
# Source it after lib.sh; needs root and ip(8) (skips with 77 otherwise).
#
# Provides: make_hosts COUNT (namespaces removed at exit, with what runs in them),
# start_tcp_gantryd (gantryd on every address; sets $CTLD_PORT),
# start_host_agent I NODE (the node's agent in host I, reaching gantryd over TCP and TLS),
# host_link I up|down (cuts or restores host I's network), in_host I CMD... .
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
HOSTS_TAG=g$$
HOSTS_NET=10.$(( ($$ % 200) + 20 ))
HOSTS=()
hosts_teardown() {
  local rc=$?  # cleanup reads the script's exit status from $?: keep it past the clean-up here
  for ns in "${HOSTS[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9
    ip netns del "$ns" 2>/dev/null
  done
  (exit $rc)
  cleanup
}
trap hosts_teardown EXIT

make_hosts() {
  local i ns
  for i in $(seq "$1"); do
    ns=$HOSTS_TAG-$i
    ip netns add "$ns" || { echo "SKIP: cannot create namespaces"; exit 77; }
    HOSTS+=("$ns")
    ip link add "$HOSTS_TAG-h$i" type veth peer name "$HOSTS_TAG-n$i"
    ip link set "$HOSTS_TAG-n$i" netns "$ns"
    ip addr add "$HOSTS_NET.$i.1/24" dev "$HOSTS_TAG-h$i"
    ip link set "$HOSTS_TAG-h$i" up
    ip -n "$ns" addr add "$HOSTS_NET.$i.2/24" dev "$HOSTS_TAG-n$i"
    ip -n "$ns" link set "$HOSTS_TAG-n$i" up
    ip -n "$ns" link set lo up
    ip -n "$ns" route add default via "$HOSTS_NET.$i.1"
  done
  sysctl -qw net.ipv4.ip_forward=1
}

start_tcp_gantryd() {
  "$BIN/gantry" cluster create --spec "$SPEC" --state-dir "$STATE" >/dev/null || fail "create"
  gantryd --state-dir "$STATE" --listen 0.0.0.0:0 >"$WORK/gantryd.log" 2>&1 &
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
  wait_for 20 test -s "$STATE/run/gantryd.addr" || { cat "$WORK/gantryd.log"; fail "gantryd"; }
  CTLD_PORT=$(sed 's/.*://' "$STATE/run/gantryd.addr")
}

# The hosts share this machine: the nodes' memory and GPUs are not theirs, the state dir's
# home/ is their /home (the health checks: --emulated).
start_host_agent() {
  local i=$1 node=$2
  in_host "$i" "$BIN/gantry-agent" --node "$node" --controller "$HOSTS_NET.$i.1:$CTLD_PORT" \
    --ca-file "$STATE/tls/ca.crt" --cert-file "$STATE/tls/node-$node.crt" \
    --cert-key-file "$STATE/tls/node-$node.key" --spool "$WORK/spool-$i" \
    --listen "$HOSTS_NET.$i.2:0" --home "$STATE/home" --emulated >"$WORK/agent-$i.log" 2>&1 &
  EXTRA_PIDS="${EXTRA_PIDS:-} $!"
}

host_link() { ip link set "$HOSTS_TAG-h$1" "$2"; }
in_host() {
  local i=$1
  shift
  ip netns exec "$HOSTS_TAG-$i" "$@"
}
