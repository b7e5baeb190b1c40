#!/usr/bin/env bash
# Accounting with AccountingStorageEnforce=associations,limits,qos: the seed's
# `sacctmgr add User Accounts=<account> Partition=<partition> <user>` lets that user submit to
# that partition and nowhere else; sacctmgr's listings, changes and errors as Slurm 22.05's.
# With GANTRY_TEST_POSTGRES_FILE (tests/store/postgres.sh's settings) the cluster keeps its state
# and job history in a PostgreSQL database of its own: the same suite for both backends.
# Skipped (77) when not root (it creates a unix user) or when that file names no server.
# usage: accounting.sh BIN_DIR SOURCE_ROOT
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create a user"; exit 77; }
if [ -n "${GANTRY_TEST_POSTGRES_FILE:-}" ] && [ ! -s "$GANTRY_TEST_POSTGRES_FILE" ]; then
  echo "SKIP: no PostgreSQL server for the tests"
  exit 77
fi
source "$(dirname "$0")/lib.sh" "$1" "$2" "$2/tests/integration/specs/accounting.json"
u=gacct$$
useradd -M -d "$WORK" -s /bin/bash "$u" || fail "useradd"
pg=()  # createdb/dropdb connection flags when the store is PostgreSQL
if [ -n "${GANTRY_TEST_POSTGRES_FILE:-}" ]; then
  read -r host port user <<<"$(sed 's/host=\([^ ]*\) port=\([^ ]*\) user=\([^ ]*\)/\1 \2 \3/' \
    "$GANTRY_TEST_POSTGRES_FILE")"
  pg=(-h "$host" -p "$port" -U "$user")
  db=gantry_acct_$$
  createdb "${pg[@]}" "$db" || fail "createdb"
  sed "s|\"AccountingStorageEnforce\"|\"AccountingStorageType\": \"accounting_storage/postgresql\", \"AccountingStorageHost\": \"$host\", \"AccountingStoragePort\": \"$port\", \"AccountingStorageUser\": \"$user\", \"AccountingStorageParameters\": \"dbname=$db\", &|" \
    "$SPEC" >"$WORK/postgres-spec.json"
  SPEC=$WORK/postgres-spec.json
fi
# cleanup reads the script's exit status from $?: keep it past userdel and dropdb.
trap 'rc=$?; userdel "$u" 2>/dev/null; [ ${#pg[@]} = 0 ] || { "$BIN/gantry" down --state-dir "$STATE" >/dev/null 2>&1; dropdb --force "${pg[@]}" "$db"; }; (exit $rc); cleanup' EXIT
start_cluster
if [ ${#pg[@]} != 0 ]; then
  [ ! -e "$STATE/state.db" ] || fail "the state went to state.db, not PostgreSQL"
  [ "$(psql "${pg[@]}" -d "$db" -Atc "SELECT count(*) FROM gantry_store")" = 1 ] ||
    fail "no Gantry store in PostgreSQL database $db"
fi
mkdir -p "$WORK/$u" && chown "$u" "$WORK/$u"
as() { (cd "$WORK/$u" && runuser -u "$u" -- env PATH="$PATH" GANTRY_CONF="$GANTRY_CONF" "$@"); }
# A new cluster has root's account and user, and QOS normal.
expect "list user" "      User   Def Acct     Admin 
---------- ---------- --------- 
      root       root Administ+ " "$(sacctmgr list user)"
expect "show qos" "normal|0|1.000000" "$(sacctmgr -nP show qos format=name,priority,usagefactor)"

# Without an association the user cannot submit.
out=$(as sbatch --wrap true 2>&1) && fail "submitted without an association"
expect "no association" "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" "$out"

# The seed's commands.
out=$(sacctmgr -i add account research Description="ML research" Organization=lab)
expect "add account" " Adding Account(s)
  research
 Settings
  Description     = ML research
  Organization    = lab
 Associations
  A = research   C = acct      
 Settings
  Parent        = root" "$out"
out=$(sacctmgr -i add User Accounts=research Partition=debug "$u")
expect "add user" " Adding User(s)
  $u
 Associations =
  U = $(printf '%-9.9s' "$u") A = research   C = acct       P = debug     
 Non Default Settings" "$out"
out=$(sacctmgr -i add user "$u" Account=research Partition=debug) && fail "added twice"
expect "add again" " Nothing new added." "$out"

# That partition only.
id=$(as sbatch --parsable -p debug --wrap 'echo ok') || fail "sbatch -p debug"
wait_state "$id" COMPLETED
[ "$(scontrol show job "$id" | grep -o 'Account=[^ ]*')" = "Account=research" ] || fail "account"
[ "$(sacct -nX -j "$id" -o account%-12 | tr -d ' ')" = research ] || fail "sacct account"
out=$(as sbatch -p cpu --wrap true 2>&1) && fail "submitted to cpu"
expect "other partition" "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" "$out"
out=$(as sbatch -p debug -A root --wrap true 2>&1) && fail "submitted to account root"
out=$(as sbatch -p debug --qos=nosuch --wrap true 2>&1) && fail "submitted with an unknown QOS"
expect "bad qos" "sbatch: error: Batch job submission failed: Invalid qos specification" "$out"

# A QOS the association does not allow, then allowed.
sacctmgr -i add qos fast Priority=10 >/dev/null || fail "add qos"
out=$(as sbatch -p debug --qos=fast --wrap true 2>&1) && fail "used a QOS not granted"
out=$(sacctmgr -i modify user "$u" set QOS=fast,normal)
expect "modify qos" " Modified user associations...
  C = acct       A = research             U = $(printf '%-9.9s' "$u") P = debug" "$out"
as sbatch -p debug --qos=fast --wrap true >/dev/null || fail "QOS fast once granted"

# Listings.
expect "list assoc" "acct|root|||1|normal
acct|root|root||1|normal
acct|research|||1|normal
acct|research|$u|debug|1|fast,normal" \
  "$(sacctmgr -nP list assoc format=cluster,account,user,partition,share,qos)"
expect "list account" "research|ML research|lab
root|default root account|root" "$(sacctmgr -nP list account)"
expect "tree" "root                 
 root                
 research            
  research           " "$(sacctmgr -n list assoc tree format=account)"

# Limits, as in the reference's limits.txt: MaxSubmitJobs refuses at submit, MaxJobs keeps
# jobs pending with Slurm's reason until a running one ends.
out=$(sacctmgr -i modify user "$u" set MaxSubmitJobs=2)
expect "modify limit" " Modified user associations...
  C = acct       A = research             U = $(printf '%-9.9s' "$u") P = debug" "$out"
expect "list limit" "2" "$(sacctmgr -nP list assoc user="$u" format=maxsubmit)"
h1=$(as sbatch --parsable -p debug -H --wrap true) || fail "first held job"
h2=$(as sbatch --parsable -p debug -H --wrap true) || fail "second held job"
out=$(as sbatch -p debug -H --wrap true 2>&1) && fail "third job past MaxSubmitJobs=2"
expect "MaxSubmitJobs" "sbatch: error: AssocMaxSubmitJobLimit
sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" "$out"
scancel "$h1" "$h2"
sacctmgr -i modify user "$u" set MaxSubmitJobs=-1 MaxJobs=1 >/dev/null || fail "MaxJobs=1"
r1=$(as sbatch --parsable -p debug --wrap 'sleep 300') || fail "first running job"
r2=$(as sbatch --parsable -p debug --wrap true 2>"$WORK/r2.err") || fail "second job: $(cat "$WORK/r2.err")"
wait_state "$r1" RUNNING
reason_is() { [ "$(squeue -h -j "$1" -o %r)" = "$2" ]; }
wait_for 20 reason_is "$r2" AssocMaxJobsLimit || fail "reason $(squeue -h -j "$r2" -o %r)"
[ "$(job_state "$r2")" = PENDING ] || fail "second job started past MaxJobs=1"
scancel "$r1"
wait_state "$r2" COMPLETED
sacctmgr -i modify user "$u" set MaxJobs=-1 >/dev/null || fail "clear MaxJobs"
# GrpTRES on the account: one CPU (each job here gets one; nodes are shared).
cpus=1
node_cpus=$(sinfo -h -N -o %c | head -1 | tr -d ' ')
out=$(sacctmgr -i modify account research set GrpTRES=cpu="$cpus")
expect "GrpTRES" " Modified account associations...
  C = acct       A = research of root" "$out"
g1=$(as sbatch --parsable -p debug --wrap 'sleep 300') || fail "first job under GrpTRES"
g2=$(as sbatch --parsable -p debug --wrap true) || fail "second job under GrpTRES"
wait_state "$g1" RUNNING
wait_for 20 reason_is "$g2" AssocGrpCpuLimit || fail "reason $(squeue -h -j "$g2" -o %r)"
scancel "$g1"
wait_state "$g2" COMPLETED
sacctmgr -i modify account research set GrpTRES=-1 >/dev/null || fail "clear GrpTRES"
# The reference's QOS 'short' (MaxWall=00:10:00), granted with QOS+=.
sacctmgr -i add qos short MaxWall=00:10:00 Priority=100 >/dev/null || fail "add qos short"
sacctmgr -i modify user "$u" set QOS+=short >/dev/null || fail "grant short"
q1=$(as sbatch --parsable -p debug --qos=short -t 5 --wrap true) || fail "short -t 5"
q2=$(as sbatch --parsable -p debug --qos=short -t 20 --wrap true) || fail "short -t 20"
wait_state "$q1" COMPLETED
wait_for 20 reason_is "$q2" QOSMaxWallDurationPerJobLimit || fail "reason $(squeue -h -j "$q2" -o %r)"
scancel "$q2"
# Per-user limits of a QOS.
sacctmgr -i modify qos short set MaxJobsPU=1 MaxSubmitPU=2 >/dev/null || fail "QOS per-user limits"
expect "list qos" "1|2" "$(sacctmgr -nP list qos short format=maxjobspu,maxsubmitpu)"
p1=$(as sbatch --parsable -p debug --qos=short -t 5 --wrap 'sleep 300') || fail "first short job"
p2=$(as sbatch --parsable -p debug --qos=short -t 5 --wrap true) || fail "second short job"
out=$(as sbatch -p debug --qos=short -t 5 --wrap true 2>&1) && fail "third past MaxSubmitPU=2"
expect "MaxSubmitPU" "sbatch: error: QOSMaxSubmitJobPerUserLimit
sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" "$out"
wait_state "$p1" RUNNING
wait_for 20 reason_is "$p2" QOSMaxJobsPerUserLimit || fail "reason $(squeue -h -j "$p2" -o %r)"
scancel "$p1"
wait_state "$p2" COMPLETED

# TRES limits per job and per node (MaxTRES, MaxTRESPerNode), set and cleared per TRES.
sacctmgr -i modify user "$u" set MaxTRES=cpu=2,node=1 MaxTRESPerNode=mem=1000 >/dev/null ||
  fail "MaxTRES"
sacctmgr -i modify user "$u" set MaxTRES=node=-1 >/dev/null || fail "clear MaxTRES node"
expect "list TRES limits" "cpu=2|mem=1000M" \
  "$(sacctmgr -nP list assoc user="$u" partition=debug format=maxtres,maxtrespernode)"
t1=$(as sbatch --parsable -p debug -c 4 --wrap true) || fail "job past MaxTRES"
t2=$(as sbatch --parsable -p debug --mem=2000 --wrap true) || fail "job past MaxTRESPerNode"
wait_for 20 reason_is "$t1" AssocMaxCpuPerJobLimit || fail "reason $(squeue -h -j "$t1" -o %r)"
wait_for 20 reason_is "$t2" AssocMaxMemPerNode || fail "reason $(squeue -h -j "$t2" -o %r)"
sacctmgr -i modify user "$u" set MaxTRES=cpu=-1 MaxTRESPerNode=mem=-1 >/dev/null || fail "clear"
wait_state "$t1" COMPLETED
wait_state "$t2" COMPLETED
# A QOS's TRES per user and TRES run minutes: one running job holds all of MaxTRESPU=cpu=$cpus,
# and one 10-minute job all of GrpTRESRunMins=cpu=$((cpus * 10)).
out=$(sacctmgr -i add qos lim MaxTRESPU=cpu="$cpus")
expect "add qos lim" " Adding QOS(s)
  lim
 Settings
  Description    = lim
  MaxTRESPerUser           = cpu=$cpus" "$out"
sacctmgr -i modify user "$u" set QOS+=lim >/dev/null || fail "grant lim"
l1=$(as sbatch --parsable -p debug -q lim -t 10 --wrap 'sleep 300') || fail "first lim job"
l2=$(as sbatch --parsable -p debug -q lim -t 10 --wrap true) || fail "second lim job"
wait_state "$l1" RUNNING
wait_for 20 reason_is "$l2" QOSMaxCpuPerUserLimit || fail "reason $(squeue -h -j "$l2" -o %r)"
sacctmgr -i modify qos lim set MaxTRESPU=cpu=-1 GrpTRESRunMins=cpu=$((cpus * 10)) >/dev/null ||
  fail "GrpTRESRunMins"
expect "list qos lim" "|cpu=$((cpus * 10))" \
  "$(sacctmgr -nP list qos lim format=maxtrespu,grptresrunmins)"
wait_for 20 reason_is "$l2" QOSGrpCPURunMinutesLimit || fail "reason $(squeue -h -j "$l2" -o %r)"
scancel "$l1"
wait_state "$l2" COMPLETED
# DenyOnLimit: a job that breaks a limit on its own is refused at submission.
sacctmgr -i modify qos lim set GrpTRESRunMins=cpu=-1 MinTRES=cpu=2 Flags=DenyOnLimit >/dev/null ||
  fail "DenyOnLimit"
out=$(as sbatch -p debug -q lim -c 1 --wrap true 2>&1) && fail "a job under MinTRES was accepted"
expect "DenyOnLimit" "sbatch: error: QOSMinCpuNotSatisfied
sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" "$out"
d1=$(as sbatch --parsable -p debug -q lim -c 2 --wrap true) || fail "a job within MinTRES"
wait_state "$d1" COMPLETED
# GrpTRESMins counts the CPU minutes used; RawUsage=0 starts them again.
m1=$(as sbatch --parsable -p debug -t 1 -c "$node_cpus" --wrap 'sleep 9') ||
  fail "job that uses CPU minutes"
wait_state "$m1" COMPLETED
sacctmgr -i modify account research set GrpTRESMins=cpu=1 >/dev/null || fail "GrpTRESMins"
m2=$(as sbatch --parsable -p debug -t 1 --wrap true) || fail "job under GrpTRESMins"
wait_for 20 reason_is "$m2" AssocGrpCPUMinutesLimit || fail "reason $(squeue -h -j "$m2" -o %r)"
out=$(as sacctmgr -i modify account research set RawUsage=0 2>&1) && fail "a user reset usage"
sacctmgr -i modify account research set RawUsage=0 >/dev/null || fail "RawUsage=0"
wait_state "$m2" COMPLETED
sacctmgr -i modify account research set GrpTRESMins=cpu=-1 >/dev/null || fail "clear GrpTRESMins"
# GrpJobs and GrpSubmitJobs on the account.
sacctmgr -i modify account research set GrpJobs=1 GrpSubmitJobs=2 >/dev/null || fail "GrpJobs"
j1=$(as sbatch --parsable -p debug --wrap 'sleep 300') || fail "first job under GrpJobs"
j2=$(as sbatch --parsable -p debug --wrap true) || fail "second job under GrpJobs"
out=$(as sbatch -p debug --wrap true 2>&1) && fail "third job past GrpSubmitJobs=2"
expect "GrpSubmitJobs" "sbatch: error: AssocGrpSubmitJobsLimit
sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" "$out"
wait_state "$j1" RUNNING
wait_for 20 reason_is "$j2" AssocGrpJobsLimit || fail "reason $(squeue -h -j "$j2" -o %r)"
scancel "$j1"
wait_state "$j2" COMPLETED
sacctmgr -i modify account research set GrpJobs=-1 GrpSubmitJobs=-1 >/dev/null || fail "clear"
# MaxWall and MaxTRESMins on the user's association.
sacctmgr -i modify user "$u" set MaxWall=10 MaxTRESMins=cpu=20 >/dev/null || fail "MaxWall"
w1=$(as sbatch --parsable -p debug -t 20 --wrap true) || fail "job past MaxWall"
w2=$(as sbatch --parsable -p debug -t 5 -c 8 --wrap true) || fail "job past MaxTRESMins"
wait_for 20 reason_is "$w1" AssocMaxWallDurationPerJobLimit ||
  fail "reason $(squeue -h -j "$w1" -o %r)"
wait_for 20 reason_is "$w2" AssocMaxCpuMinutesPerJobLimit ||
  fail "reason $(squeue -h -j "$w2" -o %r)"
sacctmgr -i modify user "$u" set MaxWall=-1 MaxTRESMins=cpu=-1 >/dev/null || fail "clear"
wait_state "$w1" COMPLETED
wait_state "$w2" COMPLETED
# GrpWall: four jobs of 16 s are over a minute of the account's wall time.
sacctmgr -i modify account research set RawUsage=0 >/dev/null || fail "RawUsage=0"
for i in 1 2 3 4; do
  as sbatch --parsable -p debug -t 1 --wrap 'sleep 16' >"$WORK/wall$i" || fail "wall job $i"
done
for i in 1 2 3 4; do wait_state "$(cat "$WORK/wall$i")" COMPLETED 60; done
sacctmgr -i modify account research set GrpWall=1 >/dev/null || fail "GrpWall"
expect "list GrpWall" "00:01:00" "$(sacctmgr -nP list assoc account=research user= format=grpwall)"
g=$(as sbatch --parsable -p debug -t 1 --wrap true) || fail "job under GrpWall"
wait_for 20 reason_is "$g" AssocGrpWallLimit || fail "reason $(squeue -h -j "$g" -o %r)"
sacctmgr -i modify account research set RawUsage=0 >/dev/null || fail "RawUsage=0"
wait_state "$g" COMPLETED
sacctmgr -i modify account research set GrpWall=-1 >/dev/null || fail "clear GrpWall"

# Only administrators change anything.
out=$(as sacctmgr -i add account evil 2>&1 >/dev/null) && fail "a user added an account"
expect "not admin" " Problem adding accounts: Access/permission denied" "$out"
out=$(as sacctmgr -i modify user "$u" set AdminLevel=Administrator 2>&1) && fail "self-promotion"
expect "not admin modify" "sacctmgr: error: Your user doesn't have privilege to perform this action
 Error with request: Access/permission denied" "$out"

# Errors name what is wrong and change nothing.
out=$(sacctmgr -i add user someone Account=nosuch 2>&1) && fail "unknown account"
expect "unknown account" " This account 'nosuch' doesn't exist.
        Contact your admin to add this account.
 No associations or wckeys created." "$out"
out=$(sacctmgr -i modify user "$u" set NoSuchField=1 2>&1) && fail "unknown field"
expect "unknown field" " Unknown option: NoSuchField=1
 Use keyword 'where' to modify condition" "$out"
out=$(sacctmgr -i delete user nosuchuser) && fail "deleted nothing"
expect "delete nothing" " Nothing deleted" "$out"
out=$(sacctmgr list bogus 2>&1) && fail "list bogus"

# Without -i the change waits for a yes.
out=$(echo n | sacctmgr add account maybe)
echo "$out" | grep -q "Changes Discarded" || fail "no discard: $out"
[ -z "$(sacctmgr -nP list account maybe)" ] || fail "discarded account exists"

# A user with pending jobs keeps its association; once they are gone, it can go.
held=$(as sbatch --parsable -p debug -H --wrap true) || fail "held job"
out=$(sacctmgr -i delete user "$u" 2>&1) && fail "deleted a user with jobs"
expect "active jobs" " Error with request: Job(s) active, cancel job(s) before remove" "$out"
scancel "$held"
wait_state "$held" CANCELLED
out=$(sacctmgr -i delete user "$u")
expect "delete user" " Deleting users...
  $u" "$out"
out=$(as sbatch -p debug --wrap true 2>&1) && fail "submitted after deletion"

# Usage: a job that burns 1.5 s of CPU, touches 200 MiB, writes 32 MiB to disk and writes down
# what it used (os.times, getrusage); sacct's TotalCPU and MaxRSS on its batch line are within
# 10 % of that, and the sampled MaxVMSize, AveRSS and MaxDiskWrite (JobAcctGatherFrequency=1)
# agree with it.
# The interpreter itself, not a wrapper (pyenv's shim is a shell script whose own CPU time the
# job's TotalCPU would count).
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3 || true)
if [ -n "$python" ]; then
  cat >"$WORK/burn.py" <<'PY'
import os, resource, sys, time
b = bytearray(200 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
t = time.process_time()
while time.process_time() - t < 1.5:
    pass
with open(sys.argv[1] + ".data", "wb") as f:
    f.write(b"x" * (32 << 20))
    f.flush()
    os.fsync(f.fileno())
time.sleep(4)  # samples (1 s apart) after the write, even on a slow machine
used = os.times()
with open(sys.argv[1], "w") as f:
    f.write("%d %d\n" % ((used.user + used.system) * 1000,
                         resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
PY
  chmod 644 "$WORK/burn.py"
  id=$(sbatch --parsable -p debug -o /dev/null --wrap "$python $WORK/burn.py $WORK/burn.out") ||
    fail "burn job"
  wait_state "$id" COMPLETED 60
  read -r real_ms real_kib <"$WORK/burn.out"
  IFS='|' read -r total rss < <(sacct -nP -j "$id.batch" -o TotalCPU,MaxRSS)
  ms=$(echo "$total" | awk -F'[:.]' '{print ($1 * 60 + $2) * 1000 + $3}')
  case $rss in  # sacct shows a whole number of MiB or GiB in M or G
    *G) kib=$((${rss%G} * 1048576)) ;;
    *M) kib=$((${rss%M} * 1024)) ;;
    *) kib=${rss%K} ;;
  esac
  within() { [ $(($1 * 10)) -ge $(($2 * 9)) ] && [ $(($1 * 10)) -le $(($2 * 11)) ]; }
  within "$ms" "$real_ms" || fail "TotalCPU $total, the job used $real_ms ms"
  within "$kib" "$real_kib" || fail "MaxRSS $rss, the job used $real_kib KiB"
  IFS='|' read -r vm ave written < <(sacct -nP --noconvert -j "$id.batch" \
    -o MaxVMSize,AveRSS,MaxDiskWrite)
  # Samples see the 200 MiB the job holds throughout (not the brief peak of its write buffer).
  [ "${vm%K}" -ge 204800 ] || fail "MaxVMSize $vm, the job held 200 MiB for seconds"
  [ "${ave%K}" -gt 0 ] && [ "${ave%K}" -le "$kib" ] || fail "AveRSS $ave (MaxRSS $kib KiB)"
  [ "$written" -ge $((32 << 20)) ] || fail "MaxDiskWrite $written, the job wrote 32 MiB"
  [ -n "$(sacct -nP -j "$id" -X -o TotalCPU)" ] || fail "no TotalCPU on the job line"
  # The same under srun: the step's line has the task's usage (srun samples and reaps it).
  id=$(sbatch --parsable -p debug -o /dev/null \
    --wrap "srun $python $WORK/burn.py $WORK/step.out") || fail "srun burn job"
  wait_state "$id" COMPLETED 60
  read -r real_ms real_kib <"$WORK/step.out"
  IFS='|' read -r total rss < <(sacct -nP --noconvert -j "$id.0" -o TotalCPU,MaxRSS)
  ms=$(echo "$total" | awk -F'[:.]' '{print ($1 * 60 + $2) * 1000 + $3}')
  within "$ms" "$real_ms" || fail "step TotalCPU $total, the task used $real_ms ms"
  within "${rss%K}" "$real_kib" || fail "step MaxRSS $rss, the task used $real_kib KiB"
  IFS='|' read -r vm ave written < <(sacct -nP --noconvert -j "$id.0" \
    -o MaxVMSize,AveRSS,MaxDiskWrite)
  [ "${vm%K}" -ge 204800 ] || fail "step MaxVMSize $vm, the task held 200 MiB for seconds"
  [ "${ave%K}" -gt 0 ] || fail "step AveRSS $ave"
  [ "$written" -ge $((32 << 20)) ] || fail "step MaxDiskWrite $written, the task wrote 32 MiB"
fi

# Durable: the database survives a controller restart.
"$BIN/gantry" down --state-dir "$STATE" >/dev/null || fail "down"
"$BIN/gantry" up --spec "$SPEC" --state-dir "$STATE" >/dev/null 2>&1 || fail "up again"
wait_for 30 nodes_idle || fail "nodes after restart"
expect "after restart" "research|ML research|lab
root|default root account|root" "$(sacctmgr -nP list account)"
echo PASS
