#!/usr/bin/env bash
# `scontrol update PartitionName=` with the keys an operator changes (Nodes, AllowAccounts,
# PriorityTier, PreemptMode, OverSubscribe, MaxTime, Hidden...): they show in scontrol and sinfo,
# admission and placement follow them, they survive a restart, and bad keys or values change
# nothing and exit 1 with Slurm's texts.
# usage: partition_update.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
cd "$WORK"

show() { scontrol show partition cpu | tr ' ' '\n' | sed -n "s/^$1=//p"; }

scontrol update PartitionName=cpu Nodes=itest-cpu-[0-1] PriorityTier=5 PreemptMode=requeue \
  OverSubscribe=FORCE:2 MaxTime=30 DenyQos=scavenger || fail "scontrol update"
expect "Nodes" "itest-cpu-[0-1]" "$(show Nodes)"
expect "PriorityTier" 5 "$(show PriorityTier)"
expect "PreemptMode" REQUEUE "$(show PreemptMode)"
expect "OverSubscribe" FORCE:2 "$(show OverSubscribe)"
expect "MaxTime" "00:30:00" "$(show MaxTime)"
expect "sinfo's nodes" "itest-cpu-[0-1]" "$(sinfo -h -p cpu -o %N)"
# Placement follows the new node list: three nodes no longer fit (pending, as with -N 5 before).
big=$(sbatch --parsable -N 3 -p cpu -o /dev/null --wrap true) || fail "sbatch -N 3"
wait_for 30 bash -c "[ \"\$(squeue -h -j $big -o %r)\" = PartitionConfig ]" ||
  fail "the 3-node job: $(squeue -h -j "$big" -o '%T %r')"
scancel "$big"
id=$(sbatch --parsable -N 2 -p cpu -o /dev/null --wrap true) || fail "sbatch -N 2"
wait_state "$id" COMPLETED
expect "the job's nodes" "itest-cpu-[0-1]" "$(job_field "$id" NodeList)"

# AllowAccounts: root's default account (root) may not use it any more.
scontrol update PartitionName=cpu AllowAccounts=physics || fail "AllowAccounts"
out=$(sbatch -p cpu --wrap true 2>&1) && fail "accepted outside AllowAccounts: $out"
expect "sbatch outside AllowAccounts" \
  "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" "$out"
scontrol update PartitionName=cpu AllowAccounts=ALL || fail "AllowAccounts=ALL"

# Bad keys and values: exit 1, Slurm's texts, nothing changed.
out=$(scontrol update PartitionName=cpu Bogus=1 2>&1) && fail "Bogus accepted"
expect "unknown key" "scontrol: error: Update of this parameter is not supported: Bogus=1

scontrol: error: Request aborted
slurm_update error: No error" "$out"
out=$(scontrol update PartitionName=cpu PriorityTier=high 2>&1) && fail "PriorityTier=high accepted"
expect "bad value" \
  'slurm_update error: Invalid input: PriorityTier=high: "high" is not a non-negative integer' "$out"
out=$(scontrol update PartitionName=cpu Nodes=nosuch 2>&1) && fail "unknown node accepted"
expect "unknown node" "slurm_update error: Invalid node name specified" "$out"
expect "PriorityTier after the refusals" 5 "$(show PriorityTier)"

# A restart with the same spec keeps scontrol's changes.
"$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1
"$BIN/gantry" up --state-dir "$STATE" >"$WORK/up2.out" 2>&1 || { cat "$WORK/up2.out"; fail "up"; }
wait_for 30 nodes_idle || fail "nodes after the restart"
expect "Nodes after a restart" "itest-cpu-[0-1]" "$(show Nodes)"
expect "PreemptMode after a restart" REQUEUE "$(show PreemptMode)"
echo PASS
