#!/usr/bin/env bash
# gantry sim's fidelity: ~200 sleep jobs of known length (mixed sizes, two users and root, nice
# values, a preempting partition, job arrays, dependencies) run on a real local cluster (eight
# 8-CPU nodes); then `gantry sim --from-state-dir` replays the cluster's own history, its
# scheduling cycles where the controller ran them (its pass log). Every job must be in the
# replay and start within 2 s of its real start, on its real nodes.
# usage: sim_fidelity.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/fidelity.json"
u1=gsim$$a
u2=gsim$$b
useradd -M -d "$WORK" -s /bin/bash "$u1" || fail "useradd"
useradd -M -d "$WORK" -s /bin/bash "$u2" || { userdel "$u1"; fail "useradd"; }
trap 'rc=$?; userdel "$u1" 2>/dev/null; userdel "$u2" 2>/dev/null; (exit $rc); cleanup' EXIT
start_cluster
mkdir -p "$WORK/$u1" "$WORK/$u2" "$WORK/root"
chown "$u1" "$WORK/$u1"
chown "$u2" "$WORK/$u2"

# submit USER SBATCH_ARGS...: the job id.
submit() {
  local user=$1
  shift
  if [ "$user" = root ]; then
    (cd "$WORK/root" && sbatch --parsable -o /dev/null "$@")
  else
    (cd "$WORK/$user" && runuser -u "$user" -- env PATH="$PATH" GANTRY_CONF="$GANTRY_CONF" \
      sbatch --parsable -o /dev/null "$@")
  fi
}

# A fixed pseudo-random sequence (no $RANDOM: the same jobs every run). next N sets r to a
# number below N (in this shell: a command substitution would not move the sequence on).
seed=7
next() {
  seed=$(((seed * 1103515245 + 12345) % 2147483648))
  r=$((seed / 65536 % $1))
}

# Jobs start while the burst of submissions still comes (each pass sees some of them, which
# whole-second records alone cannot tell: the pass log does); the preempting ones become
# eligible together, 40 s in, while the cluster is full.
begin=$(($(date +%s) + 40))
at() { date -d "@$1" +%Y-%m-%dT%H:%M:%S; }
users=(root "$u1" "$u2")
ids=()
n=0
while [ "$n" -lt 200 ]; do
  next 3
  user=${users[$r]}
  next 8
  secs=$((5 + r))
  next 20
  kind=$r
  next 8
  size=$((1 + r))
  args=(-t 5)
  case $kind in
    0) args+=(--begin="$(at "$begin")" -p hi -n $((4 + size / 2))) ;;  # preempts
    1) args+=(-a 0-3%2 -n $((1 + size / 2))) ;;                      # an array
    2) [ "${#ids[@]}" -gt 5 ] && args+=(-d "afterok:${ids[$((${#ids[@]} - 3))]}") ;;
    3) args+=(-N 2 -n $((2 * size))) ;;                              # two nodes
    *) args+=(-n "$size" --nice=$((10 * (size % 3)))) ;;
  esac
  id=$(submit "$user" "${args[@]}" --wrap "sleep $secs") || fail "sbatch ${args[*]}"
  ids+=("$id")
  n=$((n + 1))
done
echo "sim_fidelity: 200 jobs submitted; waiting for them to end"
all_done() { [ -z "$(squeue -h -o %i)" ]; }
wait_for 420 all_done || { squeue; fail "jobs still queued"; }
sacct -X -n -P -o JobID,Submit,Start,NodeList,State --starttime=2000-01-01 >"$WORK/real.txt"
"$BIN/gantry" down --state-dir "$STATE" >/dev/null || fail "gantry down"
# GANTRY_KEEP_HISTORY=DIR keeps the cluster's state and what sacct said, to replay by hand.
if [ -n "${GANTRY_KEEP_HISTORY:-}" ]; then
  rm -rf "$GANTRY_KEEP_HISTORY" && cp -r "$STATE" "$GANTRY_KEEP_HISTORY" &&
    cp "$WORK/real.txt" "$GANTRY_KEEP_HISTORY/"
fi
"$BIN/gantry" sim --from-state-dir "$STATE" --out "$WORK/sim" >"$WORK/sim.out" 2>&1 ||
  { cat "$WORK/sim.out"; fail "gantry sim"; }
cat "$WORK/sim.out"

# Compare: real start (from the first submission) against the simulated one, per job id.
python3 - "$WORK/real.txt" "$WORK/sim/jobs.csv" <<'PY' || fail "the replay disagrees with the cluster"
import csv, sys, datetime
real = {}
for line in open(sys.argv[1]):
    job, submit, start, nodes, state = line.rstrip("\n").split("|")
    t = lambda s: datetime.datetime.fromisoformat(s).timestamp()
    real[job] = (t(submit), t(start), nodes, state)
first = min(v[0] for v in real.values())
# The replay's rows by the cluster's ids: a job by its id (trace_id), an array task by its
# array's id and its task (the replay's own ids may differ: tasks take ids as they start).
sim = {}
for row in csv.DictReader(open(sys.argv[2])):
    task = row["job_id"].partition("_")[2]
    sim[row["trace_id"] + ("_" + task if task else "")] = row
bad, agree, compared = [], 0, 0
for job, (submit, start, nodes, state) in sorted(real.items()):
    row = sim.get(job)
    if row is None:
        bad.append(f"{job}: not in the replay")
        continue
    compared += 1
    same = abs(int(row["start"]) - (start - first)) <= 2 and row["node_list"] == nodes
    agree += same
    if not same:
        bad.append(f"{job}: real start +{start - first:.0f}s on {nodes}, replay +{row['start']}s "
                   f"on {row['node_list']}")
print(f"sim_fidelity: {compared} jobs compared; {agree} start within 2 s on the same nodes")
for b in bad:
    print("  " + b)
sys.exit(1 if bad or compared < 200 else 0)
PY
echo PASS
