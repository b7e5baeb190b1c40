#!/usr/bin/env bash
# Distributed GPU jobs on a real cluster of two 8-GPU (B200) nodes: a 2-node job with
# --gpus-per-node=4 whose tasks (srun through the agents) get ranks, their node's GPU indices
# and one MASTER_ADDR/MASTER_PORT; a second job on a node never gets the first one's GPUs
# (scontrol show job -d shows IDX); srun -l labels every line; a failing task fails the step
# with its exit code; Ctrl-C twice ends the step on every node; -K and --gpus-per-task; a TCP
# all-reduce over MASTER_ADDR:MASTER_PORT sums right on 2 nodes; salloc runs srun inside its
# allocation and releases it; sacct lists the steps with their nodes.
# usage: distributed.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/shared.json"
# Fake NVIDIA devices (195:0-7, no driver) for the agents: where the host has a cgroup v1
# devices controller, a job may open only its own (the others: EPERM).
mkdir -p "$WORK/dev"
if for i in 0 1 2 3 4 5 6 7; do mknod "$WORK/dev/nvidia$i" c 195 "$i" 2>/dev/null || exit 1; done
then export GANTRY_DEV_DIR=$WORK/dev; fi
start_cluster
cd "$WORK"

first=$(sinfo -h -N -p gpu -o %N | head -1)
second=$(sinfo -h -N -p gpu -o %N | tail -1)

# A 2-node job, 2 tasks per node, 4 GPUs per node: every task's rank, node and GPUs.
cat >"$WORK/ranks.sh" <<'EOF'
#!/bin/bash
srun -l bash -c 'echo "$SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME gpus=$CUDA_VISIBLE_DEVICES step=$SLURM_STEP_GPUS $MASTER_ADDR:$MASTER_PORT ntasks=$SLURM_NTASKS step=$SLURM_STEP_ID"'
EOF
a=$(sbatch --parsable -p gpu -N 2 --ntasks-per-node=2 --gpus-per-node=4 -o "$WORK/ranks.out" \
  "$WORK/ranks.sh") || fail "sbatch ranks"
wait_state "$a" COMPLETED 60 || { cat "$WORK/ranks.out"; fail "ranks job: $(job_state "$a")"; }
port=$((12000 + a % 20000))
sorted=$(sort -n "$WORK/ranks.out" | sed 's/ [^ ]*:'"$port"' / MASTER /')
expect "ranks" "0: 0 0 0 $first gpus=0,1,2,3 step=0,1,2,3 MASTER ntasks=4 step=0
1: 1 1 0 $first gpus=0,1,2,3 step=0,1,2,3 MASTER ntasks=4 step=0
2: 2 0 1 $second gpus=0,1,2,3 step=0,1,2,3 MASTER ntasks=4 step=0
3: 3 1 1 $second gpus=0,1,2,3 step=0,1,2,3 MASTER ntasks=4 step=0" "$sorted"
masters=$(sed -n 's/.* \([^ ]*\):'"$port"' .*/\1/p' "$WORK/ranks.out" | sort -u | wc -l)
expect "one MASTER_ADDR" "1" "$masters"
job_nodes=$(sacct -j "$a" -X -n -P -o NodeList)
expect "step in sacct" "$a.0|$job_nodes|2|4|COMPLETED" \
  "$(sacct -j "$a" -n -P -o JobID,NodeList,NNodes,NTasks,State | grep "^$a\.0|")"

# squeue -s: the batch step and the running srun steps.
st=$(sbatch --parsable -p gpu -N 2 -o /dev/null --wrap 'srun -N 2 -J nap sleep 600') || fail "sbatch st"
wait_state "$st" RUNNING 30
wait_for 30 bash -c "squeue -s -h | grep -q '^ *$st\.0 '" || fail "no step in squeue -s"
expect "squeue -s" "$st.0 nap gpu 2 $(squeue -h -j "$st" -o %N)
$st.batch batch gpu 1 $first" "$(squeue -s -h -o '%i %j %P %A %N' | grep "^$st\.")"
scancel "$st"

# Two jobs on one node never share a GPU; scontrol show job -d shows their indices.
b=$(sbatch --parsable -p gpu -w "$first" -n 1 --gpus-per-node=3 -o /dev/null --wrap 'sleep 600') ||
  fail "sbatch b"
c=$(sbatch --parsable -p gpu -w "$first" -n 1 --gpus-per-node=4 -o "$WORK/c.out" \
  --wrap 'echo "$CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $SLURM_GPUS_ON_NODE"; sleep 600') ||
  fail "sbatch c"
wait_state "$b" RUNNING 30
wait_state "$c" RUNNING 30
wait_for 30 test -s "$WORK/c.out" || fail "c printed nothing"
expect "c's GPUs" "3,4,5,6 3,4,5,6 4" "$(cat "$WORK/c.out")"
expect "b's GRES" "  Nodes=$first Mem=$(scontrol show job -d "$b" | sed -n 's/.*Nodes=[^ ]* Mem=\([0-9]*\).*/\1/p') GRES=gpu:b200:3(IDX:0-2)" \
  "$(scontrol show job -d "$b" | grep ' Nodes=' | sed 's/^ *Nodes/  Nodes/')"
expect "JOB_GRES" "JOB_GRES=gpu:b200:4" "$(scontrol show job -d "$c" | grep -o 'JOB_GRES=[^ ]*')"
scancel "$b" "$c"
if grep -q "each job may open only its own" "$STATE"/logs/agent-*.log; then
  out=$(srun -p gpu -N 1 -n 1 --gpus-per-node=2 bash -c \
    'for i in 0 1 2; do cat $GANTRY_DEV_DIR/nvidia$i 2>&1 | sed "s/.*: //"; done')
  expect "fenced GPUs" "No such device or address
No such device or address
Operation not permitted" "$out"
  echo "distributed: GPUs fenced ($(grep -ho 'only its own ([^)]*)' "$STATE"/logs/agent-*.log | head -1))"
fi

# srun outside a job makes its own allocation; -l labels each line, padded to the widest rank.
out=$(srun -p gpu -N 2 -n 12 -l echo hello 2>"$WORK/srun.err") || fail "srun -l: $(cat "$WORK/srun.err")"
expect "labelled lines" "12" "$(grep -c '^[ 1][0-9]: hello$' <<<"$out")"
expect "rank 0 label" " 0: hello" "$(grep '^ 0:' <<<"$out")"
expect "rank 11 label" "11: hello" "$(grep '^11:' <<<"$out")"

# A failing task fails the step with its exit code, named per node as Slurm does.
srun -p gpu -N 2 -n 2 bash -c 'exit $((SLURM_PROCID * 3))' 2>"$WORK/fail.err"
expect "worst exit code" "3" "$?"
grep -q "srun: error: $second: task 1: Exited with exit code 3" "$WORK/fail.err" ||
  fail "failure line: $(cat "$WORK/fail.err")"
srun -p gpu -n 1 /no/such/program 2>"$WORK/exec.err"
expect "missing program" "2" "$?"
# The step lands on whichever node is free first (the previous step's epilog may still run).
grep -Eq "^slurmstepd-($first|$second): error: execve\(\): /no/such/program: No such file or directory$" "$WORK/exec.err" ||
  fail "exec error: $(cat "$WORK/exec.err")"

# -K: the first bad exit ends the rest at once (SIGTERM: Slurm's 143).
start=$(date +%s)
srun -p gpu -N 2 -n 2 -K bash -c '[ "$SLURM_PROCID" = 1 ] && exit 4; exec sleep 60' 2>"$WORK/k.err"
expect "-K exit code" "143" "$?"
[ $(($(date +%s) - start)) -lt 30 ] || fail "-K did not end the step"
expect "-K messages, in the reference's order" "srun: error: $second: task 1: Exited with exit code 4
srun: launch/slurm: _step_signal: Terminating StepId=N
srun: error: $first: task 0: Terminated
srun: Force Terminated StepId=N" "$(grep -v "queued and waiting\|allocated resources" "$WORK/k.err" |
  sed 's/StepId=[0-9.]*/StepId=N/')"

# -m plane=2: blocks of two ranks dealt out to the nodes.
out=$(srun -p gpu -N 2 -n 6 -m plane=2 bash -c 'echo "$SLURM_PROCID $SLURM_NODEID $SLURM_DISTRIBUTION $SLURM_DIST_PLANESIZE"' |
  sort -n | tr '\n' ';')
expect "plane" "0 0 plane 2;1 0 plane 2;2 1 plane 2;3 1 plane 2;4 0 plane 2;5 0 plane 2;" "$out"

# --gpus-per-task: each task sees its own GPUs.
out=$(srun -p gpu -N 1 -n 2 --gpus-per-task=2 -l bash -c 'echo $CUDA_VISIBLE_DEVICES' | sort)
expect "per-task GPUs" "0: 0,1
1: 2,3" "$out"
# --gpus spreads over the nodes; --cpus-per-gpu and --mem-per-gpu follow the GPUs.
g=$(sbatch --parsable -p gpu -N 2 --gpus=6 --cpus-per-gpu=2 --mem-per-gpu=100 -o /dev/null \
  --wrap 'sleep 600') || fail "sbatch --gpus"
wait_state "$g" RUNNING 30
expect "--gpus TRES" "cpu=12,mem=600M,node=2,billing=12,gres/gpu=6" "$(job_field "$g" TRES)"
expect "--gpus JOB_GRES" "JOB_GRES=gpu:b200:6" "$(scontrol show job -d "$g" | grep -o 'JOB_GRES=[^ ]*')"
scancel "$g"

# stdin reaches the tasks; -o with %t writes a file per task.
echo "from stdin" | srun -p gpu -N 2 -n 2 -o "$WORK/in-%t.txt" cat || fail "srun stdin"
expect "task 0 stdin" "from stdin" "$(cat "$WORK/in-0.txt")"
expect "task 1 stdin" "from stdin" "$(cat "$WORK/in-1.txt")"

# Ctrl-C twice ends the step on every node. (srun may first wait for the nodes, still ending
# the last step's allocation: its "queued and waiting" lines are left out of the comparison.)
srun -p gpu -N 2 -n 2 bash -c 'echo $$ > '"$WORK"'/pid.$SLURM_PROCID; exec sleep 300' \
  2>"$WORK/int.err" &
srun_pid=$!
EXTRA_PIDS=$srun_pid
wait_for 30 test -s "$WORK/pid.1" || fail "tasks did not start: $(cat "$WORK/int.err")"
wait_for 10 test -s "$WORK/pid.0" || fail "task 0 did not start"
kill -INT "$srun_pid"
sleep 0.2
kill -INT "$srun_pid"
wait_for 20 bash -c "! kill -0 $srun_pid 2>/dev/null" || fail "srun did not end after Ctrl-C twice"
wait "$srun_pid"
expect "Ctrl-C exit code" "130" "$?"
for r in 0 1; do
  ! kill -0 "$(cat "$WORK/pid.$r")" 2>/dev/null || fail "task $r survived Ctrl-C"
done
expect "Ctrl-C messages" "srun: interrupt (one more within 1 sec to abort)
srun: StepId=$(sed -n 's/.*StepId=\([0-9.]*\) .*/\1/p' "$WORK/int.err" | head -1) tasks 0-1: running
srun: sending Ctrl-C to StepId=$(sed -n 's/.*StepId=\([0-9.]*\) .*/\1/p' "$WORK/int.err" | head -1)
srun: forcing job termination
srun: Job step aborted: Waiting up to 4 seconds for job step to finish." \
  "$(grep -v "queued and waiting\|allocated resources" "$WORK/int.err")"

# A real distributed program: 4 ranks on 2 nodes rendezvous at MASTER_ADDR:MASTER_PORT over
# TCP and all-reduce rank+1: every rank gets 10.
out=$(srun -p gpu -N 2 -n 4 python3 "$SRC/examples/allreduce.py" 2>&1) ||
  fail "all-reduce: $out"
[ "$(grep -c ': sum 10$' <<<"$out")" = 4 ] || fail "all-reduce: every rank should print sum 10:
$out"
expect "on both nodes" "2" "$(sed -n 's/.* on \([^:]*\): sum.*/\1/p' <<<"$out" | sort -u | wc -l)"

# salloc: srun inside uses its allocation; the allocation is released with the exit code.
salloc -p gpu -N 2 srun -l hostname >"$WORK/salloc.out" 2>"$WORK/salloc.err" ||
  fail "salloc: $(cat "$WORK/salloc.err")"
expect "salloc's srun" "2" "$(grep -c '^[01]: ' "$WORK/salloc.out")"
grep -q "salloc: Granted job allocation" "$WORK/salloc.err" || fail "$(cat "$WORK/salloc.err")"
grep -q "salloc: Relinquishing job allocation" "$WORK/salloc.err" || fail "no release"
sid=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$WORK/salloc.err")
wait_state "$sid" COMPLETED 30 || fail "salloc job: $(job_state "$sid")"
salloc -p gpu -N 1 bash -c 'exit 5' 2>/dev/null
expect "salloc exit code" "5" "$?"

# Refusals as Slurm words them.
expect "srun, bad partition" "srun: error: Unable to allocate resources: Invalid partition name specified" \
  "$(srun -p nosuch true 2>&1)"
expect "salloc, bad partition" "salloc: error: Job submit/allocate failed: Invalid partition name specified" \
  "$(salloc -p nosuch true 2>&1)"
srun --no-such-option true 2>/dev/null
expect "srun, unknown option" "255" "$?"
echo "distributed: ok"
