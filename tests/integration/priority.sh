#!/usr/bin/env bash
# priority/multifactor on a real cluster (weights as the reference Slurm cluster's): a job that ran
# under account prod makes prod's user rank below the unused accounts' users in Fair Tree, so a
# pending job charged to research gets the whole fair-share weight and one charged to prod a
# third of it; sprio's columns add up to the priority squeue shows and the scheduler orders by;
# a job asking for two partitions gets one line per partition, the higher PriorityTier first;
# sshare shows the tree; sprio -w the weights. An account's Priority reaches its users' new jobs
# (ASSOC); partition high's TRESBillingWeights make a job's billing (scontrol, sacct).
# usage: priority.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/priority.json"
start_cluster
me=$(id -un)
# same_priority ID: squeue shows the priority the last scheduler cycle gave the job, sprio the one
# it has now; they agree once a cycle ran after the submission (which may take long when slow).
same_priority() {
  local q
  q=$(squeue -h -j "$1" -o '%Q')
  [ -n "$q" ] && [ "$q" = "$(sprio -h -j "$1" -o '%Y' | tr -d ' ')" ]
}

sacctmgr -i add account research prod >/dev/null || fail "add accounts"
sacctmgr -i add user "$me" Account=research,prod >/dev/null || fail "add associations"

# Usage for prod: a job that runs a few seconds.
ran=$(sbatch --parsable -A prod -n 4 -o /dev/null --wrap 'sleep 2') || fail "sbatch ran"
wait_state "$ran" COMPLETED 60

# Pending jobs (begin time in an hour: they wait, their age does not grow).
r=$(sbatch --parsable -A research --begin=now+1hour -n 2 -o /dev/null --wrap true) || fail "r"
p=$(sbatch --parsable -A prod --begin=now+1hour -N 2 -o /dev/null --wrap true) || fail "p"
two=$(sbatch --parsable -A prod -p a4,high --begin=now+1hour -o /dev/null --wrap true) || fail "two"
wait_for 20 same_priority "$r" && wait_for 20 same_priority "$p" ||
  fail "squeue's priority of $r or $p is not sprio's"

expect "sprio -w" "          JOBID PARTITION   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS                 TRES
        Weights                               1       1000       1000      10000       1000       1000       1000      cpu=100,mem=150" "$(sprio -w)"

# FAIRSHARE: research's user ranks first of 3 (10000), prod's last (3333).
expect "research job fair-share" "10000" "$(sprio -h -j "$r" -o '%F' | tr -d ' ')"
expect "prod job fair-share" "3333" "$(sprio -h -j "$p" -o '%F' | tr -d ' ')"
expect "partition factor" "1000" "$(sprio -h -j "$r" -o '%P' | tr -d ' ')"

# The columns add up to the priority (truncated), which is the job's priority in squeue.
for id in "$r" "$p"; do
  prio=$(sprio -h -j "$id" -o '%Y' | tr -d ' ')
  expect "squeue priority of $id" "$prio" "$(squeue -h -j "$id" -o '%Q')"
  sum=$(sprio -h -n -j "$id" -o '%a %f %j %p %q %t' | awk '{
      split($6, t, ","); tres = 0
      for (i in t) { split(t[i], kv, "="); tres += kv[1] == "cpu" ? kv[2] * 100 : kv[2] * 150 }
      print int($1 * 1000 + $2 * 10000 + $3 * 1000 + $4 * 1000 + $5 * 1000 + tres) }')
  diff=$((prio - sum))
  [ "${diff#-}" -le 2 ] || fail "job $id: priority $prio but its factors add up to $sum"
done
[ "$(squeue -h -j "$r" -o '%Q')" -gt "$(squeue -h -j "$p" -o '%Q')" ] || fail "research below prod"

# Two partitions: high (PriorityTier 10) first.
expect "two partitions" "high
a4" "$(sprio -h -j "$two" -o '%r' | tr -d ' ')"
expect "no such job" "Unable to find jobs matching user/id(s) specified" "$(sprio -j 999999)"

# sshare: the tree, Fair Tree's factors.
expect "sshare header" "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare" \
  "$(sshare -a -P | head -1)"
expect "sshare research" "1.000000" "$(sshare -a -P -n | awk -F'|' '$1 == "  research" {print $7}')"
expect "sshare prod" "0.333333" "$(sshare -a -P -n | awk -F'|' '$1 == "  prod" {print $7}')"
[ "$(sshare -a -P -n | awk -F'|' '$1 == " prod" {print $5}')" -gt 0 ] || fail "prod has no usage"
expect "sshare -l columns" \
  "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins" \
  "$(sshare -l -P | head -1)"
# Association Priority: research's users inherit it; the largest is research's, so ASSOC = 1000.
sacctmgr -i modify account research set Priority=100 >/dev/null || fail "set Priority"
expect "sacctmgr Priority" "research|$me|100|" \
  "$(sacctmgr -n -p show assoc account=research user="$me" format=account,user,priority)"
r2=$(sbatch --parsable -A research --begin=now+1hour -o /dev/null --wrap true) || fail "r2"
p2=$(sbatch --parsable -A prod --begin=now+1hour -o /dev/null --wrap true) || fail "p2"
wait_for 20 same_priority "$r2" && wait_for 20 same_priority "$p2" ||
  fail "squeue's priority of $r2 or $p2 is not sprio's"
expect "research ASSOC" "1000" "$(sprio -h -j "$r2" -o '%B' | tr -d ' ')"
expect "prod ASSOC" "0" "$(sprio -h -j "$p2" -o '%B' | tr -d ' ')"

# Billing: 2 x 2 CPUs + 0.5 x 3 GiB = 5.5 -> billing=5 in high; CPUs (2) in a4.
b=$(sbatch --parsable -A research -p high -n 2 --mem=3G -o /dev/null --wrap 'sleep 1') || fail "b"
a=$(sbatch --parsable -A research -p a4 -n 2 --mem=3G -o /dev/null --wrap 'sleep 1') || fail "a"
wait_state "$b" COMPLETED 60
wait_state "$a" COMPLETED 60
expect "high billing" "billing=5" "$(scontrol show job "$b" | grep -o 'billing=[0-9]*')"
expect "a4 billing" "billing=2" "$(scontrol show job "$a" | grep -o 'billing=[0-9]*')"
expect "sacct AllocTRES" "billing=5,cpu=2,mem=3G,node=1" \
  "$(sacct -n -X -P -j "$b" -o AllocTRES)"
echo "priority: ok"
