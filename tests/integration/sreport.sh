#!/usr/bin/env bash
# sreport on a real cluster: two jobs of known CPU counts and run times, under two accounts of the
# same user, then sreport's cluster utilization, AccountUtilizationByUser, TopUsage and
# SizesByAccount in CPU seconds must be those CPUs times those run times (sacct's AllocCPUS and
# ElapsedRaw), a drained node must show as down time, and the parts must add up to Reported.
# sreport rounds its period to whole hours and never ends it after now, so a report of the current
# hour only exists from :30 on: the reports run in a time zone (TZ) whose clock shows about :45.
# usage: sreport.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$1" "$2"
start_cluster
me=$(id -un)

# A second account for the same user: its jobs run with -A research.
sacctmgr -i add account research >/dev/null || fail "add account"
sacctmgr -i add user "$me" Account=research >/dev/null || fail "add association"

a=$(sbatch --parsable -N 1 --wrap 'sleep 3') || fail "sbatch a"
b=$(sbatch --parsable -N 2 -A research --wrap 'sleep 5') || fail "sbatch b"
wait_state "$a" COMPLETED 60
wait_state "$b" COMPLETED 60

# CPU seconds of each job from sacct.
cpu_seconds() {
  sacct -nP -X -j "$1" -o AllocCPUS,ElapsedRaw | awk -F'|' '{print $1 * $2}'
}
sa=$(cpu_seconds "$a")
sb=$(cpu_seconds "$b")
cpus_b=$(sacct -nP -X -j "$b" -o AllocCPUS)
[ "$sa" -gt 0 ] && [ "$sb" -gt "$sa" ] || fail "job times: a=$sa b=$sb"
total=$((sa + sb))
cluster_cpus=$(scontrol show node | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p' | awk '{n += $1} END {print n}')
cluster=$(scontrol show config | sed -n 's/^ClusterName *= *//p')

# A zone whose minutes read about :45 now (POSIX TZ: "GNT-0:15" is UTC+00:15).
utc_minute=$((10#$(date -u +%M)))
shift_min=$(((45 - utc_minute + 60) % 60))
export TZ
TZ=$(printf 'GNT-0:%02d' "$shift_min")
hour_start=$(date -d "$(date +'%F %H'):00" +%s)
period="start=now-1hours end=now"

# Cluster utilization: allocated is the jobs' CPU seconds; the header names the current hour.
out=$(sreport -t seconds cluster utilization $period)
expect "utilization header" "--------------------------------------------------------------------------------
Cluster Utilization $(date -d "@$hour_start" +%FT%T) - $(date -d "@$((hour_start + 3599))" +%FT%T)
Usage reported in CPU Seconds
--------------------------------------------------------------------------------" \
  "$(head -4 <<<"$out")"
line=$(sreport -nP -t seconds cluster utilization $period \
  format=cluster,allocated,down,planneddown,idle,reserved,reported,count)
IFS='|' read -r name alloc down pdown idle planned reported count <<<"$line"
expect "cluster" "$cluster" "$name"
expect "allocated" "$total" "$alloc"
expect "cpu count" "$cluster_cpus" "$count"
expect "planned down" 0 "$pdown"
expect "reported = allocated + down + idle + planned" "$reported" \
  "$((alloc + down + pdown + idle + planned))"
[ "$reported" -gt "$total" ] || fail "reported $reported is not more than allocated $total"

# Accounts and users.
expect "AccountUtilizationByUser" "$cluster|root||$total
$cluster|root|$me|$sa
$cluster|research||$sb
$cluster|research|$me|$sb" \
  "$(sreport -nP -t seconds cluster AccountUtilizationByUser $period format=cluster,account,login,used)"
expect "Tree" "root|$total
 root|$sa
 research|$sb
  research|$sb" \
  "$(sreport -nP -t seconds cluster AccountUtilizationByUser $period tree format=account,used)"
expect "TopUsage" "$me|research|$sb
$me|root|$sa" "$(sreport -nP -t seconds user top $period format=login,account,used)"
expect "TopUsage Group" "$me|root, research|$total" \
  "$(sreport -nP -t seconds user top $period group format=login,account,used)"
expect "TopUsage TopCount=1" "$me|research|$sb" \
  "$(sreport -nP -t seconds user top $period topcount=1 format=login,account,used)"
minutes=$(awk -v s="$total" 'BEGIN {printf "%.0f", s / 60}')
expect "minutes" "$cluster|root||$minutes" \
  "$(sreport -nP cluster AccountUtilizationByUser $period format=cluster,account,login,used |
    head -n 1)"

# Job sizes: job a's CPUs below the second bucket, job b's in it.
pct() { awk -v a="$1" -v t="$2" 'BEGIN {printf "%.2f%%", a * 100 / t}'; }
expect "SizesByAccount FlatView" "$cluster|research|0|$sb|0|$(pct "$sb" "$total")
$cluster|root|$sa|0|0|$(pct "$sa" "$total")" \
  "$(sreport -nP -t seconds job SizesByAccount $period flatview grouping="$cpus_b,$((cpus_b + 1))")"
expect "SizesByAccount" "$cluster|root|$sa|$sb|0|100.00%" \
  "$(sreport -nP -t seconds job SizesByAccount $period grouping="$cpus_b,$((cpus_b + 1))")"
expect "PrintJobCount" "$cluster|root|1|1|0|100.00%" \
  "$(sreport -nP job SizesByAccount $period printjobcount grouping="$cpus_b,$((cpus_b + 1))")"

# A drained node is down time from its reason time on.
node=$(sinfo -h -N -o '%N' | head -1)
scontrol update NodeName="$node" State=DRAIN Reason="sreport test" || fail "drain"
sleep 2
line=$(sreport -nP -t seconds cluster utilization $period format=allocated,down,idle,reserved,reported)
IFS='|' read -r alloc down idle planned reported <<<"$line"
[ "$down" -gt 0 ] || fail "no down time for drained $node: $line"
node_cpus=$(scontrol show node "$node" | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p')
[ $((down % node_cpus)) = 0 ] || fail "down time $down is not a multiple of $node_cpus CPUs"
expect "with down time: parts add up" "$reported" "$((alloc + down + idle + planned))"
scontrol update NodeName="$node" State=RESUME || fail "resume"

# Bad input: Slurm's texts and exit codes.
out=$(sreport cluster bogus 2>&1) && fail "bogus report accepted"
expect "bad report" 'Not valid report bogus
Valid cluster reports are, "AccountUtilizationByUser", "UserUtilizationByAccount", "UserUtilizationByWckey", "Utilization", and "WCKeyUtilizationByUser"' "$out"
out=$(sreport -nP cluster utilization $period foo=bar 2>&1 >/dev/null) && fail "foo=bar accepted"
expect "bad condition" " Unknown condition: foo=bar
Use keyword set to modify value" "$out"
echo "PASS"
