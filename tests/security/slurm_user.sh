#!/usr/bin/env bash
# gantryd as SlurmUser: with `SlurmUser` in the spec's config, root starts gantryd and it runs
# as that user (its state files become that user's); jobs still run as their users through the
# agents (root, trusting the controller's certificate, not its uid). SlurmUser is an operator
# like root; bob is not.
# usage: slurm_user.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
SU=gsu$$
useradd -M -d "$WORK" -s /bin/bash "$SU" || fail "useradd $SU"
AT_EXIT="pkill -9 -u $SU 2>/dev/null; userdel $SU 2>/dev/null"
python3 - "$SPEC" "$WORK/slurm-user.json" "$SU" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["orchestrator_spec"]["slurm_spec"]["config"]["SlurmUser"] = sys.argv[3]
json.dump(spec, open(sys.argv[2], "w"))
PY
SPEC=$WORK/slurm-user.json
start_cluster
expect "gantryd's user" "$SU" "$(ps -o user= -p "$(gantryd_pid)")"
expect "state.db's owner" "$SU" "$(stat -c %U "$STATE/state.db")"
expect "the CA key's owner" root "$(stat -c %U "$STATE/tls/ca.key")"
scontrol show config | grep -q "^SlurmUser *= $SU(" || fail "show config: $(scontrol show config | grep SlurmUser)"
id=$(as "$ALICE" sbatch --parsable -o out --wrap 'id -un') || fail "sbatch"
wait_state "$id" COMPLETED
expect "the job's user" "$ALICE" "$(cat "$WORK/$ALICE/out")"
node=$(sinfo -h -N -o %N | head -1)
out=$(as "$BOB" scontrol update NodeName="$node" State=DRAIN Reason=bob 2>&1) &&
  fail "bob drained a node: $out"
as "$SU" scontrol update NodeName="$node" State=DRAIN Reason=maintenance ||
  fail "SlurmUser may not drain"
sinfo -h -N -n "$node" -o %t | grep -q drain || fail "not drained"
echo PASS
