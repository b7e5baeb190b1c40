#!/usr/bin/env bash
# H4 and M3: a job's owner could `scontrol update` it into a RootOnly partition, another group's
# partition, or an unknown account and QOS (which skipped every limit); AllowAccounts was not
# enforced and AllowGroups saw only the primary group. Now an update admits the job again as
# its owner would have submitted it, and the partition lists are enforced.
# usage: h4_update_admission.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@" "$(dirname "$0")/specs/access.json"
team=gst$$
groupadd "$team" || fail "groupadd"
AT_EXIT="groupdel $team"
usermod -a -G "$team" "$BOB" || fail "usermod"  # bob: supplementary group only
sed "s|@TEAM@|$team|" "$SPEC" >"$WORK/access.json"
SPEC=$WORK/access.json
start_cluster
sacctmgr -i add account research >/dev/null || fail "add account"
sacctmgr -i add account vip >/dev/null || fail "add account vip"
for u in "$ALICE" "$BOB"; do
  sacctmgr -i add user "$u" Account=research >/dev/null || fail "add user $u"
done
sacctmgr -i add user "$ALICE" Account=vip >/dev/null || fail "add alice to vip"
sacctmgr -i modify user "$ALICE" set MaxJobs=1 >/dev/null || fail "MaxJobs"

submit_error() {  # USER ARGS...: sbatch's error line
  local user=$1
  shift
  as "$user" sbatch "$@" --wrap true 2>&1 >/dev/null && fail "$user: sbatch $* was accepted"
}
update_error() {  # USER JOB KEY=VALUE: scontrol's error, without its " for job N"
  local out
  out=$(as "$1" scontrol update JobId="$2" "$3" 2>&1) && fail "$1: scontrol update $3 of $2 succeeded"
  echo "${out% for job $2}"
}

# Submission: RootOnly, AllowGroups (bob through a supplementary group), AllowAccounts.
expect "RootOnly" "sbatch: error: Batch job submission failed: Access/permission denied" \
  "$(submit_error "$ALICE" -p admin)"
expect "AllowGroups" \
  "sbatch: error: Batch job submission failed: User's group not permitted to use this partition" \
  "$(submit_error "$ALICE" -p team)"
as "$BOB" sbatch -H -p team --wrap true >/dev/null || fail "bob (supplementary group) refused"
expect "AllowAccounts" "sbatch: error: Batch job submission failed: Invalid account or \
account/partition combination specified" "$(submit_error "$ALICE" -p vip -A research)"
as "$ALICE" sbatch -H -p vip -A vip --wrap true >/dev/null || fail "vip refused its account"

# Updates: the same rules as the job's owner, whoever asks.
id=$(as "$ALICE" sbatch --parsable -H -A research --wrap true) || fail "sbatch -H"
expect "update into admin" "Access/permission denied" "$(update_error "$ALICE" "$id" Partition=admin)"
expect "update into team" "User's group not permitted to use this partition" \
  "$(update_error "$ALICE" "$id" Partition=team)"
expect "update into vip" "Invalid account or account/partition combination specified" \
  "$(update_error "$ALICE" "$id" Partition=vip)"
expect "root moving alice's job into team" "User's group not permitted to use this partition" \
  "$(update_error root "$id" Partition=team)"
expect "unknown account" "Invalid account or account/partition combination specified" \
  "$(update_error "$ALICE" "$id" Account=zzz)"
expect "unknown QOS" "Invalid qos specification" "$(update_error "$ALICE" "$id" QOS=zzz)"
[ "$(job_field "$id" Partition)" = cpu ] || fail "partition $(job_field "$id" Partition)"
[ "$(job_field "$id" Account)" = research ] || fail "account $(job_field "$id" Account)"

# The limit the review escaped: alice's MaxJobs=1 holds her second job, whatever she updates.
first=$(as "$ALICE" sbatch --parsable -A research --wrap 'sleep 300') || fail "sbatch"
wait_state "$first" RUNNING
as "$ALICE" scontrol release "$id" || fail "release"
wait_until 30 '[ "$(job_field "$id" Reason)" = AssocMaxJobsLimit ]' ||
  fail "reason $(job_field "$id" Reason)"
update_error "$ALICE" "$id" Account=zzz >/dev/null
update_error "$ALICE" "$id" QOS=zzz >/dev/null
sleep 1
[ "$(job_state "$id")" = PENDING ] || fail "the limited job started: $(job_state "$id")"
echo PASS
