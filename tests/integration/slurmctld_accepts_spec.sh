#!/usr/bin/env bash
# Proves that the slurm.conf Gantry renders for each example spec is accepted by a real Slurm
# 22.05 slurmctld (Debian's package), and that the running controller then reports the spec's
# partitions (default marked "*") and nodes.
#
# usage: slurmctld_accepts_spec.sh BIN_DIR SOURCE_ROOT
# Exit status: 0 passed, 1 failed, 77 skipped (no slurmctld/munged, or node names that cannot be
# made resolvable), as registered with ctest's SKIP_RETURN_CODE. jq, where installed, reads the
# expected partitions and nodes from the spec's effective config.
#
# Everything runs in a private scratch folder: its own munged (own key and socket), its own
# StateSaveLocation, log and a free high SlurmctldPort. Nothing under /etc/slurm or /etc/munge
# is read or written, and no daemon is left behind (trap).
#
# Each spec is checked in two phases:
#  A. The rendered slurm.conf exactly as rendered (plus the site lines below) must get through
#     slurmctld's configuration parsing. It then stops with a fatal error because no slurmdbd is
#     running: with accounting_storage/slurmdbd, Slurm 22.05 refuses a first start without the
#     database ("we have no TRES from it", "slurmdbd and/or database must be up", "Problem
#     adding tres to the database" for gres/gpu); it does not start and queue records. That
#     fatal is the expected end of phase A; any other fatal or parse error fails the test.
#  B. The same file with only the slurmdbd-bound keys changed must bring slurmctld UP, and
#     scontrol/sinfo must list the spec's partitions and nodes with their CPUs and RealMemory.
#     Changed: AccountingStorageType=accounting_storage/none; AccountingStorageEnforce and
#     AccountingStorageTRES removed (22.05 refuses both without slurmdbd: "You can not have
#     AccountingStorageEnforce set for ...none", "slurmdbd is required to run with TRES
#     gres/gpu"); gres/... entries removed from PriorityWeightTRES (without AccountingStorageTRES
#     they are "not a configured TRES type", which is fatal).
#
# Site lines appended to the rendered file (values a spec does not hold): SlurmctldPort (free
# high port), AccountingStoragePort (a closed port, so that a daemon on the standard slurmdbd
# port 6819 is never contacted) and AuthInfo=socket=... for the private munged.
# Node names (demo-a4-0, ...) must resolve on the controller host; where they do not, slurmctld
# is run in a private mount namespace whose /etc/hosts maps them to 127.0.0.1 (the real
# /etc/hosts is untouched). Without that, 22.05 spends 10 s per node in getaddrinfo retries.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR SOURCE_ROOT" >&2
  exit 2
fi
bin_dir=$1
src_root=$2
gantry=$bin_dir/gantry

# The real Slurm and MUNGE programs, never Gantry's look-alikes.
slurmctld=/usr/sbin/slurmctld
scontrol=/usr/bin/scontrol
sinfo=/usr/bin/sinfo
munged=/usr/sbin/munged

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ -x "$slurmctld" ] || skip "$slurmctld is not installed (apt-get install slurmctld, see scripts/setup)"
if [ ! -x "$scontrol" ] || [ ! -x "$sinfo" ]; then
  skip "the Slurm client commands (package slurm-client) are not installed"
fi
[ -x "$munged" ] || skip "$munged is not installed (package munge)"
[ -x "$gantry" ] || fail "$gantry not found (build the gantry target)"

scratch=$(mktemp -d)
munged_pid=
ctld_pid=

# Stops a daemon we started: SIGTERM, up to 10 s, then SIGKILL; always reaps it.
stop_pid() {
  local pid=$1
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  stop_pid "$ctld_pid"
  stop_pid "$munged_pid"
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# munged insists that every directory above its socket be searchable by all.
chmod 755 "$scratch"

# A TCP port nobody listens on (IPv4 or IPv6), from the dynamic range.
used_ports() {
  # /proc/net/tcp*: local address is field 2 ("0100007F:1A85"), state 0A = LISTEN.
  local table _sl local_addr _rem state _rest
  for table in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$table" ] || continue
    while read -r _sl local_addr _rem state _rest; do
      if [ "$state" = 0A ]; then echo $((16#${local_addr##*:})); fi
    done <"$table"
  done
}
free_port() {
  local avoid=$1 used p
  used=$(used_ports)
  for p in $(shuf -i 20000-29999 -n 50); do
    [ "$p" != "$avoid" ] || continue
    grep -qx "$p" <<<"$used" || {
      echo "$p"
      return 0
    }
  done
  fail "no free TCP port found in 20000-29999"
}

start_munged() {
  local dir=$scratch/munge
  mkdir -p "$dir"
  chmod 755 "$dir"
  head -c 128 /dev/urandom >"$dir/munge.key"
  chmod 600 "$dir/munge.key"
  "$munged" --foreground --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --log-file="$dir/munged.log" --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" \
    >"$dir/munged.out" 2>&1 &
  munged_pid=$!
  for _ in $(seq 100); do
    [ -S "$dir/munge.socket" ] && return 0
    kill -0 "$munged_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$dir/munged.out" "$dir/munged.log" >&2 2>/dev/null || true
  fail "private munged did not start"
}

# Runs slurmctld in the background (pid in ctld_pid), with a private /etc/hosts when needed.
start_slurmctld() {
  local conf=$1 log=$2 hosts=$3
  shift 3
  if [ -n "$hosts" ]; then
    # shellcheck disable=SC2016  # $1 and $@ belong to the inner sh
    unshare --mount --propagation private \
      sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$hosts" \
      "$slurmctld" -D -c -f "$conf" -L "$log" "$@" >"$log.out" 2>&1 &
  else
    "$slurmctld" -D -c -f "$conf" -L "$log" "$@" >"$log.out" 2>&1 &
  fi
  ctld_pid=$!
}

show_log() {
  echo "---- $1" >&2
  cat "$1" >&2 || true
  echo "----" >&2
}

# Log lines that mean slurmctld did not understand the configuration. "Configured MailProg is
# invalid" is the machine (no /bin/mail installed), not the file, when no mail program exists.
config_complaints() {
  local log=$1
  grep -Ei 'unrecognized|parse error|parsing error|unknown|invalid|duplicate|not supported|deprecated' "$log" |
    grep -v 'slurm_get_port: Address family' |
    if [ ! -e /bin/mail ] && [ ! -e /usr/bin/mail ]; then
      grep -v 'Configured MailProg is invalid'
    else
      cat
    fi || true
}

# Expands a Slurm hostlist ("demo-a4-[0-3]") with the real scontrol, which wants some
# slurm.conf even for that: a minimal one, so that a bad rendered file cannot break it.
printf 'ClusterName=hostlist\nSlurmctldHost=localhost\n' >"$scratch/hostlist.conf"
expand_hostlist() {
  SLURM_CONF=$scratch/hostlist.conf "$scontrol" show hostnames "$1" ||
    fail "scontrol cannot expand the hostlist \"$1\""
}

# Reads "Key=Value ..." lines (slurm.conf NodeName lines or `scontrol show node -o`) and prints
# "NODE CPUs=N RealMemory=M Gres=G" per node, NODE expanded from the hostlist; the arguments
# name the keys holding those four values. No GRES prints as "(null)", as scontrol shows it.
node_attributes() {
  local name_key=$1 cpus_key=$2 mem_key=$3 gres_key=$4 line field node names cpus mem gres
  local -a fields
  while IFS= read -r line; do
    read -ra fields <<<"$line"
    names='' cpus='' mem='' gres='(null)'
    for field in "${fields[@]}"; do
      case $field in
        "$name_key"=*) names=${field#*=} ;;
        "$cpus_key"=*) cpus=${field#*=} ;;
        "$mem_key"=*) mem=${field#*=} ;;
        "$gres_key"=*) gres=${field#*=} ;;
      esac
    done
    for node in $(expand_hostlist "$names"); do
      echo "$node CPUs=$cpus RealMemory=$mem Gres=$gres"
    done
  done
}

start_munged
slurm_user=$(id -un)
host=$(hostname -s)
checked=0

shopt -s nullglob
specs=("$src_root"/examples/*.json)
[ ${#specs[@]} -gt 0 ] || fail "no specs in $src_root/examples"

for spec in "${specs[@]}"; do
  name=$(basename "$spec" .json)
  work=$scratch/$name
  etc=$work/etc
  mkdir -p "$etc" "$work/state" "$work/log"
  echo "== $name"

  render=("$spec" --controller-host "$host" --state-dir "$work/state" --etc-dir "$etc"
    --slurm-user "$slurm_user")
  "$gantry" spec render "$spec" --format json >"$work/effective.json" ||
    fail "$name: gantry spec render --format json failed"
  "$gantry" spec render "${render[@]}" --format slurm.conf >"$work/rendered.conf" ||
    fail "$name: gantry spec render --format slurm.conf failed"
  "$gantry" spec render "$spec" --format gres.conf >"$etc/gres.conf" ||
    fail "$name: gantry spec render --format gres.conf failed"
  cluster=$(sed -n 's/^ClusterName=//p' "$work/rendered.conf")

  ctld_port=$(free_port 0)
  dbd_port=$(free_port "$ctld_port")
  site_lines=$(printf '%s\n' "# site values for this test" "SlurmctldPort=$ctld_port" \
    "AccountingStoragePort=$dbd_port" "AuthInfo=socket=$scratch/munge/munge.socket")

  # What each rendered NodeName line declares, one line per node, as scontrol shows it.
  grep '^NodeName=' "$work/rendered.conf" | node_attributes NodeName CPUs RealMemory Gres |
    sort >"$work/want-nodes"
  # Expected partitions ("name", "name*" for the default) and compute nodes: from the spec's
  # effective config where jq is installed, else from the rendered PartitionName lines.
  if command -v jq >/dev/null; then
    jq -r '.partitions[] | .name + (if .default then "*" else "" end)' "$work/effective.json" |
      sort >"$work/want-partitions"
    jq -r '.pools[] | select(.login | not) | .nodes' "$work/effective.json" |
      while read -r list; do expand_hostlist "$list"; done | sort >"$work/want-node-names"
    if ! diff -u "$work/want-node-names" <(cut -d' ' -f1 "$work/want-nodes"); then
      fail "$name: the rendered NodeName lines differ from the spec's compute nodes"
    fi
  else
    echo "   (jq not installed: expectations from the rendered slurm.conf, not the spec)"
    sed -En 's/^PartitionName=([^ ]+) .*Default=YES.*/\1*/p; t; s/^PartitionName=([^ ]+).*/\1/p' \
      "$work/rendered.conf" | sort >"$work/want-partitions"
    cut -d' ' -f1 "$work/want-nodes" >"$work/want-node-names"
  fi
  [ -s "$work/want-partitions" ] || fail "$name: the spec has no partitions"

  # Node names must resolve for slurmctld; map unresolvable ones to 127.0.0.1 privately.
  hosts_file=
  unresolved=()
  while read -r node; do
    getent hosts "$node" >/dev/null || unresolved+=("$node")
  done <"$work/want-node-names"
  if [ ${#unresolved[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
      skip "node names (${unresolved[*]}) do not resolve and no private mount namespace" \
        "can be made for a private /etc/hosts (needs root)"
    fi
    hosts_file=$work/hosts
    { cat /etc/hosts; echo "127.0.0.1 ${unresolved[*]}"; } >"$hosts_file"
  fi

  # Phase A: the file as rendered must parse; the expected end is the slurmdbd fatal.
  conf_a=$etc/slurm.conf
  { cat "$work/rendered.conf"; echo; echo "$site_lines"; } >"$conf_a"
  log_a=$work/log/slurmctld-as-rendered.log
  start_slurmctld "$conf_a" "$log_a" "$hosts_file"
  for _ in $(seq 200); do
    kill -0 "$ctld_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$ctld_pid" 2>/dev/null; then
    show_log "$log_a"
    fail "$name: slurmctld with the rendered file did not stop without slurmdbd within 20 s"
  fi
  wait "$ctld_pid" 2>/dev/null || true
  ctld_pid=
  grep -q "slurmctld version .* started on cluster $cluster\$" "$log_a" || {
    show_log "$log_a"
    fail "$name: slurmctld did not get through the rendered configuration"
  }
  fatal=$(grep 'fatal:' "$log_a" || true)
  expected_fatal='slurmdbd and/or database must be up|we have no TRES from it|Problem adding tres to the database'
  if [ -z "$fatal" ] || ! grep -Eq "$expected_fatal" <<<"$fatal"; then
    show_log "$log_a"
    fail "$name: expected slurmctld to stop only for the missing slurmdbd, got: ${fatal:-no fatal}"
  fi
  complaints=$(config_complaints "$log_a")
  [ -z "$complaints" ] || {
    show_log "$log_a"
    fail "$name: slurmctld complained about the rendered configuration: $complaints"
  }
  echo "   as rendered: parsed; stopped as expected without slurmdbd: ${fatal#*fatal: }"

  # Phase B: without the slurmdbd-bound keys the controller must come UP.
  conf_b=$etc/slurm-no-dbd.conf
  sed -E -e 's|^AccountingStorageType=.*|AccountingStorageType=accounting_storage/none|' \
    -e '/^AccountingStorageEnforce=/d' -e '/^AccountingStorageTRES=/d' \
    -e '/^PriorityWeightTRES=/{s#([=,])gres/[^,]*#\1#g; s#,+#,#g; s#=,#=#; s#,$##}' \
    -e '/^PriorityWeightTRES=$/d' "$conf_a" >"$conf_b"
  echo "   changed for the run without slurmdbd:"
  diff "$conf_a" "$conf_b" | sed -n 's/^[<>] /     &/p' || true
  log_b=$work/log/slurmctld-no-dbd.log
  start_slurmctld "$conf_b" "$log_b" "$hosts_file"
  up=0
  for _ in $(seq 200); do
    kill -0 "$ctld_pid" 2>/dev/null || break
    if SLURM_CONF=$conf_b "$scontrol" ping 2>/dev/null | grep -q "is UP"; then
      up=1
      break
    fi
    sleep 0.1
  done
  if [ "$up" -ne 1 ]; then
    show_log "$log_b"
    fail "$name: slurmctld did not come UP within 20 s"
  fi
  complaints=$(config_complaints "$log_b")
  [ -z "$complaints" ] || {
    show_log "$log_b"
    fail "$name: slurmctld complained about the configuration: $complaints"
  }

  SLURM_CONF=$conf_b "$sinfo" -h -o %P | sort >"$work/got-partitions"
  SLURM_CONF=$conf_b "$scontrol" show partition -o >"$work/show-partition"
  SLURM_CONF=$conf_b "$scontrol" show node -o >"$work/show-node"
  node_attributes NodeName CPUTot RealMemory Gres <"$work/show-node" | sort >"$work/got-nodes"
  if ! diff -u "$work/want-partitions" "$work/got-partitions"; then
    cat "$work/show-partition" >&2
    fail "$name: sinfo partitions differ from the spec (- spec, + slurmctld)"
  fi
  while read -r p; do
    grep -q "^PartitionName=${p%\*} .* State=UP " "$work/show-partition" ||
      fail "$name: scontrol show partition lacks partition ${p%\*} in State=UP"
  done <"$work/want-partitions"
  if ! diff -u "$work/want-nodes" "$work/got-nodes"; then
    cat "$work/show-node" >&2
    fail "$name: scontrol show node differs from the spec (- spec, + slurmctld)"
  fi
  echo "   without slurmdbd: UP; partitions $(tr '\n' ' ' <"$work/got-partitions")"
  echo "   nodes: $(cut -d' ' -f1 "$work/got-nodes" | tr '\n' ' ')"

  stop_pid "$ctld_pid"
  ctld_pid=
  checked=$((checked + 1))
done

echo "PASS: slurmctld 22.05 accepted the slurm.conf of $checked spec(s)"
