#!/usr/bin/env bash
# A real local cluster runs batch jobs end to end: output file and environment, multi-node
# exclusive allocation, time limit -> TIMEOUT, scancel -> CANCELLED with the whole process tree
# gone, prolog/epilog on every allocated node, exit codes.
# usage: job_lifecycle.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
cd "$WORK"

# 1. submit -> run -> COMPLETED, with the default output file and the SLURM_* environment.
cat >"$WORK/env.sh" <<'JOB'
#!/bin/bash
#SBATCH -J envjob
echo "hello from $SLURMD_NODENAME"
env | grep -E '^(SLURM_|ENVIRONMENT=)' | sort
JOB
id=$(sbatch --parsable "$WORK/env.sh") || fail "sbatch"
[[ "$id" =~ ^[0-9]+$ ]] || fail "sbatch --parsable printed '$id'"
wait_state "$id" COMPLETED
out=$WORK/slurm-$id.out
[ -f "$out" ] || fail "no $out"
grep -q "^hello from itest-cpu-" "$out" || fail "output: $(cat "$out")"
for var in SLURM_JOB_ID=$id SLURM_JOBID=$id SLURM_JOB_NAME=envjob SLURM_JOB_NUM_NODES=1 \
           SLURM_JOB_PARTITION=cpu SLURM_SUBMIT_DIR=$WORK SLURM_CLUSTER_NAME=itest \
           ENVIRONMENT=BATCH SLURM_NODEID=0 SLURM_PROCID=0; do
  grep -qx "$var" "$out" || fail "missing $var in $(cat "$out")"
done
[ "$(job_field "$id" ExitCode)" = "0:0" ] || fail "exit code $(job_field "$id" ExitCode)"

# 2. -o/-e patterns, a failing script's exit code, --wrap.
id=$(sbatch --parsable -o "$WORK/out-%j-%x.txt" -e "$WORK/err-%j.txt" -J pat \
  --wrap 'echo to-out; echo to-err >&2; exit 3') || fail "sbatch --wrap"
wait_state "$id" FAILED
grep -qx to-out "$WORK/out-$id-pat.txt" || fail "stdout file"
grep -qx to-err "$WORK/err-$id.txt" || fail "stderr file"
[ "$(job_field "$id" ExitCode)" = "3:0" ] || fail "exit code $(job_field "$id" ExitCode)"

# 3. A 2-node job gets two distinct nodes, exclusively, and prolog/epilog ran on both.
id=$(sbatch --parsable -N 2 --exclusive -o "$WORK/two-%j.out" \
  --wrap "echo \$SLURM_JOB_NODELIST; while [ ! -e $WORK/go ]; do sleep 0.1; done") || fail "sbatch -N 2"
wait_state "$id" RUNNING
nodes=$(scontrol show hostnames "$(job_field "$id" NodeList)" 2>/dev/null || true)
[ "$(job_field "$id" NumNodes)" = "2" ] || fail "NumNodes $(job_field "$id" NumNodes)"
# While it runs, an exclusive 3-node job cannot start (4 nodes, 2 taken whole).
id3=$(sbatch --parsable -N 3 --exclusive --wrap 'true') || fail "sbatch -N 3"
sleep 1
[ "$(job_state "$id3")" = PENDING ] || fail "3-node job not pending while 2 nodes are taken"
touch "$WORK/go"
wait_state "$id" COMPLETED
wait_state "$id3" COMPLETED
[ "$(grep -c "^$id " "$WORK/prolog.log")" = 2 ] || fail "prolog ran $(grep -c "^$id " "$WORK/prolog.log") times"
wait_for 30 test -f "$WORK/epilog.log" || fail "no epilog"
wait_for 30 bash -c "[ \$(grep -c '^$id ' '$WORK/epilog.log') = 2 ]" || fail "epilog count"
pair=$(awk -v id="$id" '$1 == id {print $2}' "$WORK/prolog.log" | sort -u | wc -l)
[ "$pair" = 2 ] || fail "the 2-node job did not get 2 distinct nodes"

# 4. Time limit -> TIMEOUT (SIGTERM, then SIGKILL after KillWait=2).
id=$(sbatch --parsable -t 1 --wrap 'trap "" TERM; sleep 300') || fail "sbatch -t"
wait_state "$id" RUNNING
# A 1-minute limit is too long for a test: the controller checks limits against its clock, so
# shorten the wait by asserting the state only after the limit (+ KillWait) passed.
wait_state "$id" TIMEOUT 90

# 5. scancel -> CANCELLED, and nothing of the job survives (a child that ignores SIGTERM and
# left the process group).
id=$(sbatch --parsable -o "$WORK/tree-%j.out" --wrap \
  'setsid bash -c "trap \"\" TERM; echo \$\$ > '"$WORK"'/escapee.pid; exec sleep 300" & sleep 300') ||
  fail "sbatch tree"
wait_state "$id" RUNNING
wait_for 30 test -s "$WORK/escapee.pid" || fail "escapee did not start"
escapee=$(cat "$WORK/escapee.pid")
kill -0 "$escapee" || fail "escapee not running"
scancel "$id" || fail "scancel"
wait_state "$id" CANCELLED
wait_for 15 bash -c "! kill -0 $escapee 2>/dev/null" || fail "process $escapee survived scancel"

# 6. scancel -s USR1 reaches the job's steps only (none here: the script goes on, as in Slurm);
# with -f (--full) it reaches the script too. The script says when its trap is set: a signal
# sent before that would kill it, however long the test slept first.
id=$(sbatch --parsable -o "$WORK/sig-%j.out" --wrap \
  'trap "echo got-usr1; exit 0" USR1; touch '"$WORK"'/sig.ready
  for i in $(seq 300); do sleep 0.1; done') || fail "sbatch sig"
wait_state "$id" RUNNING
wait_for 30 test -e "$WORK/sig.ready" || fail "the job did not set its USR1 trap"
scancel -s USR1 "$id" || fail "scancel -s USR1"
sleep 1
[ "$(job_state "$id")" = RUNNING ] && [ ! -s "$WORK/sig-$id.out" ] ||
  fail "scancel -s USR1 without --full reached the batch script"
scancel -f -s USR1 "$id" || fail "scancel -f -s USR1"
wait_state "$id" COMPLETED
grep -qx got-usr1 "$WORK/sig-$id.out" || fail "USR1 not delivered: $(cat "$WORK/sig-$id.out")"

# 7. sbatch --wait exits with the job's code (1 for a signal), -Q prints nothing,
# --open-mode=append keeps the output file, --export-file adds variables even with NONE.
printf 'FROM_FILE=a b\0OTHER=x=y\0' >"$WORK/env.nul"
echo "kept" >"$WORK/append.out"
out=$(LEAK=1 sbatch -Q --wait --export=NONE --export-file="$WORK/env.nul" --open-mode=append \
  -o "$WORK/append.out" --wrap 'echo "$FROM_FILE|$OTHER|${LEAK:-unset}"; exit 7')
rc=$?
[ "$rc" = 7 ] || fail "sbatch --wait exited $rc, not the job's 7"
[ -z "$out" ] || fail "sbatch -Q printed '$out'"
[ "$(cat "$WORK/append.out")" = "$(printf 'kept\na b|x=y|unset')" ] ||
  fail "append/export-file: $(cat "$WORK/append.out")"
sbatch --wait -o /dev/null --wrap 'kill -9 $$' >/dev/null
rc=$?
[ "$rc" = 1 ] || fail "sbatch --wait on a killed job exited $rc"
sbatch --export-file="$WORK/missing" --wrap true 2>"$WORK/ef.err"
rc=$?
[ "$rc" = 1 ] && grep -qx "sbatch: error: Could not open user environment file $WORK/missing" \
  "$WORK/ef.err" || fail "--export-file missing: rc $rc, $(cat "$WORK/ef.err")"

# 8. --signal=B:USR1@45 with a 1-minute limit: the batch shell hears USR1 ~15 s after the start
# (not sooner: a slow launch must have set the trap by then), long before the limit.
id=$(sbatch --parsable -t 1 --signal=B:USR1@45 -o "$WORK/warn-%j.out" --wrap \
  'trap "echo warned; exit 0" USR1; for i in $(seq 600); do sleep 0.1; done') || fail "sbatch --signal"
wait_state "$id" COMPLETED 45
grep -qx warned "$WORK/warn-$id.out" || fail "no --signal warning: $(cat "$WORK/warn-$id.out")"
sbatch --signal=USR1@x --wrap true 2>"$WORK/sig.err"
rc=$?
[ "$rc" = 255 ] && grep -qx "sbatch: error: Invalid --signal specification" "$WORK/sig.err" ||
  fail "--signal=USR1@x: rc $rc, $(cat "$WORK/sig.err")"

# 9. --test-only says when and where, keeps nothing; what cannot run is an allocation failure.
before=$(squeue -h -t all | wc -l)
msg=$(sbatch --test-only -N 2 --wrap true 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "sbatch --test-only exited $rc: $msg"
[[ "$msg" =~ ^sbatch:\ Job\ [0-9]+\ to\ start\ at\ [0-9T:-]+\ using\ [0-9]+\ processors\ on\ nodes\ itest-cpu-\[[0-9]-[0-9]\]\ in\ partition\ cpu$ ]] ||
  fail "sbatch --test-only printed '$msg'"
[ "$(squeue -h -t all | wc -l)" = "$before" ] || fail "sbatch --test-only left a job"
msg=$(sbatch --test-only -p nope --wrap true 2>&1)
rc=$?
[ "$rc" = 1 ] && [ "$msg" = "allocation failure: Invalid partition name specified" ] ||
  fail "sbatch --test-only -p nope: rc $rc, '$msg'"

# 10. scancel -i asks for each job; -A and -w pick jobs by account and node.
id=$(sbatch --parsable -H -J asked -A acct1 --wrap true) || fail "sbatch -H"
out=$(echo n | scancel -i "$id")
[ "$out" = "Cancel job_id=$id name=asked partition=cpu [y/n]? " ] || fail "scancel -i asked '$out'"
[ "$(job_state "$id")" = PENDING ] || fail "scancel -i cancelled after 'n'"
scancel -A other
[ "$(job_state "$id")" = PENDING ] || fail "scancel -A other cancelled acct1's job"
printf 'maybe\ny\n' | scancel -i -A acct1 >/dev/null
wait_state "$id" CANCELLED
id=$(sbatch --parsable -o /dev/null --wrap 'sleep 300') || fail "sbatch sleep"
wait_state "$id" RUNNING
scancel -w "$(job_field "$id" NodeList)"
wait_state "$id" CANCELLED

# 11. squeue -i N lists again every N seconds, each time after a date line and before a blank one.
id=$(sbatch --parsable -H --wrap true) || fail "sbatch -H"
# 5.5 s, not 2.5: a slow squeue still lists twice.
out=$(timeout 5.5 squeue -i 1 -j "$id")
[ "$(grep -c "^ *$id " <<<"$out")" -ge 2 ] || fail "squeue -i listed: $out"
[ "$(grep -c '^[A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] ' <<<"$out")" -ge 2 ] || fail "no date lines: $out"
squeue -i 0 2>"$WORK/it.err"
[ "$?" = 1 ] && grep -qx "squeue: error: --iterate=0" "$WORK/it.err" || fail "squeue -i 0"
scancel "$id"

# 12. Names and environments need not be UTF-8 (Slurm takes any bytes but NUL).
name=$(printf 'caf\351')
id=$(LATIN=$(printf '\377x') sbatch --parsable -J "$name" -o "$WORK/latin-%j.out" \
  --wrap 'printf "%s" "$LATIN"') || fail "sbatch with a Latin-1 name"
wait_state "$id" COMPLETED
[ "$(squeue -h -t all -j "$id" -o %j)" = "$name" ] || fail "squeue name: $(squeue -h -t all -j "$id" -o %j | od -c)"
[ "$(cat "$WORK/latin-$id.out")" = "$(printf '\377x')" ] || fail "environment: $(od -c "$WORK/latin-$id.out")"

echo PASS
