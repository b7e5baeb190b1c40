#!/usr/bin/env bash
# Issue 25, item 2: a job's script and environment reach only its owner and operators.
# `scontrol write batch_script N [FILE|-]` as in Slurm: alice (and root) get her script, bob is
# told "Invalid user id" and gets nothing; an allocation has no script.
# usage: script_access.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
printf '#!/bin/bash\n#SBATCH -J secret\necho "token=%s"\n' "s3cr3t-$$" >"$WORK/$ALICE/job.sh"
chown "$ALICE" "$WORK/$ALICE/job.sh"
id=$(as "$ALICE" sbatch --parsable -H job.sh) || fail "sbatch"
expect "alice's write" "batch script for job $id written to slurm-$id.sh" \
  "$(as "$ALICE" scontrol write batch_script "$id")"
cmp -s "$WORK/$ALICE/job.sh" "$WORK/$ALICE/slurm-$id.sh" || fail "the written script differs"
[ "$(stat -c %U "$WORK/$ALICE/slurm-$id.sh")" = "$ALICE" ] || fail "the file is not alice's"
expect "root's write to stdout" "$(cat "$WORK/$ALICE/job.sh")" "$(scontrol write batch_script "$id" -)"
out=$(as "$BOB" scontrol write batch_script "$id" - 2>&1) && fail "bob got alice's script: $out"
expect "bob's write" "job script retrieval failed: Invalid user id" "$out"
as "$BOB" scontrol write batch_script "$id" 2>/dev/null
[ -e "$WORK/$BOB/slurm-$id.sh" ] && fail "a file was left for bob"
expect "unknown job" "job script retrieval failed: Invalid job id specified" \
  "$(scontrol write batch_script 999999 - 2>&1)"
# Array tasks share the array's script.
arr=$(as "$ALICE" sbatch --parsable -H --array=1-2 job.sh) || fail "sbatch array"
expect "an array task" "$(cat "$WORK/$ALICE/job.sh")" \
  "$(as "$ALICE" scontrol write batch_script "$arr" -)"
echo PASS
