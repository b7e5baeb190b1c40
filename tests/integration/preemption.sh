#!/usr/bin/env bash
# Preemption on a real local cluster (preempt/partition_prio, PreemptMode=SUSPEND,GANG; two
# 8-CPU nodes; partitions lo, rq (REQUEUE), cx (CANCEL) at tier 1, hi at tier 10), with jobs
# that write a counter every 0.1 s:
#  - SUSPEND: a hi job suspends the lo job on the first node; its counter stops, the other
#    node's keeps going; when the hi job ends the victim resumes and counts again.
#  - REQUEUE: the victim gets SIGTERM and sees its PreemptTime (scontrol) in its trap, goes back
#    to the queue (reason BeginTime: Slurm's requeue delay), the hi job starts once it left, and
#    the victim runs again with SLURM_RESTART_COUNT=1.
#  - CANCEL: the victim ends PREEMPTED (sacct).
#  - A job within its QOS's PreemptExemptTime is not chosen: the job on the other node is.
#  - Gang time-slicing (ts: OverSubscribe=FORCE:2, SchedulerTimeSlice=15): two jobs on one node
#    take turns, each counting only while the other is suspended.
#  - With SchedulerParameters=gantry_minimal_victims (a second cluster), the hi job takes the
#    node where one job is in its way, not the first node with two.
# usage: preemption.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/preempt.json"
start_cluster
cd "$WORK"

counter() { echo "i=0; while true; do i=\$((i+1)); echo \$i > $WORK/$1; sleep 0.1; done"; }
# A script that runs until the test touches $WORK/NAME.go: a preemptor that must still run
# while the test reads its victims' states (a fixed sleep may end first on a loaded machine).
until_go() { echo "until [ -e $WORK/$1.go ]; do sleep 0.1; done"; }
# submit PARTITION NAME [sbatch options]: a whole-node (8 CPUs) counter job.
submit() {
  local p=$1 name=$2
  shift 2
  sbatch --parsable -p "$p" -n 8 --mem=100 -t 10 -o /dev/null "$@" --wrap "$(counter "$name")" ||
    fail "sbatch $name"
}
node_of() { job_field "$1" NodeList; }
first=$(sinfo -h -N -p lo -o %N | head -1)
gone() { ! squeue -h -j "$1" -t R,S,CG,PD 2>/dev/null | grep -q .; }

# --- SUSPEND
a=$(submit lo a)
b=$(submit lo b)
wait_state "$a" RUNNING
wait_state "$b" RUNNING
expect "first job's node" "$first" "$(node_of "$a")"
advancing a || fail "job a does not count"
# The preemptor runs until the test has seen the victim stopped (a fixed sleep could end first
# when the commands are slow, and the victim would be counting again).
h=$(sbatch --parsable -p hi -n 8 --mem=100 -t 5 -o /dev/null \
  --wrap "while [ ! -e $WORK/hi.done ]; do sleep 0.1; done") || fail "sbatch hi"
wait_state "$h" RUNNING 20
expect "hi job's node" "$first" "$(node_of "$h")"
expect "victim" SUSPENDED "$(job_state "$a")"
expect "victim in squeue" "S" "$(squeue -h -j "$a" -o %t)"
expect "other job" RUNNING "$(job_state "$b")"
[ "$(job_field "$a" PreemptTime)" != None ] || fail "PreemptTime not set"
stopped a || fail "the suspended job still counts"
advancing b || fail "the other job stopped"
touch "$WORK/hi.done"
wait_state "$h" COMPLETED 30
wait_state "$a" RUNNING 20
advancing a || fail "the resumed job does not count"
scancel "$a" "$b"
wait_for 30 gone "$a" && wait_for 30 gone "$b" || fail "a and b did not end"
wait_for 30 nodes_idle || fail "nodes not idle"

# --- REQUEUE (rq's GraceTime 10 s: SIGKILL follows SIGTERM after 12 s, time for the trap's
# scontrol on a slow machine)
# The job tells preemption from a time-out on SIGTERM: scontrol shows its PreemptTime.
why="scontrol show job \$SLURM_JOB_ID > $WORK/why.\${SLURM_RESTART_COUNT:-0} 2>&1"
r=$(sbatch --parsable -p rq -n 8 --mem=100 -t 10 -o /dev/null \
  --wrap "trap \"$why; exit 0\" TERM; echo \${SLURM_RESTART_COUNT:-unset} >> $WORK/restarts; $(counter r)") ||
  fail "sbatch rq"
wait_state "$r" RUNNING
f=$(submit lo f)
wait_state "$f" RUNNING
h=$(sbatch --parsable -p hi -n 8 --mem=100 -t 5 -o /dev/null --wrap "$(until_go h1)") ||
  fail "sbatch hi"
wait_state "$h" RUNNING 30
expect "hi job's node (the requeued job's)" "$first" "$(node_of "$h")"
expect "filler" RUNNING "$(job_state "$f")"
expect "restarts" 1 "$(job_field "$r" Restarts)"
wait_for 10 test -s "$WORK/why.0" || fail "the job did not look why it was ending"
grep -q 'PreemptTime=20' "$WORK/why.0" || fail "the job saw $(cat "$WORK/why.0")"
[ "$(job_field "$r" PreemptTime)" != None ] || fail "PreemptTime of the requeued job"
# Slurm's requeue delay: it may start again cred_expire (AuthInfo, 5 s here) + 1 s after the
# requeue (its new SubmitTime), waiting meanwhile with the reason BeginTime.
delay=$(($(date -d "$(job_field "$r" EligibleTime)" +%s) - $(date -d "$(job_field "$r" SubmitTime)" +%s)))
expect "the requeue delay" 6 "$delay"
touch "$WORK/h1.go"
wait_state "$h" COMPLETED 30
wait_state "$r" RUNNING 30
wait_until 30 '[ "$(wc -l < "$WORK/restarts")" = 2 ]' || fail "the job did not run again"
expect "SLURM_RESTART_COUNT (unset at first, as Slurm)" "unset
1" "$(cat "$WORK/restarts")"
expect "sacct -D: the preempted run, then this one" "PREEMPTED
RUNNING" "$(sacct -D -X -n -P -j "$r" -o State)"
expect "sacct: this run" "RUNNING" "$(sacct -X -n -P -j "$r" -o State)"
scancel "$r" "$f"
wait_for 30 gone "$r" && wait_for 30 gone "$f" || fail "r and f did not end"
wait_for 30 nodes_idle || fail "nodes not idle"

# --- CANCEL
c=$(submit cx c)
wait_state "$c" RUNNING
f=$(submit lo f2)
wait_state "$f" RUNNING
h=$(sbatch --parsable -p hi -n 8 --mem=100 -t 5 -o /dev/null --wrap 'sleep 1') || fail "sbatch hi"
wait_state "$c" PREEMPTED 20
wait_state "$h" COMPLETED 30
expect "sacct" "PREEMPTED" "$(sacct -n -X -P -j "$c" -o State)"
scancel "$f"
wait_for 30 gone "$f" || fail "f did not end"
wait_for 30 nodes_idle || fail "nodes not idle"

# --- PreemptExemptTime (QOS keep: an hour)
sacctmgr -i add qos keep PreemptExemptTime=01:00:00 >/dev/null || fail "add qos"
k=$(submit lo k --qos=keep)
wait_state "$k" RUNNING
l=$(submit lo l)
wait_state "$l" RUNNING
expect "exempt job's node" "$first" "$(node_of "$k")"
h=$(sbatch --parsable -p hi -n 8 --mem=100 -t 5 -o /dev/null --wrap "$(until_go h3)") ||
  fail "sbatch hi"
wait_state "$h" RUNNING 20
expect "exempt job" RUNNING "$(job_state "$k")"
expect "victim" SUSPENDED "$(job_state "$l")"
[ "$(node_of "$h")" != "$first" ] || fail "the hi job went on the exempt job's node"
scancel "$k" "$l" "$h"

# --- Gang time-slicing: two whole-node jobs on the first node take 15 s turns (the checks in
# a turn must fit in it on a slow machine; a flip may take a turn and a slow cycle).
t1=$(sbatch --parsable -p ts -w "$first" -n 8 --mem=100 -t 10 -o /dev/null \
  --wrap "$(counter t1)") || fail "t1"
wait_state "$t1" RUNNING
t2=$(sbatch --parsable -p ts -w "$first" -n 8 --mem=100 -t 10 -o /dev/null \
  --wrap "$(counter t2)") || fail "t2"
wait_state "$t2" RUNNING 40
expect "t1 after its turn" SUSPENDED "$(job_state "$t1")"
stopped t1 || fail "t1 counts while t2 has its turn"
advancing t2 || fail "t2 does not count in its turn"
wait_state "$t1" RUNNING 40
expect "t2 after its turn" SUSPENDED "$(job_state "$t2")"
advancing t1 || fail "t1 does not count in its second turn"
scancel "$t1" "$t2"
wait_for 30 gone "$t1" && wait_for 30 gone "$t2" || fail "t1 and t2 did not end"

# --- gantry_minimal_victims: a cluster of its own.
"$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1 || fail "gantry down"
STATE=$WORK/state2
sed 's|"PreemptMode": "SUSPEND,GANG",|"PreemptMode": "SUSPEND,GANG", "SchedulerParameters": "gantry_minimal_victims",|' \
  "$SRC/tests/integration/specs/preempt.json" > "$WORK/minimal.json"
SPEC=$WORK/minimal.json
start_cluster
x1=$(sbatch --parsable -p lo -n 4 --mem=100 -t 10 -o /dev/null --wrap "$(counter x1)") || fail "x1"
x2=$(sbatch --parsable -p lo -n 4 --mem=100 -t 10 -o /dev/null --wrap "$(counter x2)") || fail "x2"
wait_state "$x1" RUNNING
wait_state "$x2" RUNNING
y=$(submit lo y)
wait_state "$y" RUNNING
expect "x1 and x2 share the first node" "$first $first" "$(node_of "$x1") $(node_of "$x2")"
h=$(sbatch --parsable -p hi -n 8 --mem=100 -t 5 -o /dev/null --wrap "$(until_go h4)") ||
  fail "sbatch hi"
wait_state "$h" RUNNING 20
expect "one victim" "SUSPENDED RUNNING RUNNING" \
  "$(job_state "$y") $(job_state "$x1") $(job_state "$x2")"
touch "$WORK/h4.go"
wait_state "$h" COMPLETED 30
wait_state "$y" RUNNING 20
scancel "$x1" "$x2" "$y"
echo "preemption: ok"
