#!/usr/bin/env bash
# H2: the agent removed a job's spool folder (the user's) as root by path names, so a user who
# swapped a folder in it for a symbolic link at the right moment made root delete files
# anywhere (the class of Slurm's CVE-2023-41914). Alice runs the review's swap loop against
# 60 short jobs of hers; root's file outside survives. The removal now walks directory
# descriptors opened without following links (agent/spool.cc; SpoolTest shows each case).
# usage: h2_spool_symlink_race.sh BIN_DIR SOURCE_ROOT
source "$(dirname "$0")/lib.sh" "$@"
start_cluster
mkdir "$WORK/canary"
touch "$WORK/canary/victim"
spools=$(ls -d "$STATE"/spool/*/)
# The swapper: a job of alice's, swapping every job folder's x for a link to the canary.
cat >"$WORK/$ALICE/swap.sh" <<SH
#!/bin/bash
end=\$((SECONDS + 40))
while [ \$SECONDS -lt \$end ] && [ ! -e $WORK/$ALICE/done ]; do
  for d in $(echo $spools | sed 's|/ | |g; s|/$||' | sed 's|\([^ ]*\)|\1/job_*|g'); do
    [ -d "\$d/x" ] || continue
    mv "\$d/x" "\$d/x.tmp" 2>/dev/null && ln -s $WORK/canary "\$d/x" 2>/dev/null
    rm -f "\$d/x" 2>/dev/null; mv "\$d/x.tmp" "\$d/x" 2>/dev/null
  done
done
SH
chmod 755 "$WORK/$ALICE/swap.sh"
swapper=$(as "$ALICE" sbatch --parsable -o /dev/null "$WORK/$ALICE/swap.sh") || fail "sbatch swap"
wait_state "$swapper" RUNNING
array=$(as "$ALICE" sbatch --parsable --array=1-60 -o /dev/null --wrap \
  'd=$(dirname $0); mkdir $d/x; for i in $(seq 50); do touch $d/x/victim$i; done; sleep 0.2') ||
  fail "sbatch array"
array_ended() { [ -z "$(squeue -h -t PD,R,CG -j "$array" 2>/dev/null)" ]; }
wait_for 120 array_ended || fail "the array did not end"
touch "$WORK/$ALICE/done"
[ -e "$WORK/canary/victim" ] || fail "root deleted a file outside the job's folder"
# Every job folder went (the links too), once the swapper stopped.
swapper_ended() { is_state "$swapper" COMPLETED; }
wait_for 45 swapper_ended || fail "the swapper did not end: $(job_state "$swapper")"
folders_gone() { [ -z "$(ls -d "$STATE"/spool/*/job_* 2>/dev/null)" ]; }
wait_for 15 folders_gone || fail "job folders left: $(ls -d "$STATE"/spool/*/job_*)"
echo PASS
