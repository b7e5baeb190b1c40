#!/usr/bin/env bash
# gantry-restd (slurmrestd's v0.0.42 API) on a real local cluster, driven by
# tests/rest/rest_api_test.py as two unix users made here and as root: token and socket
# authentication, a slurmrestd workflow end to end, permissions, errors, accounting writes, and
# every answer validated against the real spec. Skipped (77) when not root.
# usage: rest_api.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
# Debian's python3, where scripts/setup installs python3-jsonschema and python3-jwt.
PY=/usr/bin/python3
$PY -c 'import jsonschema' 2>/dev/null || { echo "SKIP: python3-jsonschema missing"; exit 77; }
source "$(dirname "$0")/lib.sh" "$@"
u1=grest$$a
u2=grest$$b
useradd -M -d "$WORK" -s /bin/bash "$u1" || fail "useradd"
useradd -M -d "$WORK" -s /bin/bash "$u2" || { userdel "$u1"; fail "useradd"; }
trap 'rc=$?; userdel "$u1" 2>/dev/null; userdel "$u2" 2>/dev/null; (exit $rc); cleanup' EXIT
start_cluster
mkdir -p "$WORK/$u1" "$WORK/$u2"
chown "$u1" "$WORK/$u1"
chown "$u2" "$WORK/$u2"
sacctmgr -i add account ml >/dev/null || fail "add account"
sacctmgr -i add user "$u1" account=ml >/dev/null || fail "add user $u1"
sacctmgr -i add user "$u2" account=ml >/dev/null || fail "add user $u2"
$PY "$SRC/tests/rest/rest_api_test.py" "$STATE" "$WORK" "$u1" "$u2" || fail "rest_api_test.py"
# The daemon lived through all of it.
gantry status --state-dir "$STATE" | grep -q "^gantry-restd .*running" || fail "gantry-restd died"
echo PASS
