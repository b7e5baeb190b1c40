#!/usr/bin/env bash
# `gantry serve` (the clusters over HTTP in the Vertex AI API's shape), driven by
# tests/serve/serve_test.py as root and a second unix user: a pipeline that creates a cluster,
# submits through :callSlurmRestApi and deletes it; bad specs, paging, PATCH, fault reports,
# permissions; then the server is restarted and still answers for its operations.
# Skipped (77) when not root.
# usage: serve_api.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
source "$(dirname "$0")/lib.sh" "$@"
prepare_spec
user=gserve$$
useradd -M -d "$WORK" -s /bin/bash "$user" || fail "useradd"
mkdir -p "$WORK/$user" && chown "$user" "$WORK/$user"
serve_pid=
start_serve() {
  gantry serve --listen 127.0.0.1:0 --url-file "$WORK/serve.url" >>"$WORK/serve.log" 2>&1 &
  serve_pid=$!
  EXTRA_PIDS="${EXTRA_PIDS:-} $serve_pid"
  wait_for 30 test -s "$WORK/serve.url" || { cat "$WORK/serve.log"; fail "gantry serve did not start"; }
}
stop_clusters() {
  for spec in "$GANTRY_HOME"/*/spec.json; do
    [ -e "$spec" ] && gantry down --state-dir "$(dirname "$spec")" >/dev/null 2>&1
  done
  return 0
}
trap 'rc=$?; stop_clusters; userdel "$user" 2>/dev/null; (exit $rc); cleanup' EXIT
start_serve
/usr/bin/python3 "$SRC/tests/serve/serve_test.py" "$WORK" "$SPEC" "$user" ||
  { tail -n 30 "$WORK/serve.log"; fail "serve_test.py"; }

# Operations outlive the server: stop it, start it again, ask for one it ran.
op=$(ls "$GANTRY_HOME/.serve/operations" | head -1)
[ -n "$op" ] || fail "no operation was kept on disk"
name=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' \
       "$GANTRY_HOME/.serve/operations/$op")
kill -TERM "$serve_pid" && wait "$serve_pid" || fail "gantry serve did not stop on SIGTERM"
rm -f "$WORK/serve.url"
start_serve
answer=$(curl -s --unix-socket "$GANTRY_HOME/serve.sock" "http://localhost/v1/$name")
echo "$answer" | grep -q '"done": true' || fail "after a restart, $name: $answer"
# Another user on the unix socket is who the kernel says.
answer=$(runuser -u "$user" -- curl -s --unix-socket "$GANTRY_HOME/serve.sock" -X POST \
         "http://localhost/v1beta1/projects/p/locations/l/modelDevelopmentClusters?model_development_cluster_id=x1" -d '{}')
echo "$answer" | grep -q '"PERMISSION_DENIED"' || fail "a plain user on the socket: $answer"
echo PASS
