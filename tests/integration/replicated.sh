#!/usr/bin/env bash
# `gantry up --controllers 3` on one machine (decision 0017): three etcd members and three
# gantryd replicas; gantry status marks the leader, scontrol ping lists the three as Slurm lists
# primary and backups, scontrol takeover moves the lead (operators only), a job running while
# the leader is killed -9 finishes, a restarted replica stands by, and gantry down stops all.
# Skipped (77) without etcd.
# usage: replicated.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2"
[ -x /usr/bin/etcd ] || { echo "SKIP: no /usr/bin/etcd (etcd-server)"; exit 77; }
prepare_spec
# Bad counts are refused, naming the flag and the rule; nothing is made.
out=$("$BIN/gantry" up --spec "$SPEC" --state-dir "$STATE" --controllers x 2>&1) && fail "--controllers x"
echo "$out" | grep -q -- '--controllers "x": expected a number' || fail "--controllers x: $out"
out=$("$BIN/gantry" up --spec "$SPEC" --state-dir "$STATE" --controllers 9 2>&1) && fail "--controllers 9"
echo "$out" | grep -q "2 to 7 controllers" || fail "--controllers 9: $out"
[ ! -e "$STATE/replicas.conf" ] || fail "a refused count left replicas.conf"
"$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1
rm -rf "$STATE"

"$BIN/gantry" up --spec "$SPEC" --state-dir "$STATE" --controllers 3 >"$WORK/up.out" 2>&1 ||
  { cat "$WORK/up.out"; fail "gantry up --controllers 3"; }
grep -q "^gantryd c[123] leads" "$WORK/up.out" || fail "up names no leader: $(cat "$WORK/up.out")"
eval "$("$BIN/gantry" env --state-dir "$STATE")"
wait_for 30 nodes_idle || { sinfo -N; fail "nodes did not come up"; }
grep -q "^CommandSocket=.*c1/commands.sock,.*c2/commands.sock,.*c3/commands.sock$" "$GANTRY_CONF" ||
  fail "gantry.conf lists the replicas: $(cat "$GANTRY_CONF")"
leader() { "$BIN/gantry" status --state-dir "$STATE" | awk '$1 == "gantryd" && $NF == "leader" {print $2}'; }
wait_until 20 '[ "$("$BIN/gantry" status --state-dir "$STATE" | grep -c "^gantryd c.*\(leader\|standby\)$")" = 3 ]' ||
  { "$BIN/gantry" status --state-dir "$STATE"; fail "status: three replicas, one leader"; }
[ "$("$BIN/gantry" status --state-dir "$STATE" | grep -c "^etcd e[123] .*running")" = 3 ] || fail "etcd members"
first=$(leader)
expect "scontrol ping" "Slurmctld(primary) at $(hostname) is UP
Slurmctld(backup1) at $(hostname) is UP
Slurmctld(backup2) at $(hostname) is UP" "$(scontrol ping)"

# takeover: only an operator; the lead moves to the backup named by its index.
two_users rep
out=$(su "$u1" -s /bin/sh -c "GANTRY_CONF=$GANTRY_CONF $BIN/scontrol takeover" 2>&1) &&
  fail "a user took over"
expect "user takeover" "slurm_takeover error: Access/permission denied" "$out"
scontrol takeover 2 || fail "takeover 2"   # backup2: the third controller
wait_until 20 '[ "$(leader)" = c3 ]' || fail "takeover 2: $("$BIN/gantry" status --state-dir "$STATE")"
[ "$first" = c3 ] ||
  wait_until 10 'grep -q "takeover: the lead goes to c3" "$STATE/logs/gantryd-$first.log"' ||
  fail "the old leader did not hand over"
out=$(scontrol takeover 3 2>&1) && fail "takeover 3 of 3"
expect "takeover 3" "takeover: invalid backup controller index 3" "$out"

# A job runs through the leader's death; the restarted replica stands by.
id=$(sbatch --parsable -o "$WORK/ha-%j.out" --wrap 'sleep 6; echo done') || fail sbatch
wait_state "$id" RUNNING 20
pid=$(cat "$STATE/run/c3/gantryd.pid")
kill -9 "$pid"
squeue -h -j "$id" >/dev/null || fail "squeue after the leader's death"
wait_until 20 '[ -n "$(leader)" ] && [ "$(leader)" != c3 ]' || fail "no new leader"
wait_state "$id" COMPLETED 40
[ "$(cat "$WORK/ha-$id.out")" = done ] || fail "the job's output: $(cat "$WORK/ha-$id.out")"
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up again"; }
grep -q "gantryd c3  started" "$WORK/up2.out" || fail "up restarts c3: $(cat "$WORK/up2.out")"
wait_until 20 '"$BIN/gantry" status --state-dir "$STATE" | grep -q "^gantryd c3 .*standby$"' ||
  fail "c3 back as a standby: $("$BIN/gantry" status --state-dir "$STATE")"
# The form is chosen once.
out=$("$BIN/gantry" up --state-dir "$STATE" --controllers 1 2>&1) && fail "--controllers 1 on 3"
echo "$out" | grep -q "runs 3 controllers" || fail "--controllers 1: $out"

"$BIN/gantry" down --state-dir "$STATE" >"$WORK/down.out" 2>&1 || fail "down"
for d in "gantryd c1" "gantryd c2" "gantryd c3" "etcd e1" "etcd e2" "etcd e3"; do
  grep -q "^$d  stopped" "$WORK/down.out" || fail "down did not stop $d: $(cat "$WORK/down.out")"
done
! pgrep -f -- "--data-dir $STATE/etcd" >/dev/null || fail "an etcd member still runs"
! pgrep -f -- "--run-dir $STATE/run/c" >/dev/null || fail "a replica still runs"
echo PASS
