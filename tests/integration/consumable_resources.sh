#!/usr/bin/env bash
# Consumable resources (select/cons_tres) on a real cluster of two 8-GPU nodes: jobs that ask
# for part of a node share it (CPUs, memory and GPUs counted), the node shows MIXED and its
# allocated CPUs, GPU and CPU totals; a job that needs more than is left goes to the other node;
# --exclusive and an OverSubscribe=EXCLUSIVE partition take whole nodes only.
# usage: consumable_resources.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/shared.json"
start_cluster

node_of() { squeue -h -j "$1" -o %N; }
node_field() { scontrol show node "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
first=$(sinfo -h -N -p gpu -o %N | head -1)
second=$(sinfo -h -N -p gpu -o %N | tail -1)
cpus=$(sinfo -h -N -p gpu -o %c | head -1 | tr -d ' ')

a=$(sbatch --parsable -p gpu -n 4 --mem=1000 --gres=gpu:2 -o /dev/null --wrap 'sleep 600') ||
  fail "sbatch a"
b=$(sbatch --parsable -p gpu -n 8 --mem-per-cpu=100 --gres=gpu:6 -o /dev/null \
  --wrap 'sleep 600') || fail "sbatch b"
wait_state "$a" RUNNING 30
wait_state "$b" RUNNING 30
expect "a's node" "$first" "$(node_of "$a")"
expect "b shares it" "$first" "$(node_of "$b")"
expect "a's CPUs" "4" "$(squeue -h -j "$a" -o %C)"
expect "CPUAlloc" "12" "$(node_field "$first" CPUAlloc)"
expect "AllocMem" "1800" "$(node_field "$first" AllocMem)"
expect "node state" "mix" "$(sinfo -h -n "$first" -p gpu -o %t)"
expect "AllocTRES" "cpu=12,mem=1800M,gres/gpu=8" "$(node_field "$first" AllocTRES)"

# All 8 GPUs of the first node are taken: a 1-GPU job goes to the second.
c=$(sbatch --parsable -p gpu -n 1 --gres=gpu:1 -o /dev/null --wrap 'sleep 600') || fail "sbatch c"
wait_state "$c" RUNNING 30
expect "c's node" "$second" "$(node_of "$c")"
# A job without GPUs still fits next to a and b.
d=$(sbatch --parsable -p gpu -n 2 -o /dev/null --wrap 'sleep 600') || fail "sbatch d"
wait_state "$d" RUNNING 30
expect "d's node" "$first" "$(node_of "$d")"

# Whole nodes: --exclusive, and any job of an OverSubscribe=EXCLUSIVE partition, wait for an
# empty node; once the second node is empty the exclusive job gets it, all its CPUs.
e=$(sbatch --parsable -p gpu --exclusive -n 1 -o /dev/null --wrap 'sleep 600') || fail "sbatch e"
w=$(sbatch --parsable -p whole -n 1 -o /dev/null --wrap 'sleep 600') || fail "sbatch w"
sleep 2
expect "exclusive waits" "PENDING" "$(job_state "$e")"
expect "whole waits" "PENDING" "$(job_state "$w")"
scancel "$c"
wait_state "$e" RUNNING 30
expect "e's node" "$second" "$(node_of "$e")"
expect "e's CPUs" "$cpus" "$(squeue -h -j "$e" -o %C)"
expect "second node" "alloc" "$(sinfo -h -n "$second" -p gpu -o %t)"
expect "whole still waits" "PENDING" "$(job_state "$w")"
scancel "$a" "$b" "$d"
wait_state "$w" RUNNING 30
expect "w's CPUs" "$cpus" "$(squeue -h -j "$w" -o %C)"
scancel "$e" "$w"
echo "consumable_resources: ok"
