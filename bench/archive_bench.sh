#!/usr/bin/env bash
# Job history benchmark: `sacct -j N` (one job, the default fields) with N_ARCHIVE (1,000,000)
# ended jobs in Gantry's store (bench/archive_fill writes them as gantryd archives them), beside
# real Slurm's `sacct -j N` against slurmdbd with the jobs the anchor cluster's database holds
# (its size printed too: filling slurmdbd with a million jobs is not done here). Prints:
#   <name> <gantry> <slurm> <unit>
# usage: bench/archive_bench.sh [BIN_DIR]   (default build/bin; Slurm only as root, when the
# anchor's slurmdbd is running)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$(cd "${1:-$root/build/bin}" && pwd)
N=${N_ARCHIVE:-1000000}
work=$(mktemp -d /tmp/gantry-archive-XXXXXX)
state=$work/state
export GANTRY_HOME=$work/home
cleanup() {
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  "$root/tests/store/postgres.sh" stop "$work/postgres.settings" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
# median_ms CMD...: the median of 11 runs, in ms.
median_ms() {
  local ts=() a b
  for _ in $(seq 11); do
    a=$(now)
    "$@" >/dev/null 2>&1
    b=$(now)
    ts+=("$(python3 -c "print(round(($b - $a) * 1000, 2))")")
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n 6p
}

# run_backend NAME SPEC STORE: fills STORE (archive_fill's first argument) with N jobs behind a
# cluster made from SPEC and measures sacct; sets one_<NAME> and three_<NAME>.
run_backend() {
  local name=$1 spec=$2 store=$3 a b one three
  echo "# gantry ($name): a cluster whose store holds $N ended jobs" >&2
  "$BIN/gantry" up --spec "$spec" --state-dir "$state" >/dev/null 2>&1 ||
    { echo "gantry up failed" >&2; exit 1; }
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  a=$(now)
  "$BIN/archive_fill" "$store" "$N" >&2 || exit 1
  b=$(now)
  echo "# filled in $(python3 -c "print(round($b - $a, 1))") s" >&2
  "$BIN/gantry" up --spec "$spec" --state-dir "$state" >/dev/null 2>&1 ||
    { echo "gantry up failed" >&2; exit 1; }
  eval "$("$BIN/gantry" env --state-dir "$state")"
  "$BIN/sacct" -j $((N / 2)) >/dev/null 2>&1  # warm the caches once
  one=$(median_ms "$BIN/sacct" -j $((N / 2)))
  three=$(median_ms "$BIN/sacct" -j "7,$((N / 3)),$((N - 1))" -o jobid,state,totalcpu,maxrss)
  [ "$("$BIN/sacct" -nX -P -j $((N / 2)) -o jobid)" = "$((N / 2))" ] ||
    echo "# sacct missed the job ($name)" >&2
  "$BIN/gantry" down --state-dir "$state" >/dev/null 2>&1
  rm -rf "$state"
  printf -v "one_$name" %s "$one"
  printf -v "three_$name" %s "$three"
}

run_backend sqlite "$here/bench-cluster.json" "$state/state.db"
# The PostgreSQL store, on a throwaway server (tests/store/postgres.sh) when one can be started.
one_postgresql=n/a three_postgresql=n/a
pg_settings=$work/postgres.settings
if "$root/tests/store/postgres.sh" start "$pg_settings" >&2 && [ -s "$pg_settings" ]; then
  read -r host port user <<<"$(sed 's/host=\([^ ]*\) port=\([^ ]*\) user=\([^ ]*\)/\1 \2 \3/' \
    "$pg_settings")"
  createdb -h "$host" -p "$port" -U "$user" gantry_bench
  sed "s|\"slurm_spec\": {|\"slurm_spec\": {\"config\": {\"AccountingStorageType\": \"accounting_storage/postgresql\", \"AccountingStorageHost\": \"$host\", \"AccountingStoragePort\": \"$port\", \"AccountingStorageUser\": \"$user\", \"AccountingStorageParameters\": \"dbname=gantry_bench\"},|" \
    "$here/bench-cluster.json" >"$work/postgres-spec.json"
  run_backend postgresql "$work/postgres-spec.json" \
    "postgresql:$(cat "$pg_settings") dbname=gantry_bench"
  "$root/tests/store/postgres.sh" stop "$pg_settings"
fi

s_one=n/a s_three=n/a s_jobs=n/a
if [ "$(id -u)" = 0 ] && pgrep -x slurmdbd >/dev/null; then
  # shellcheck disable=SC1091
  . "$root/../shared/anchors/slurm/env.sh"
  export SLURM_CONF=$SLURM_ETC/slurm.conf
  unset GANTRY_CONF
  ids=$(/usr/bin/sacct -a -X -n -P -o jobid -S 2020-01-01 2>/dev/null | grep -E '^[0-9]+$')
  s_jobs=$(echo "$ids" | grep -c .)
  if [ "$s_jobs" -gt 3 ]; then
    mid=$(echo "$ids" | sed -n "$((s_jobs / 2))p")
    three=$(echo "$ids" | sed -n "1p;$((s_jobs / 3))p;$((s_jobs - 1))p" | paste -sd,)
    s_one=$(median_ms /usr/bin/sacct -j "$mid")
    s_three=$(median_ms /usr/bin/sacct -j "$three" -o jobid,state,totalcpu,maxrss)
  fi
fi
echo "# $(date -u +%FT%TZ) $(nproc) cores; gantry history $N jobs, slurmdbd $s_jobs jobs"
printf '%-22s %12s %12s %12s %s\n' figure gantry gantry-pg slurm unit
printf '%-22s %12s %12s %12s %s\n' sacct_one_job "$one_sqlite" "$one_postgresql" "$s_one" ms
printf '%-22s %12s %12s %12s %s\n' sacct_three_jobs "$three_sqlite" "$three_postgresql" \
  "$s_three" ms
