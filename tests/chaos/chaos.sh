#!/usr/bin/env bash
# The chaos test: 4 clients submit, cancel and list jobs for CHAOS seconds while the test, one
# fault at a time in a random order (seeded; the seed is printed, CHAOS_SEED=N repeats it):
#   - kills gantryd with -9 and starts it again on the same port (sometimes on a full disk),
#   - kills an agent with -9 and starts it again on the same spool,
#   - cuts an agent's network for longer than its lease (SlurmdTimeout + KillWait + 3 s + more),
#   - steps the daemons' wall clock by up to an hour either way (GANTRY_CLOCK_OFFSET_FILE: the
#     machine's clock is never touched) and checks that the step alone takes no node down,
#   - fills the state dir's disk (a 160 MiB tmpfs of the test's own) to below gantryd's 64 MiB
#     floor: submissions are refused with the reason, which counts as refused, not as lost;
# while a fifth client feeds gantryd's command socket malformed and mutated frames (read-only
# methods and unknown tags only; inputs from fuzz/corpus/). Then, with every fault undone and
# the queue drained (no job stuck configuring, running or completing): every acknowledged job
# exists exactly once (under the name it was submitted with, so a reused id is caught), no id is
# listed twice, no job ran two copies at once (each run takes a lock named after its job), no
# job process outlived its job, every daemon came back (none died on its own) and every node is
# idle. Prints the figures, then PASS.
#
# Loopback and the test's own network namespaces only (tests/integration/hosts.sh); needs root
# (skipped, 77, otherwise, or where a tmpfs or namespaces cannot be made).
#
# usage: chaos.sh BIN_DIR SOURCE_ROOT [SECONDS]
#   ctest runs the short mode (SECONDS from tests/CMakeLists.txt); the long mode by hand:
#   CHAOS_SECONDS=900 bash tests/chaos/chaos.sh build/bin . (CHAOS_SECONDS wins over SECONDS)
#   CHAOS_SEED=N: the faults' and clients' random choices; CHAOS_KEEP=DIR: $WORK is copied there
#   at the end (logs, runs.log, the clients' records).
source "$(dirname "$0")/../integration/lib.sh" "$1" "$2" "$2/tests/chaos/specs/chaos.json"
source "$(dirname "$0")/../integration/hosts.sh"
CHAOS=${CHAOS_SECONDS:-${3:-100}}
SEED=${CHAOS_SEED:-$RANDOM}
RANDOM=$SEED
NODES=(chaos-cpu-0 chaos-cpu-1 chaos-cpu-2)  # host i+1 runs NODES[i]
KILL_WAIT=2 SLURMD_TIMEOUT=6 HEARTBEAT=2      # as in specs/chaos.json (heartbeat: timeout / 3)
TAG=chaosjob-${WORK##*-}                      # in every job's sleep's command line
export GANTRY_CLOCK_OFFSET_FILE=$WORK/clock-offset
mkdir -p "$WORK/locks" "$WORK/clients" "$STATE"
: >"$WORK/runs.log"
: >"$WORK/dups"
echo 0 >"$GANTRY_CLOCK_OFFSET_FILE"

# The state dir is a tmpfs of the test's own, to fill. It is unmounted at exit, after the
# daemons are gone and before lib.sh's cleanup removes $WORK.
mount -t tmpfs -o size=160m gantry-chaos "$STATE" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
CLIENT_PIDS=()
chaos_teardown() {
  local rc=$? p
  touch "$WORK/stop"
  for p in "${CLIENT_PIDS[@]}" ${GANTRYD_PID:-}; do
    my_child "$p" && kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  for i in "${!NODES[@]}"; do p=$(agent_pid $((i + 1))) && kill -9 "$p" 2>/dev/null; done
  prune_pids
  if [ "$rc" != 0 ]; then
    for f in "$WORK"/gantryd.log "$WORK"/agent-*.log; do
      [ -f "$f" ] && { echo "---- tail of $f"; grep -v '^\[libprotobuf' "$f" | tail -n 20; }
    done
  fi
  if [ -n "${CHAOS_KEEP:-}" ]; then
    mkdir -p "$CHAOS_KEEP" && cp -a "$WORK/." "$CHAOS_KEEP/" 2>/dev/null
    echo "kept $WORK in $CHAOS_KEEP"
  fi
  umount -l "$STATE" 2>/dev/null
  (exit "$rc")
  hosts_teardown
}
trap chaos_teardown EXIT

# Is PID a child of this shell (not a pid reused since)? lib.sh's cleanup kills $EXTRA_PIDS with
# -9: keep only this shell's live children there (pids are reused within a long run).
my_child() { [ -n "$1" ] && [ "$(sed 's/.*) . \([0-9]*\) .*/\1/' "/proc/$1/stat" 2>/dev/null)" = $$ ]; }
prune_pids() {
  local p kept=
  for p in ${EXTRA_PIDS:-}; do my_child "$p" && kept="$kept $p"; done
  EXTRA_PIDS=$kept
}

# ---- the daemons

# gantryd again on the port the agents know, with what it logged before kept.
gantryd_up() {
  local try
  rm -f "$STATE/run/gantryd.addr"
  for try in 1 2 3 4 5; do
    gantryd --state-dir "$STATE" --listen "0.0.0.0:$CTLD_PORT" >>"$WORK/gantryd.log" 2>&1 &
    GANTRYD_PID=$!
    EXTRA_PIDS="$EXTRA_PIDS $GANTRYD_PID"
    wait_for 30 gantryd_serving && return 0
    kill -0 "$GANTRYD_PID" 2>/dev/null && break  # running but not serving: no use trying again
    echo "gantryd did not start (try $try): $(tail -n 2 "$WORK/gantryd.log")"
    sleep 1
  done
  fail "gantryd did not come back on port $CTLD_PORT: $(tail -n 5 "$WORK/gantryd.log")"
}
gantryd_serving() {
  kill -0 "$GANTRYD_PID" 2>/dev/null && [ -s "$STATE/run/gantryd.addr" ] && sinfo -h >/dev/null 2>&1
}
gantryd_alive() {
  kill -0 "$GANTRYD_PID" 2>/dev/null ||
    fail "gantryd (pid $GANTRYD_PID) died on its own: $(tail -n 5 "$WORK/gantryd.log")"
}

# Host I's agent (node NODES[I-1]): its pid, and starting it (its earlier log kept).
agent_pid() { pgrep -o -f -- "gantry-agent --node .* --spool $WORK/spool-$1 "; }
agent_up() {
  local i=$1
  [ -f "$WORK/agent-$i.log" ] && cat "$WORK/agent-$i.log" >>"$WORK/agent-$i.before.log"
  start_host_agent "$i" "${NODES[$((i - 1))]}"
  wait_for 10 agent_pid "$i" >/dev/null || fail "agent $i did not start: $(cat "$WORK/agent-$i.log")"
  AGENT_PID[$i]=$(agent_pid "$i")
}
agents_alive() {
  local i
  for i in "${!NODES[@]}"; do
    i=$((i + 1))
    [ "$(agent_pid "$i")" = "${AGENT_PID[$i]}" ] ||
      fail "agent $i (pid ${AGENT_PID[$i]}) died on its own: $(tail -n 5 "$WORK/agent-$i.log")"
  done
}

# A node that is up and responding: not down, drained or failing, and no '*' (not responding).
node_ok() { sinfo -h -n "$1" -N -o '%t' 2>/dev/null | grep -qvE 'down|drain|drng|fail|\*|^$'; }
all_nodes_ok() {
  local n
  for n in "${NODES[@]}"; do node_ok "$n" || return 1; done
}
nodes_not_ok() { sinfo -h -N -o '%N %t' 2>/dev/null | grep -E 'down|drain|drng|fail|\*'; }

set_clock_offset() {
  echo "$1" >"$GANTRY_CLOCK_OFFSET_FILE.new" && mv "$GANTRY_CLOCK_OFFSET_FILE.new" "$GANTRY_CLOCK_OFFSET_FILE"
}
free_mib() { df -m --output=avail "$STATE" | tail -1 | tr -d ' '; }

# ---- the faults (each undoes itself before it returns)

F_GANTRYD=0 F_AGENT=0 F_CUT=0 F_CLOCK=0 F_DISK=0 F_FULL_RESTART=0
log() { echo "[$(printf '%4d' $((SECONDS - T0)))s] $*"; }

kill_gantryd() {
  kill -9 "$GANTRYD_PID"
  wait "$GANTRYD_PID" 2>/dev/null
  prune_pids
}

fault_gantryd() {
  local down=$((RANDOM % 3))
  log "kill -9 gantryd (pid $GANTRYD_PID), back after ${down} s"
  kill_gantryd
  sleep "$down"
  gantryd_up
  F_GANTRYD=$((F_GANTRYD + 1))
}

fault_agent() {
  local i=$((RANDOM % ${#NODES[@]} + 1)) down=$((RANDOM % 3))
  local node=${NODES[$((i - 1))]}
  log "kill -9 the agent of $node (pid ${AGENT_PID[$i]}), back after ${down} s"
  kill -9 "${AGENT_PID[$i]}"
  sleep "$down"
  agent_up "$i"
  prune_pids
  wait_for 40 node_ok "$node" || fail "$node did not come back after its agent restarted: $(nodes_not_ok)"
  F_AGENT=$((F_AGENT + 1))
}

fault_cut() {
  local i=$((RANDOM % ${#NODES[@]} + 1))
  local node=${NODES[$((i - 1))]}
  # Past the agent's lease and past the controller's requeue (SlurmdTimeout + KillWait + 3 s).
  local hold=$((SLURMD_TIMEOUT + KILL_WAIT + 3 + 2 + RANDOM % 4))
  log "cut $node's network for $hold s"
  host_link "$i" down
  sleep "$hold"
  host_link "$i" up
  wait_for 40 node_ok "$node" || fail "$node did not come back after its network returned: $(nodes_not_ok)"
  F_CUT=$((F_CUT + 1))
}

# Steps the wall clock with no other fault going on; for 2 heartbeats and more after the step,
# and again after the step back, no node may go down or stop responding.
fault_clock() {
  local step=$(((RANDOM % 3600 + 1) * (RANDOM % 2 * 2 - 1))) offset bad
  wait_for 40 all_nodes_ok || fail "nodes not back before a clock step: $(nodes_not_ok)"
  log "step the daemons' wall clock by $step s, then back"
  for offset in "$step" 0; do
    set_clock_offset "$offset"
    local until=$((SECONDS + 2 * HEARTBEAT + 3))
    while [ $SECONDS -lt $until ]; do
      bad=$(nodes_not_ok)
      [ -z "$bad" ] || fail "a wall-clock step of $offset s alone took nodes down: $bad"
      sleep 0.5
    done
  done
  F_CLOCK=$((F_CLOCK + 1))
}

# Below 64 MiB free gantryd refuses new work; with the restart, the disk is filled completely
# and gantryd killed and started on it (its 32 MiB reserve is freed).
fault_disk() {
  local restart=$1 lines free
  log "fill the state dir's disk to 40 MiB free$([ "$restart" = 1 ] && echo ', then full, with a gantryd restart')"
  free=$(free_mib)
  [ "$free" -gt 40 ] || fail "the state dir has only $free MiB free before the disk fault"
  dd if=/dev/zero of="$STATE/filler" bs=1M count=$((free - 40)) status=none 2>/dev/null
  touch "$WORK/disk-full"
  sleep $((6 + RANDOM % 6))
  if [ "$restart" = 1 ]; then
    dd if=/dev/zero of="$STATE/filler2" bs=1M status=none 2>/dev/null
    lines=$(wc -l <"$WORK/gantryd.log")
    kill_gantryd
    gantryd_up
    tail -n +$((lines + 1)) "$WORK/gantryd.log" | grep -q "reserve" ||
      log "gantryd said nothing of its reserve on a full disk"
    sleep 3
    F_FULL_RESTART=$((F_FULL_RESTART + 1))
  fi
  rm -f "$STATE/filler" "$STATE/filler2" "$WORK/disk-full"
  F_DISK=$((F_DISK + 1))
}

# ---- the clients

# One job: takes a lock named after its id (a second copy at once finds it taken), logs its run
# and sleeps SECONDS under a name the leftover check looks for.
cat >"$WORK/job.sh" <<JOB
#!/bin/bash
exec 9>"$WORK/locks/\$SLURM_JOB_ID"
flock -n 9 || echo "\$SLURM_JOB_ID \$(date +%s.%N) \$SLURMD_NODENAME" >>"$WORK/dups"
echo "\$SLURM_JOB_ID start \$(date +%s.%N) \$\$ \${SLURM_RESTART_COUNT:-0} \$SLURMD_NODENAME" >>"$WORK/runs.log"
(exec -a "$TAG-\$SLURM_JOB_ID" sleep "\$1")
echo "\$SLURM_JOB_ID end \$(date +%s.%N) \$\$" >>"$WORK/runs.log"
JOB

# client K: sbatch (most often), scancel of one of its own jobs, squeue/sacct, until $WORK/stop.
# Its records in $WORK/clients/: acked.K ("ID NAME" for each acknowledged job), cancelled.K,
# refused.K (sbatch's error), timedout.K (a command that ran past 20 s: what and when).
client() {
  local k=$1 n=0 out rc id name dir=$WORK/clients
  RANDOM=$((SEED + k))
  : >"$dir/acked.$k"
  while [ ! -e "$WORK/stop" ]; do
    case $((RANDOM % 10)) in
      [0-6])
        n=$((n + 1))
        name=c$k-$n
        out=$(timeout 20 sbatch --parsable -o /dev/null -J "$name" "$WORK/job.sh" $((RANDOM % 5 + 1)) 2>"$dir/err.$k")
        rc=$?
        id=${out%%;*}
        if [ "$rc" = 0 ] && [[ $id =~ ^[0-9]+$ ]]; then
          echo "$id $name" >>"$dir/acked.$k"
        elif [ "$rc" = 124 ]; then
          echo "sbatch $name $(date +%T)" >>"$dir/timedout.$k"
        else
          echo "$name rc=$rc $(tr '\n' ' ' <"$dir/err.$k")" >>"$dir/refused.$k"
        fi
        ;;
      7)
        id=$(shuf -n 1 "$dir/acked.$k" 2>/dev/null | cut -d' ' -f1)
        [ -n "$id" ] || continue
        timeout 20 scancel "$id" 2>/dev/null
        rc=$?
        [ "$rc" = 0 ] && echo "$id" >>"$dir/cancelled.$k"
        [ "$rc" = 124 ] && echo "scancel $id $(date +%T)" >>"$dir/timedout.$k"
        ;;
      8) timeout 20 squeue -h -t all >/dev/null 2>&1
         [ $? = 124 ] && echo "squeue $(date +%T)" >>"$dir/timedout.$k" ;;
      9) timeout 20 sacct -n -X -o JobID,State >/dev/null 2>&1
         [ $? = 124 ] && echo "sacct $(date +%T)" >>"$dir/timedout.$k" ;;
    esac
    sleep "0.$((RANDOM % 6 + 4))"
  done
}

# The fuzz client: frames to gantryd's command socket, built from fuzz/corpus/{command,
# frame_stream} and mutated (torn frames, bad lengths, unknown tags, garbage messages); every tag
# that gantryd would read as a method that changes something is replaced by a read-only one.
# Writes "SENT ANSWERED SLOW" to $WORK/fuzzed at the end (answered: a reply came back before
# gantryd closed the connection; slow: nothing, not even the close, within 5 s).
cat >"$WORK/fuzz.py" <<'PY'
import os, random, socket, struct, sys, time
sock_path, corpus, stop, out, seed = sys.argv[1:6]
rng = random.Random(int(seed))
READ = [1, 5, 6, 8, 11, 13, 14, 15]          # Ping, GetJobs, GetNodes, GetConfig, ...
CHANGE = {2, 3, 4, 7, 9, 10, 12}             # SubmitJob, SignalJob, UpdateJob, ...
def files(d):
    d = os.path.join(corpus, d)
    return [open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))] if os.path.isdir(d) else []
streams = files("frame_stream") or [b"\x01\x00\x00\x00\x01"]
bodies = [b[2:] for b in files("command")] or [b""]
def mutate(b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(4)
        if op == 0 and b: b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1: b.insert(rng.randint(0, len(b)), rng.randrange(256))
        elif op == 2 and b: del b[rng.randrange(len(b))]
        else: b += os.urandom(rng.randint(1, 16))
    return bytes(b)
def frame(tag, body, torn=False):
    n = len(body) + 1 + (rng.randint(1, 1000) if torn else 0)
    return struct.pack("<IB", n, tag) + body
def read_only(data):
    # Walks the frames as gantryd reads them; a tag naming a change becomes a read-only method.
    data, pos = bytearray(data), 0
    while pos + 5 <= len(data):
        n = struct.unpack_from("<I", data, pos)[0]
        if data[pos + 4] in CHANGE: data[pos + 4] = rng.choice(READ)
        if n == 0 or n > (64 << 20): break
        pos += 4 + n
    return bytes(data)
def one():
    kind = rng.randrange(5)
    if kind == 0: return mutate(rng.choice(streams))
    if kind == 1: return frame(rng.choice(READ), mutate(rng.choice(bodies)) if rng.random() < 0.7 else rng.choice(bodies))
    if kind == 2: return frame(rng.choice(READ), os.urandom(rng.randint(0, 300)))
    if kind == 3: return frame(rng.choice([0] + list(range(16, 256))), os.urandom(rng.randint(0, 64)))
    return b"".join(frame(rng.choice(READ), mutate(rng.choice(bodies)), torn=(i == 2)) for i in range(3))
sent = answered = slow = 0
while not os.path.exists(stop):
    time.sleep(rng.uniform(0.05, 0.3))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(sock_path)
    except OSError:
        s.close(); time.sleep(0.3); continue
    try:
        s.sendall(read_only(one()))
        s.shutdown(socket.SHUT_WR)
        sent += 1
        got = False
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            got = True
        answered += got
    except socket.timeout:
        slow += 1
    except OSError:
        pass
    finally:
        s.close()
with open(out, "w") as f: f.write(f"{sent} {answered} {slow}\n")
PY

# ---- the cluster: gantryd and 3 agents, each agent in a network namespace of its own

make_hosts "${#NODES[@]}"
start_tcp_gantryd
GANTRYD_PID=${EXTRA_PIDS##* }
declare -A AGENT_PID
for i in "${!NODES[@]}"; do agent_up $((i + 1)); done
export GANTRY_CONF=$STATE/gantry.conf
wait_for 40 all_nodes_ok || { sinfo -N; cat "$WORK"/agent-*.log; fail "agents did not register"; }
[ -s "$STATE/reserve" ] || fail "no reserve in the state dir"
cd "$WORK" || fail "cd $WORK"

echo "chaos for $CHAOS s, seed $SEED (CHAOS_SEED=$SEED repeats the choices)"
T0=$SECONDS
T0_WALL=$(date +%s.%N)
for k in 1 2 3 4; do
  client "$k" &
  CLIENT_PIDS+=($!)
done
FUZZ=0
if command -v python3 >/dev/null; then
  python3 "$WORK/fuzz.py" "$STATE/run/commands.sock" "$SRC/fuzz/corpus" "$WORK/stop" "$WORK/fuzzed" "$SEED" &
  CLIENT_PIDS+=($!)
  FUZZ=$!
fi

# The faults, in a random order: a deck of the five, shuffled again when drawn out (the short
# mode sees each at least once). Between two faults a calm of 2-5 s; the first disk fault also
# restarts gantryd on the full disk, later ones every other time.
deck=()
deadline=$((T0 + CHAOS))
sleep 3
while [ $SECONDS -lt $deadline ]; do
  gantryd_alive
  agents_alive
  if [ ${#deck[@]} = 0 ]; then
    r=$RANDOM  # here: a subshell's $RANDOM would not follow the seed
    mapfile -t deck < <(printf '%s\n' gantryd agent cut clock disk | shuf --random-source=<(yes "$r"))
  fi
  fault=${deck[0]}
  deck=("${deck[@]:1}")
  case $fault in
    disk)
      restart=$((RANDOM % 2))
      [ "$F_FULL_RESTART" = 0 ] && restart=1
      fault_disk "$restart"
      ;;
    *) "fault_$fault" ;;
  esac
  sleep $((2 + RANDOM % 4))
done
CHAOS_RAN=$((SECONDS - T0))
log "chaos over; the clients stop"
touch "$WORK/stop"
for p in "${CLIENT_PIDS[@]}"; do wait "$p"; done
CLIENT_PIDS=()

# ---- everything back: network, clock, disk (each fault undid itself; make sure)

for i in "${!NODES[@]}"; do host_link $((i + 1)) up; done
set_clock_offset 0
rm -f "$STATE/filler" "$STATE/filler2"
gantryd_alive
agents_alive
wait_for 60 all_nodes_ok || fail "nodes not back after the chaos: $(nodes_not_ok)"

# Every job ends (they sleep 5 s at most). What is still pending after 120 s is cancelled (and
# counted: e.g. a job requeued with a begin time stamped during a forward clock step); a job
# still configuring, running or completing 30 s later is stuck: a failure.
active() {
  local all
  all=$(squeue -h -t all -o '%i %T %r %N') || return 2
  awk '$2 !~ /^(COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)$/' <<<"$all"
}
queue_empty() {
  local left
  left=$(active) && [ -z "$left" ]
}
cancelled_at_end=0
if ! wait_for 120 queue_empty; then
  left=$(active)
  log "still in the queue after 120 s:"
  echo "$left"
  pending=$(awk '$2 == "PENDING" {print $1}' <<<"$left")
  if [ -n "$pending" ]; then
    cancelled_at_end=$(wc -l <<<"$pending")
    echo "$pending" | xargs scancel
  fi
  wait_for 30 queue_empty || fail "jobs stuck (each sleeps 5 s at most), as ID STATE REASON NODES: $(active | tr '\n' ';')"
fi
log "the queue is empty"

# ---- the checks

# The jobs gantryd knows: squeue (MinJobAge keeps ended jobs an hour), then sacct for the ones
# squeue no longer lists: a job that ended during a backward clock step carries an end time up
# to an hour early and leaves squeue that much sooner. sacct is asked over an explicit window:
# a job submitted during a forward step carries times in the future.
cat "$WORK"/clients/acked.* | sort -k1,1 >"$WORK/acked"
acked=$(wc -l <"$WORK/acked")
[ "$acked" -gt 0 ] || fail "no submission was acknowledged"
squeue -h -t all -o '%i %j %T' >"$WORK/listed" || fail "squeue -t all"
sort -k1,1 -o "$WORK/listed" "$WORK/listed"
awk '{print $1}' "$WORK/acked" | comm -23 - <(awk '{print $1}' "$WORK/listed") >"$WORK/unlisted"
: >"$WORK/accounted"
if [ -s "$WORK/unlisted" ]; then
  sacct -X -n -P -S 2000-01-01 -E 2099-12-31 -j "$(paste -sd, "$WORK/unlisted")" \
    -o JobID,JobName,State >"$WORK/accounted.raw" || fail "sacct"
  tr '|' ' ' <"$WORK/accounted.raw" | sort -k1,1 >"$WORK/accounted"
fi
accounted=$(wc -l <"$WORK/accounted")

# An id acknowledged to two submissions, listed twice by squeue or by sacct.
twice=$(awk '{print $1}' "$WORK/acked" | uniq -d | head -10 | paste -sd' ')
[ -z "$twice" ] || fail "job ids acknowledged to two submissions: $twice"
twice=$(awk '{print $1}' "$WORK/listed" | uniq -d | head -10 | paste -sd' ')
[ -z "$twice" ] || fail "squeue lists jobs twice: $twice"
twice=$(awk '{print $1}' "$WORK/accounted" | uniq -d | head -10 | paste -sd' ')
[ -z "$twice" ] || fail "sacct lists jobs twice: $twice"

# Every acknowledged job is there, under its own name (a lost job whose id went to another
# submission shows up under the other's name).
sort -k1,1 "$WORK/listed" "$WORK/accounted" >"$WORK/known"
lost=$(join -a 1 -o 1.1,1.2,2.2 "$WORK/acked" "$WORK/known" |
  awk '$2 != $3 {printf "%s(%s: %s) ", $1, $2, ($3 == "" ? "missing" : "listed as " $3)}')
[ -z "$lost" ] || fail "acknowledged jobs lost: $(echo "$lost" | cut -c1-2000)"

# No two copies of a job at once.
dups=$(awk '{print $1}' "$WORK/dups" | sort -u | paste -sd' ')
[ -z "$dups" ] || fail "jobs that ran two copies at once: $dups ($(head -5 "$WORK/dups" | tr '\n' ';'))"

# A job the controller calls COMPLETED ran its script to the end.
not_run=$(awk 'NR == FNR {if ($2 == "end") ended[$1] = 1; next} $3 == "COMPLETED" && !($1 in ended) {print $1}' \
  "$WORK/runs.log" "$WORK/known" | head -10 | paste -sd' ')
[ -z "$not_run" ] || fail "COMPLETED jobs that never finished a run: $not_run"

# No job process outlived its job: every namespace's processes show in this /proc.
sleep $((KILL_WAIT + 2))
leftover=$(pgrep -af -- "$TAG-|$WORK/spool-[0-9]+/job_")
[ -z "$leftover" ] || fail "job processes outlived their jobs:
$leftover"

# Every daemon came back (and none died on its own); every node idle.
gantryd_alive
agents_alive
wait_for 60 nodes_idle ||
  fail "nodes not idle at the end: $(sinfo -h -N -o '%N %t' | tr '\n' ';') jobs not ended: $(active | tr '\n' ';')"
id=$(sbatch --parsable -o /dev/null "$WORK/job.sh" 0) || fail "sbatch after the chaos"
wait_state "$id" COMPLETED 30

# A listing or submission that hung is a failure; so is a disk fault that refused nothing.
hung=$(cat "$WORK"/clients/timedout.* 2>/dev/null | grep -v '^sbatch' | head -5 | tr '\n' ';')
[ -z "$hung" ] || fail "client commands that ran past 20 s: $hung"
refused=$(cat "$WORK"/clients/refused.* 2>/dev/null | wc -l)
refused_disk=$(cat "$WORK"/clients/refused.* 2>/dev/null | grep -c "the state store's disk is full" || true)
sbatch_timeouts=$(cat "$WORK"/clients/timedout.* 2>/dev/null | grep -c '^sbatch' || true)
[ "$F_DISK" = 0 ] || [ "$refused_disk" -gt 0 ] || fail "the disk was full $F_DISK times and no submission was refused for it"
cancelled=$(cat "$WORK"/clients/cancelled.* 2>/dev/null | sort -u | wc -l)
runs=$(awk '$2 == "start"' "$WORK/runs.log" | wc -l)
rerun=$(awk '$2 == "start" {n[$1]++} END {for (i in n) if (n[i] > 1) c++; print c + 0}' "$WORK/runs.log")
read -r fuzz_sent fuzz_answered fuzz_slow <"$WORK/fuzzed" 2>/dev/null || { fuzz_sent=0 fuzz_answered=0 fuzz_slow=0; }
[ "$FUZZ" = 0 ] || [ -s "$WORK/fuzzed" ] || fail "the fuzz client did not finish"
corpus=$(find "$SRC/fuzz/corpus" -type f | wc -l)
# The longest time no job started anywhere while the clients ran (a figure, not a check: a
# gantryd restart or a full disk legitimately pauses the starts for a while).
stall=$(awk -v t0="$T0_WALL" '$2 == "start" {print $3 - t0}' "$WORK/runs.log" | sort -n |
  awk -v end="$CHAOS_RAN" '$1 <= end {if (NR > 1 && $1 - p > gap) {gap = $1 - p; at = p} p = $1}
       END {printf "%.1f s (from %.0f s)", gap, at}')

echo "chaos: $CHAOS_RAN s, seed $SEED"
echo "submissions acknowledged $acked, refused $refused (disk full $refused_disk), timed out $sbatch_timeouts; cancelled $cancelled (scancel accepted), $cancelled_at_end more at the end"
echo "runs started $runs ($rerun jobs ran more than once), longest time without a start $stall; final states: $(awk '{print $3}' "$WORK/known" | sort | uniq -c | awk '{printf "%s%s %s", s, $2, $1; s = ", "}')"
echo "faults injected: gantryd kill -9 x$F_GANTRYD, agent kill -9 x$F_AGENT, network cuts x$F_CUT, clock steps x$F_CLOCK, disk full x$F_DISK (restarts while full x$F_FULL_RESTART)"
echo "inputs fuzzed: $fuzz_sent frames into the live gantryd ($fuzz_answered answered, $fuzz_slow unanswered in 5 s); seed corpus: $corpus inputs (ctest fuzz_corpus.*)"
echo "jobs found in squeue $(wc -l <"$WORK/listed"), in sacct only $accounted"
echo "jobs lost 0, duplicates 0, leftover processes 0"
echo PASS
