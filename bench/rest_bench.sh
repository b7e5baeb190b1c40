#!/usr/bin/env bash
# GET /slurm/.../jobs: gantry-restd with a queue of N_QUEUE (100000) held jobs beside Debian's
# slurmrestd 22.05 (API v0.0.38, its newest) on the anchor Slurm cluster with N_SLURM_QUEUE
# (10000), in the same run. Prints, per server, the median time of 5 listings (after one
# unmeasured) and the jobs listed per second; the ratio is Gantry's jobs/s over Slurm's.
#
# usage: bench/rest_bench.sh [BIN_DIR]    (as root; installs slurmrestd if missing)
# Sizes: N_QUEUE N_SLURM_QUEUE WITH_SLURM (auto|0|1)
# Both are read over a unix socket by their own user (local auth: no token to check), and
# Gantry also over HTTPS with a token (TLS and the token check on every call included).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$(cd "${1:-$root/build/bin}" && pwd)
N_QUEUE=${N_QUEUE:-100000}
N_SLURM_QUEUE=${N_SLURM_QUEUE:-10000}
WITH_SLURM=${WITH_SLURM:-auto}
anchor=$root/../shared/anchors/slurm
. "$here/anchor.sh"

work=$(mktemp -d /tmp/gantry-restbench-XXXXXX)
chmod 755 "$work"
state=$work/state
srpid=
cleanup() {
  [ -n "$srpid" ] && kill "$srpid" 2>/dev/null
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
calc() { python3 -c "print(round($1, 2))"; }

# median_s CMD...: the median of 5 runs (after one unmeasured), in seconds.
median_s() {
  local ts=() a b
  "$@" >/dev/null 2>&1
  for _ in 1 2 3 4 5; do
    a=$(now)
    "$@" >/dev/null 2>&1
    b=$(now)
    ts+=("$(calc "$b - $a")")
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n 3p
}
# count_jobs CMD...: how many jobs the listing holds (checks that it is whole).
count_jobs() { "$@" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }

echo "# gantry: a queue of $N_QUEUE held jobs" >&2
"$BIN/gantry" up --spec "$here/bench-cluster.json" --state-dir "$state" >/dev/null 2>&1 ||
  { echo "gantry up failed" >&2; exit 1; }
eval "$("$BIN/gantry" env --state-dir "$state")"
"$BIN/bulk_submit" "$state/run/gantryd.sock" "$N_QUEUE" 8 >&2 || exit 1
sleep 3
sock=$state/run/restd.sock
g_unix() { curl -sf --unix-socket "$sock" http://localhost/slurm/v0.0.42/jobs; }
token=$("$BIN/scontrol" token lifespan=3600 | cut -d= -f2)
g_https() {
  curl -sf --cacert "$GANTRY_REST_CA" -H "X-SLURM-USER-TOKEN: $token" \
    "$GANTRY_REST_URL/slurm/v0.0.42/jobs"
}
g_count=$(count_jobs g_unix)
[ "$g_count" = "$N_QUEUE" ] || echo "# gantry listed $g_count jobs, not $N_QUEUE" >&2
g_unix_s=$(median_s g_unix)
g_https_s=$(median_s g_https)
g_bytes=$(g_unix | wc -c)
"$BIN/gantry" down --state-dir "$state" >/dev/null

s_unix_s=
if start_anchor; then
  command -v slurmrestd >/dev/null || [ -x /usr/sbin/slurmrestd ] ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmrestd >/dev/null 2>&1
  user=$(echo "$TEST_USERS" | cut -d' ' -f1)
  mkdir -p "$work/slurm" && chown "$user" "$work/slurm"
  echo "# slurm: a queue of $N_SLURM_QUEUE held jobs ($user's)" >&2
  /usr/bin/scancel -u "$user" >/dev/null 2>&1
  for k in 1 2 3 4; do
    (for ((i = 0; i < N_SLURM_QUEUE / 4; i++)); do
      runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" /usr/bin/sbatch -H -J bench-rest \
        -o /dev/null -D "$work/slurm" --wrap=true >/dev/null 2>&1
    done) &
  done
  wait
  runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmrestd -a rest_auth/local \
    "unix:$work/slurm/slurmrestd.sock" >"$work/slurmrestd.log" 2>&1 &
  srpid=$!
  for _ in $(seq 50); do [ -S "$work/slurm/slurmrestd.sock" ] && break; sleep 0.2; done
  s_unix() {
    runuser -u "$user" -- curl -sf --unix-socket "$work/slurm/slurmrestd.sock" \
      http://localhost/slurm/v0.0.38/jobs
  }
  s_count=$(count_jobs s_unix)
  echo "# slurmrestd listed $s_count jobs" >&2
  s_unix_s=$(median_s s_unix)
  s_bytes=$(s_unix | wc -c)
  kill "$srpid"
  srpid=
  /usr/bin/scancel -n bench-rest >/dev/null 2>&1
fi

echo "# $(date -u +%FT%TZ) $(nproc) cores; gantry $N_QUEUE jobs, slurm ${s_count:-0} jobs"
printf '%-28s %12s %12s %s\n' figure gantry slurm ratio
g_rate=$(calc "$N_QUEUE / $g_unix_s")
if [ -n "$s_unix_s" ]; then
  s_rate=$(calc "$s_count / $s_unix_s")
  printf '%-28s %12s %12s %s\n' "jobs_list_unix_s" "$g_unix_s" "$s_unix_s" ""
  printf '%-28s %12s %12s %sx\n' "jobs_per_s_unix" "$g_rate" "$s_rate" "$(calc "$g_rate / $s_rate")"
  printf '%-28s %12s %12s %s\n' "bytes_per_job" "$(calc "$g_bytes / $N_QUEUE")" \
    "$(calc "$s_bytes / $s_count")" ""
else
  printf '%-28s %12s %12s %s\n' "jobs_list_unix_s" "$g_unix_s" n/a ""
  printf '%-28s %12s %12s %s\n' "jobs_per_s_unix" "$g_rate" n/a ""
fi
printf '%-28s %12s %12s %s\n' "jobs_list_https_token_s" "$g_https_s" n/a ""
printf '%-28s %12s %12s %s\n' "jobs_per_s_https_token" "$(calc "$N_QUEUE / $g_https_s")" n/a ""
