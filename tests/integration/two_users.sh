#!/usr/bin/env bash
# Two unix users (created here, removed at exit) run jobs as themselves and cannot touch each
# other's jobs; root can. Skipped (77) when not root.
# usage: two_users.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
source "$(dirname "$0")/lib.sh" "$@"
u1=gtest$$a
u2=gtest$$b
useradd -M -d "$WORK" -s /bin/bash "$u1" || fail "useradd"
useradd -M -d "$WORK" -s /bin/bash "$u2" || { userdel "$u1"; fail "useradd"; }
# cleanup reads the script's exit status from $?: keep it past userdel.
trap 'rc=$?; userdel "$u1" 2>/dev/null; userdel "$u2" 2>/dev/null; (exit $rc); cleanup' EXIT
start_cluster
mkdir -p "$WORK/$u1" "$WORK/$u2"
chown "$u1" "$WORK/$u1"
chown "$u2" "$WORK/$u2"

as() {
  local user=$1
  shift
  runuser -u "$user" -- env PATH="$PATH" GANTRY_CONF="$GANTRY_CONF" "$@"
}

id1=$(cd "$WORK/$u1" && as "$u1" sbatch --parsable --wrap 'id -un; sleep 300') ||
  fail "sbatch as $u1"
wait_state "$id1" RUNNING
[ "$(job_field "$id1" UserId)" = "$u1($(id -u "$u1"))" ] || fail "UserId $(job_field "$id1" UserId)"
out=$(as "$u2" scancel "$id1" 2>&1) && fail "$u2 cancelled $u1's job"
echo "$out" | grep -q "Access/permission denied" || fail "scancel said: $out"
out=$(as "$u2" scontrol hold "$id1" 2>&1) && fail "$u2 held $u1's job"
[ "$(job_state "$id1")" = RUNNING ] || fail "job state $(job_state "$id1")"
out=$(as "$u2" scontrol update NodeName=itest-cpu-0 State=DRAIN Reason=x 2>&1) &&
  fail "$u2 drained a node"
as "$u1" scancel "$id1" || fail "$u1 could not cancel its own job"
wait_state "$id1" CANCELLED
id2=$(cd "$WORK/$u2" && as "$u2" sbatch --parsable --wrap 'id -un') || fail "sbatch as $u2"
wait_state "$id2" COMPLETED
[ "$(cat "$WORK/$u2/slurm-$id2.out")" = "$u2" ] || fail "ran as $(cat "$WORK/$u2/slurm-$id2.out")"
[ "$(stat -c %U "$WORK/$u2/slurm-$id2.out")" = "$u2" ] || fail "output file owner"
id3=$(cd "$WORK/$u2" && as "$u2" sbatch --parsable --wrap 'sleep 30') || fail "sbatch"
scancel "$id3" || fail "root could not cancel"
wait_state "$id3" CANCELLED
echo PASS
