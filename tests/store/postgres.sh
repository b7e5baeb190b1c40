#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the store tests.
#   postgres.sh start SETTINGS_FILE   initdb + start in a fresh temp dir; writes the connection
#                                     settings ("host=127.0.0.1 port=N user=gantry") to the file
#   postgres.sh stop SETTINGS_FILE    stops it and removes its data, keeping its log in
#                                     SETTINGS_FILE.log
# Without a PostgreSQL server installed, start writes no settings (the tests then skip the
# PostgreSQL backend) and exits 0. As root, the server runs as the `postgres` user.
set -euo pipefail
cmd=${1:?start|stop} settings=${2:?settings file}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
run=()
[ "$(id -u)" = 0 ] && run=(runuser -u postgres --)

case $cmd in
start)
  rm -f "$settings"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres.sh: no PostgreSQL server installed; its store tests will be skipped"
    exit 0
  fi
  dir=$(mktemp -d /tmp/gantry-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  "${run[@]}" "$bin/initdb" -D "$dir/data" -A trust -U gantry --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log"; exit 1; }
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    if "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir" \
      start >/dev/null; then
      echo "$dir" >"$settings.dir"
      echo "host=127.0.0.1 port=$port user=gantry" >"$settings"
      exit 0
    fi
  done
  cat "$dir/server.log"
  exit 1
  ;;
stop)
  if [ -f "$settings.dir" ]; then
    dir=$(cat "$settings.dir")
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    cp "$dir/server.log" "$settings.log" 2>/dev/null || true
    rm -rf "$dir" "$settings.dir"
  fi
  rm -f "$settings"
  ;;
*)
  echo "usage: postgres.sh start|stop SETTINGS_FILE" >&2
  exit 2
  ;;
esac
