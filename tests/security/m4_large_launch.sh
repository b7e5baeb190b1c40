#!/usr/bin/env bash
# M4 (1): an agent took launches of at most 4 MiB (gRPC's default) while gantryd accepted
# 64 MiB submissions, so a job with a large environment was never launched and stayed RUNNING
# with nothing running until its time limit. Now the agent takes what gantryd accepted: the
# job runs, or ends with the reason it could not start; it never hangs.
# usage: m4_large_launch.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
# 40 variables of 120 KB: 4.8 MB of environment (each under execve's 128 KiB per string, the
# whole over its total with an 8 MB stack: the script cannot start, and the job says so).
env_file() {  # COUNT: a file of COUNT variables of 120 KB each (sbatch --export-file)
  local i
  for i in $(seq "$1"); do printf 'BIG_%d=%s\n' "$i" "$(head -c 120000 /dev/zero | tr '\0' x)"; done
}
env_file 40 >"$WORK/$ALICE/big.env"
env_file 10 >"$WORK/$ALICE/mid.env"
chmod 644 "$WORK/$ALICE"/*.env
id=$(as "$ALICE" sbatch --parsable --export-file=big.env -o big.out --wrap 'echo ran') ||
  fail "sbatch"
ended() { case $(job_state "$id") in COMPLETED | FAILED) return 0 ;; *) return 1 ;; esac; }
wait_for 30 ended || fail "job $id is $(job_state "$id") 30 s after its submission"
echo "job $id: $(job_state "$id") $(job_field "$id" Reason)"
# A smaller one (1.2 MB, within execve's limit) runs.
id=$(as "$ALICE" sbatch --parsable --export-file=mid.env -o mid.out --wrap 'echo ran') ||
  fail "sbatch"
wait_state "$id" COMPLETED
expect "the job's output" ran "$(cat "$WORK/$ALICE/mid.out")"
echo PASS
