#!/usr/bin/env bash
# H3: every local user could read state.db (each job's script and exported environment), spec.json
# (the database password) and the logs. Now bob reads none of them, and still uses the cluster.
# usage: h3_private_state.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
id=$(as "$ALICE" env MY_TOKEN=s3cr3t-$$ sbatch --parsable -H --wrap 'echo hi') || fail "sbatch"
gantry down --state-dir "$STATE" >/dev/null  # the WAL checkpointed into state.db too
gantry up --state-dir "$STATE" >/dev/null || fail "gantry up"
wait_for 30 nodes_idle || fail "nodes"
ls -la "$STATE" "$STATE/run"
for f in "$STATE"/state.db* "$STATE/spec.json" "$STATE/cluster.key" "$STATE"/logs/*.log; do
  as "$BOB" cat "$f" >/dev/null 2>&1 && fail "$BOB could read $f"
done
as "$BOB" ls "$STATE" >/dev/null 2>&1 && fail "$BOB could list the state dir"
# What the grep of the review found, done as bob over everything he can reach.
as "$BOB" grep -rqs "s3cr3t-$$" "$STATE" && fail "$BOB found alice's token under $STATE"
grep -rqs "s3cr3t-$$" "$STATE"/state.db* || fail "the token is not in the store at all (test broken)"
# Bob still reaches the cluster through the public run dir.
as "$BOB" squeue -h -o %i | grep -qx "$id" || fail "$BOB cannot list jobs"
as "$BOB" sbatch --parsable --wrap true >/dev/null || fail "$BOB cannot submit"
# gantryd made its own files private too (umask), and the sockets public.
for f in "$STATE"/state.db*; do
  [ "$(stat -c %a "$f")" = 600 ] || fail "$f has mode $(stat -c %a "$f")"
done
[ "$(stat -c %a "$STATE/run/commands.sock")" = 666 ] || fail "commands.sock mode"
echo PASS
