#!/usr/bin/env bash
# kill -9 of the controller while 4 clients submit: after `gantry up` restarts it, every job id a
# client saw acknowledged is there exactly once, ids are never reused, and a job that was running
# kept running (same process, same start time).
# usage: controller_crash.sh BIN_DIR SOURCE_ROOT [JOBS_PER_CLIENT]
source "$(dirname "$0")/lib.sh" "$1" "$2"
per_client=${3:-500}
# The agents' lease is SlurmdTimeout, 30 s in local.json: longer than a sanitized gantryd takes to
# restart on a loaded 2-core machine. This test is about the journal, not the lease
# (node_failure.sh and the chaos test cover that).
grep -q '"SlurmdTimeout": "30"' "$SPEC" || fail "local.json has no SlurmdTimeout 30"
start_cluster
cd "$WORK"

long=$(sbatch --parsable -o "$WORK/long.out" --wrap 'echo $$ > '"$WORK"'/long.pid; sleep 1000') ||
  fail "sbatch long"
wait_state "$long" RUNNING
wait_for 10 test -s "$WORK/long.pid" || fail "long job did not start"
long_pid=$(cat "$WORK/long.pid")
long_start=$(job_field "$long" StartTime)

submitter() {
  local k=$1 acked=0 tries=0
  while [ "$acked" -lt "$per_client" ] && [ "$tries" -lt $((per_client * 20)) ]; do
    tries=$((tries + 1))
    # -H: held, so thousands of trivial jobs do not compete with the check; ids only on success.
    # A refused submission (controller down) is retried after a pause, as a workflow tool does.
    if sbatch --parsable -H -J "c$k" --wrap true 2>>"$WORK/errors.$k" >>"$WORK/ids.$k"; then
      acked=$((acked + 1))
    else
      sleep 0.05
    fi
  done
}
for k in 1 2 3 4; do
  submitter "$k" &
  pids+=($!)
done
# Let them get going, then crash the controller mid-stream.
wait_for 60 bash -c "[ \$(cat $WORK/ids.* 2>/dev/null | wc -l) -ge $((per_client / 2)) ]" ||
  fail "submissions too slow"
kill -9 "$(cat "$STATE/run/gantryd.pid")"
echo "killed gantryd after $(cat "$WORK"/ids.* | wc -l) acknowledged submissions"
sleep 1
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up"; }
for pid in "${pids[@]}"; do wait "$pid"; done

acked=$(cat "$WORK"/ids.* | wc -l)
unique=$(cat "$WORK"/ids.* | sort -u | wc -l)
failed=$(cat "$WORK"/errors.* | grep -c 'error' || true)
echo "acknowledged $acked, refused while down $failed"
[ "$acked" = "$unique" ] || fail "a job id was acknowledged twice ($acked acks, $unique ids)"
[ "$acked" = $((per_client * 4)) ] || fail "only $acked of $((per_client * 4)) acknowledged"
[ "$failed" -gt 0 ] || fail "no submission was refused: the crash came too late to test anything"
squeue -h -t all -o '%i' | sort >"$WORK/known"
[ "$(sort -u "$WORK/known" | wc -l)" = "$(wc -l <"$WORK/known")" ] || fail "squeue lists a job twice"
missing=$(cat "$WORK"/ids.* | sort | comm -23 - "$WORK/known" | head -5)
[ -z "$missing" ] || fail "acknowledged but lost: $missing"

[ "$(job_state "$long")" = RUNNING ] || fail "the running job is $(job_state "$long")"
[ "$(job_field "$long" StartTime)" = "$long_start" ] || fail "StartTime changed"
kill -0 "$long_pid" || fail "the running job's process died"
# The agents re-registered and the cluster still works.
id=$(sbatch --parsable --wrap true) || fail "sbatch after restart"
wait_state "$id" COMPLETED
echo PASS
