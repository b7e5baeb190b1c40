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
two_users grest
start_cluster
users_in_account ml "$u1" "$u2"
$PY "$SRC/tests/rest/rest_api_test.py" "$STATE" "$WORK" "$u1" "$u2" || fail "rest_api_test.py"
# The daemon lived through all of it.
gantry status --state-dir "$STATE" | grep -q "^gantry-restd .*running" || fail "gantry-restd died"
echo PASS
