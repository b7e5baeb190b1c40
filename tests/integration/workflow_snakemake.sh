#!/usr/bin/env bash
# Snakemake's own Slurm executor (Debian's snakemake 7.21, `--slurm`) drives a local Gantry cluster
# unchanged: it submits with sbatch, runs each rule inside the job with `srun -n1`, polls sacct,
# and cancels with scancel. Three workflows: one that succeeds (two dependent rules), one whose
# rule fails (exit 3), and one interrupted while its rule runs (Snakemake scancels the job).
# Skipped (exit 77) where snakemake is not installed.
source "$(dirname "$0")/lib.sh" "$1" "$2"
command -v snakemake >/dev/null || { echo "snakemake not installed: skipped"; exit 77; }
start_cluster
export USER=${USER:-$(id -un)}
# Only Gantry's commands: a Slurm installed on this machine must not answer for them.
for cmd in sbatch srun sacct scancel sinfo scontrol squeue; do
  [ "$(command -v $cmd)" = "$BIN/$cmd" ] || fail "$cmd resolves to $(command -v $cmd)"
done

# Snakemake polls sacct at most once a second here (it turns any rate above 1/s into one check
# every 33 s).
run_snakemake() {  # DIR [ARGS...]: runs the workflow in DIR, output in DIR/snakemake.log
  local dir=$1
  shift
  (cd "$dir" && timeout 240 snakemake --slurm -j 2 --latency-wait 5 \
    --max-status-checks-per-second 1 --default-resources runtime=5 mem_mb=1000 "$@" \
    >snakemake.log 2>&1)
}
# The Slurm job ids Snakemake reported for a workflow.
job_ids() { sed -n 's/.*submitted with SLURM jobid \([0-9]*\).*/\1/p' "$1/snakemake.log"; }
sacct_state() { sacct -n -X -P -o State,ExitCode -j "$1"; }

# 1. Success: a.txt from one job, b.txt from a second job that reads it.
mkdir -p "$WORK/ok"
cat >"$WORK/ok/Snakefile" <<'EOF'
rule all:
    input: "b.txt"
rule a:
    output: "a.txt"
    shell: "echo hello > {output}; echo $SLURM_JOB_ID $SLURM_STEP_ID >> {output}"
rule b:
    input: "a.txt"
    output: "b.txt"
    shell: "cat {input} > {output}"
EOF
run_snakemake "$WORK/ok" || { cat "$WORK/ok/snakemake.log"; fail "the workflow failed"; }
[ "$(head -1 "$WORK/ok/b.txt")" = hello ] || fail "b.txt: $(cat "$WORK/ok/b.txt")"
ids=$(job_ids "$WORK/ok")
[ "$(echo "$ids" | wc -w)" = 2 ] || fail "expected 2 jobs, got: $ids"
first=$(echo "$ids" | head -1)
# The rule ran inside its job, as step 0.
[ "$(sed -n 2p "$WORK/ok/b.txt")" = "$first 0" ] || fail "rule a ran as: $(sed -n 2p "$WORK/ok/b.txt")"
for id in $ids; do
  [ "$(sacct_state "$id")" = "COMPLETED|0:0" ] || fail "job $id: $(sacct_state "$id")"
done

# 2. A rule that fails: Snakemake sees FAILED, reports the error, exits non-zero.
mkdir -p "$WORK/bad"
cat >"$WORK/bad/Snakefile" <<'EOF'
rule bad:
    output: "never.txt"
    shell: "exit 3"
EOF
run_snakemake "$WORK/bad" && fail "a failing workflow succeeded"
grep -q "failed, SLURM status is: 'FAILED'" "$WORK/bad/snakemake.log" ||
  { cat "$WORK/bad/snakemake.log"; fail "Snakemake did not see the job fail"; }
id=$(job_ids "$WORK/bad")
# The job's script is Snakemake itself (running the rule through srun): it exits 1.
[ "$(sacct_state "$id")" = "FAILED|1:0" ] || fail "job $id: $(sacct_state "$id")"

# 3. Interrupted: SIGINT to Snakemake while its rule runs; it scancels the job.
mkdir -p "$WORK/stop"
cat >"$WORK/stop/Snakefile" <<'EOF'
rule slow:
    output: "slow.txt"
    shell: "sleep 300; touch {output}"
EOF
# Snakemake cancels only the jobs in its list, and takes them out of it while it checks their
# state: a SIGINT during a check cancels nothing (its race, which slow commands widen). A check
# goes on after its sacct returns (Snakemake reads the answer and puts the job back), so the
# SIGINT goes 2 s after a check's sacct has ended (a sacct in front of ours marks that end),
# between two checks, which start 5 s apart. (Right at the end of sacct, under ASan load, it
# once landed before the job was back in the list.)
mkdir -p "$WORK/shim"
printf '#!/bin/sh\n"%s/sacct" "$@"; rc=$?\ntouch "%s/stop/checked"\nexit $rc\n' "$BIN" "$WORK" \
  >"$WORK/shim/sacct"
chmod +x "$WORK/shim/sacct"
(cd "$WORK/stop" && PATH=$WORK/shim:$PATH exec snakemake --slurm -j 1 \
  --max-status-checks-per-second 0.2 --default-resources runtime=5 mem_mb=1000 \
  >snakemake.log 2>&1) &
smk=$!
EXTRA_PIDS=$smk
wait_for 60 bash -c "grep -q 'submitted with SLURM jobid' $WORK/stop/snakemake.log" ||
  fail "Snakemake did not submit"
id=$(job_ids "$WORK/stop")
wait_state "$id" RUNNING
rm -f "$WORK/stop/checked"
wait_for 30 test -e "$WORK/stop/checked" || fail "Snakemake did not check its job"
sleep 2
kill -INT "$smk"
wait_for 60 bash -c "! kill -0 $smk 2>/dev/null" || fail "Snakemake did not stop"
wait_state "$id" CANCELLED
sacct -n -X -P -o State -j "$id" | grep -q "^CANCELLED by $(id -u)$" ||
  fail "job $id: $(sacct -n -X -P -o State -j "$id")"
echo PASS
