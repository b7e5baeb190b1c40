# Shared helpers for the integration tests: a real local cluster (gantryd + one gantry-agent per
# node) in a temp dir, driven through the real binaries. Source it, then call start_cluster.
#
# usage in a test: source lib.sh BIN_DIR SOURCE_ROOT [SPEC]
# Provides: $BIN $SRC $WORK (scratch dir, removed at exit), $STATE (the cluster's state dir),
# start_cluster, wait_for CMD..., job_state ID, wait_state ID STATE [SECONDS], fail MSG,
# advancing/stopped FILE (a job's counter in $WORK/FILE moves within 3 s / stays for 1.5 s),
# two_users PREFIX ($u1, $u2), users_in_account ACCOUNT USER...
set -u
BIN=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
SPEC=${3:-$SRC/tests/integration/specs/local.json}
WORK=$(mktemp -d /tmp/gantry-itest-XXXXXX)
chmod 755 "$WORK"
STATE=$WORK/state
export GANTRY_TEST_DIR=$WORK
export GANTRY_HOME=$WORK/root   # never touch the real ~/.local/share/gantry
export PATH=$BIN:$PATH
unset SLURM_CONF GANTRY_CONF GANTRY_STATE_DIR

cleanup() {
  local rc=$?
  if [ "$rc" != 0 ] && [ -d "$STATE/logs" ]; then
    for log in "$STATE"/logs/*.log; do
      echo "---- tail of $log"
      if grep -q "ERROR: AddressSanitizer\|runtime error" "$log"; then grep -A45 "ERROR: AddressSanitizer\|runtime error" "$log"; else tail -n 25 "$log"; fi
    done
  fi
  "$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1 || true
  # Anything a test started by hand.
  for pid in ${EXTRA_PIDS:-}; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
# ctest stops a test that runs too long with SIGTERM: still clean up the daemons.
trap 'exit 143' TERM INT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# expect WHAT EXPECTED ACTUAL: fails, showing both, unless they are equal.
expect() {
  [ "$2" = "$3" ] || fail "$1: expected
$2
got
$3"
}

# The spec with @WORK@ replaced by the scratch dir (prolog/epilog scripts write there).
prepare_spec() {
  sed "s|@WORK@|$WORK|g" "$SPEC" >"$WORK/spec.json"
  SPEC=$WORK/spec.json
}

start_cluster() {
  prepare_spec
  "$BIN/gantry" up --spec "$SPEC" --state-dir "$STATE" >"$WORK/up.out" 2>&1 ||
    { cat "$WORK/up.out"; fail "gantry up"; }
  eval "$("$BIN/gantry" env --state-dir "$STATE")"
  # Every node registered (idle).
  wait_for 30 nodes_idle || { sinfo -N; fail "nodes did not come up"; }
}

nodes_idle() {
  local total idle
  total=$(sinfo -h -N -o '%N' | wc -l)
  idle=$(sinfo -h -N -t idle -o '%N' | wc -l)
  [ "$total" -gt 0 ] && [ "$total" = "$idle" ]
}

# wait_for SECONDS CMD...: polls CMD every 0.2 s until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  while ! "$@"; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}

# wait_until SECONDS 'CODE': like wait_for, but CODE is shell code run anew each time, so the
# command substitutions in it are too (wait_for's arguments are expanded once, when it is
# called: `wait_for 10 test "$(...)" = x` tests one value ten seconds long).
wait_until() {
  local deadline=$((SECONDS + $1))
  while ! eval "$2"; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}

# The job's state as scontrol prints it (JobState=...).
job_state() {
  scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1
}

job_field() {
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

is_state() { [ "$(job_state "$1")" = "$2" ]; }

wait_state() {
  local id=$1 want=$2 secs=${3:-30}
  wait_for "$secs" is_state "$id" "$want" ||
    { scontrol show job "$id"; fail "job $id is $(job_state "$id"), expected $want"; }
}

# Counters that jobs write to $WORK/FILE every 0.1 s (suspend, preemption).
value() { cat "$WORK/$1" 2>/dev/null; }
# advancing FILE: the counter moves within 3 s.
advancing() {
  local a b
  a=$(value "$1")
  for _ in $(seq 30); do
    sleep 0.1
    b=$(value "$1")
    [ -n "$b" ] && [ "$b" != "$a" ] && return 0
  done
  return 1
}
# stopped FILE: the counter does not move for 1.5 s (after 0.5 s for a write in flight).
stopped() {
  local a b
  sleep 0.5
  a=$(value "$1")
  sleep 1.5
  b=$(value "$1")
  [ "$a" = "$b" ]
}

# two_users PREFIX: makes two unix users, PREFIX<pid>a and PREFIX<pid>b, in $u1 and $u2; they
# are removed at exit (before cleanup).
two_users() {
  u1=$1$$a
  u2=$1$$b
  useradd -M -d "$WORK" -s /bin/bash "$u1" || fail "useradd"
  useradd -M -d "$WORK" -s /bin/bash "$u2" || { userdel "$u1"; fail "useradd"; }
  trap 'rc=$?; userdel "$u1" 2>/dev/null; userdel "$u2" 2>/dev/null; (exit $rc); cleanup' EXIT
}

# users_in_account ACCOUNT USER...: the account, and for each user a folder $WORK/USER of theirs
# and an association in the account (the cluster runs).
users_in_account() {
  local account=$1 user
  shift
  sacctmgr -i add account "$account" >/dev/null || fail "add account $account"
  for user in "$@"; do
    mkdir -p "$WORK/$user" && chown "$user" "$WORK/$user"
    sacctmgr -i add user "$user" account="$account" >/dev/null || fail "add user $user"
  done
}
