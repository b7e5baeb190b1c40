#!/usr/bin/env bash
# H5: one 13-byte GetJobs frame with shard=2^32-1 ended gantryd (uint32 wrap, uncaught
# std::length_error). Now bob gets InvalidArgument naming the field, and gantryd lives on.
# usage: h5_bad_shard.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
as "$ALICE" sbatch -H --wrap true >/dev/null || fail "sbatch"
sock=$STATE/run/commands.sock
# length 9 | method 5 (GetJobs) | field 8 varint 0xffffffff | field 9 varint 2
out=$(as "$BOB" python3 "$WORK/frame.py" "$sock" 090000000540ffffffff0f4802)
echo "reply: $out"
expect "reply" "1 GetJobsRequest.shard 4294967295: must be below shards (2)" "$out"
expect_alive
# Every other shard number past the end, and a well-formed split, still answer.
out=$(as "$BOB" python3 "$WORK/frame.py" "$sock" 050000000540014802)
case "$out" in 0\ *) ;; *) fail "shard 2 of 2: $out" ;; esac
expect_alive
echo PASS
