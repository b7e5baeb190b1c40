#!/usr/bin/env bash
# H9 (disk): on a full disk gantryd exited 70 at its next commit and could not start again. Now
# it refuses new work, naming the free space, while the disk is nearly full (jobs already
# accepted go on and end), and starts again on a full disk (its 32 MiB reserve is freed).
# The state dir is a 160 MiB tmpfs of the test's own.
# usage: h9_disk_full.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$STATE"
mount -t tmpfs -o size=160m gantry-test "$STATE" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
AT_EXIT="gantry down --state-dir $STATE >/dev/null 2>&1; umount -l $STATE"
start_cluster
[ -s "$STATE/reserve" ] || fail "no reserve in the state dir"
running=$(as "$ALICE" sbatch --parsable -o /dev/null --wrap 'sleep 4') || fail "sbatch"
wait_state "$running" RUNNING
free_mib() { df -m --output=avail "$STATE" | tail -1 | tr -d ' '; }
# Leave 40 MiB: below the 64 MiB gantryd keeps for what it accepted.
dd if=/dev/zero of="$STATE/filler" bs=1M count=$(($(free_mib) - 40)) status=none
out=$(as "$ALICE" sbatch --wrap true 2>&1) && fail "a submission was accepted on a full disk"
case $out in
  "sbatch: error: Batch job submission failed: the state store's disk is full: it has "*" MiB free, and new work is refused below 64 MiB (jobs already accepted go on)") ;;
  *) fail "sbatch said: $out" ;;
esac
squeue >/dev/null || fail "squeue on a full disk"
wait_state "$running" COMPLETED 30  # its end is still committed
# Completely full: a restart frees the reserve and comes back.
dd if=/dev/zero of="$STATE/filler2" bs=1M status=none 2>/dev/null
gantry down --state-dir "$STATE" >/dev/null 2>&1
gantry up --state-dir "$STATE" >"$WORK/up.out" 2>&1 || fail "gantry up on a full disk: $(cat "$WORK/up.out")"
grep -q "reserve is freed" "$WORK/up.out" || fail "up: $(cat "$WORK/up.out")"
wait_for 30 nodes_idle || fail "nodes after the restart"
[ "$(job_state "$running")" = COMPLETED ] || fail "the job after the restart: $(job_state "$running")"
# Space again: submissions are accepted.
rm -f "$STATE/filler" "$STATE/filler2"
id=$(as "$ALICE" sbatch --parsable -o /dev/null --wrap true) || fail "sbatch with room again"
wait_state "$id" COMPLETED
echo PASS
