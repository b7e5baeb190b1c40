#!/usr/bin/env bash
# The web dashboard (gantry-restd's /ui) in a real browser: Debian's chromium, chromium-driver
# and python3-selenium drive tests/web/dashboard_test.py against the demo cluster's spec (CPU and
# GPU pools) as two unix users made here and as root. Screenshots go to BUILD_DIR/screenshots.
# Skipped (77) when not root; scripts/setup installs the browser, so its absence is a failure.
# usage: dashboard.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
PY=/usr/bin/python3
for need in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$need" ] || { echo "FAIL: $need missing (scripts/setup installs it)"; exit 1; }
done
$PY -c 'import selenium' 2>/dev/null || { echo "FAIL: python3-selenium missing (scripts/setup)"; exit 1; }
source "$(dirname "$0")/lib.sh" "$1" "$2" "$(cd "$2" && pwd)/examples/demo.json"
SHOTS=$(cd "$BIN/.." && pwd)/screenshots
two_users gweb
start_cluster
users_in_account ml "$u1" "$u2"
timeout 240 $PY "$SRC/tests/web/dashboard_test.py" "$STATE" "$WORK" "$u1" "$u2" "$SHOTS" ||
  fail "dashboard_test.py"
gantry status --state-dir "$STATE" | grep -q "^gantry-restd .*running" || fail "gantry-restd died"
echo PASS
