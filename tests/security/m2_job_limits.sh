#!/usr/bin/env bash
# M2: job cgroups only tracked processes; a job on a shared node could take all its memory and
# PIDs, and the OOM killer might pick an agent or gantryd. Now each job's cgroup gets its
# allocation's memory, CPUs (a cpuset and bandwidth) and a pids limit (cgroup v2, or the v1 hierarchies
# of a hybrid host); a job over its memory is killed by the kernel and ends OUT_OF_MEMORY with
# exit code 0:125 as in Slurm, while alice's job beside it runs on; the daemons have
# oom_score_adj -1000 and the jobs 0. Skipped (77) where no cgroup controller can be used.
# usage: m2_job_limits.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
grep -q "limits each job to its allocation: none" "$STATE"/logs/agent-*.log &&
  { echo "SKIP: no cgroup memory, cpu or pids controller here"; exit 77; }
grep -h "limits each job" "$STATE"/logs/agent-*.log | head -1
if (echo -1000 >/proc/self/oom_score_adj) 2>/dev/null; then
  [ "$(cat "/proc/$(gantryd_pid)/oom_score_adj")" = -1000 ] || fail "gantryd's oom_score_adj"
  for pid in "$STATE"/run/agent-*.pid; do
    [ "$(cat "/proc/$(cat "$pid")/oom_score_adj")" = -1000 ] || fail "agent's oom_score_adj"
  done
else  # a container without CAP_SYS_RESOURCE: the daemons say so
  echo "root may not lower oom_score_adj here: checking that the daemons log it"
  grep -q "not shielded from the OOM killer" "$STATE/logs/gantryd.log" || fail "gantryd's log"
fi

# The job reads its own limits: each controller's directory from /proc/self/cgroup.
cat >"$WORK/$ALICE/limits.sh" <<'SH'
#!/bin/bash
echo "oom_score_adj $(cat /proc/self/oom_score_adj)"
while IFS=: read -r _ controllers path; do
  for c in ${controllers//,/ }; do
    case $c in memory | pids | cpu) ;; *) continue ;; esac
    dir=$(grep -m1 " - cgroup cgroup .*[ ,]$c\(,\|$\)" /proc/self/mountinfo | awk '{print $5}')
    case $c in
      memory) echo "memory $(cat "$dir$path/memory.limit_in_bytes")" ;;
      pids) echo "pids $(cat "$dir$path/pids.max")" ;;
      cpu) echo "cpu $(cat "$dir$path/cpu.cfs_quota_us")" ;;
    esac
  done
  if [ -z "$controllers" ]; then  # cgroup v2: the one directory has every file
    dir=$(grep -m1 " - cgroup2 " /proc/self/mountinfo | awk '{print $5}')
    [ -e "$dir$path/memory.max" ] && echo "memory $(cat "$dir$path/memory.max")"
    [ -e "$dir$path/pids.max" ] && echo "pids $(cat "$dir$path/pids.max")"
    [ -e "$dir$path/cpu.max" ] && echo "cpu $(cut -d' ' -f1 "$dir$path/cpu.max")"
  fi
done </proc/self/cgroup
exit 0
SH
chmod 755 "$WORK/$ALICE/limits.sh"
id=$(as "$ALICE" sbatch --parsable -c 2 --mem=300 -o limits.out ./limits.sh) || fail "sbatch"
wait_state "$id" COMPLETED
cat "$WORK/$ALICE/limits.out"
grep -qx "oom_score_adj 0" "$WORK/$ALICE/limits.out" || fail "the job inherited the shield"
grep -qx "memory $((300 << 20))" "$WORK/$ALICE/limits.out" || fail "memory limit"
grep -qx "pids 16384" "$WORK/$ALICE/limits.out" || fail "pids limit"
cpus=$(scontrol show job "$id" | sed -n 's/.*NumCPUs=\([0-9]*\).*/\1/p')
grep -qx "cpu $((cpus * 100000))" "$WORK/$ALICE/limits.out" || fail "cpu limit ($cpus CPUs)"

# Bob's job takes 1 GiB with --mem=100 beside alice's, on the same node.
alice=$(as "$ALICE" sbatch --parsable -w "$(sinfo -h -N -o %N | head -1)" --mem=100 \
  --wrap 'sleep 8; echo alive') || fail "sbatch alice"
hog=$(as "$BOB" sbatch --parsable -w "$(sinfo -h -N -o %N | head -1)" --mem=100 \
  --wrap 'python3 -c "b = bytearray(1 << 30); print(len(b))"') || fail "sbatch bob"
wait_state "$hog" OUT_OF_MEMORY 60
expect "bob's exit code" "0:125" "$(sacct -n -X -j "$hog" -o ExitCode | tr -d ' ')"
wait_state "$alice" COMPLETED 60
expect_alive
# ConstrainCores: two 1-CPU jobs on one node get a CPU of their own each (a host with two CPUs
# or more and a cpuset controller).
if grep -h "limits each job" "$STATE"/logs/agent-*.log | head -1 | grep -q cpuset &&
  [ "$(nproc)" -ge 2 ]; then
  node=$(sinfo -h -N -o %N | head -1)
  pins=()
  for k in 1 2; do
    # Each waits until both run (at most a minute), so that they hold their CPUs together.
    pins+=("$(as "$ALICE" sbatch --parsable -w "$node" -c 1 --mem=50 -o "pin$k.out" --wrap \
      "grep Cpus_allowed_list /proc/self/status; touch pin$k.up; for i in \$(seq 600); do [ -e pin1.up ] && [ -e pin2.up ] && break; sleep 0.1; done")") ||
      fail "sbatch pin$k"
  done
  for id in "${pins[@]}"; do wait_state "$id" COMPLETED 30; done
  a=$(awk '{print $2}' "$WORK/$ALICE/pin1.out")
  b=$(awk '{print $2}' "$WORK/$ALICE/pin2.out")
  echo "the CPUs of two 1-CPU jobs on $node: $a and $b"
  [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $a != "$b" ]] || fail "cpusets $a and $b"
fi
echo PASS
