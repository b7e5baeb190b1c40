#!/bin/bash
#SBATCH -N 2 -J demo -o demo-%j.out
# A 2-node batch job for the demo cluster (examples/demo.json):
#   eval "$(gantry env)" && sbatch examples/demo-job.sh && squeue
# It prints where it runs, then pretends to train for a few steps.
echo "job ${SLURM_JOB_ID} (${SLURM_JOB_NAME}) on ${SLURM_JOB_NUM_NODES} nodes: ${SLURM_JOB_NODELIST}"
echo "batch script running on ${SLURMD_NODENAME:-$(hostname)}"
steps=5
loss=2.50
for step in $(seq 1 "$steps"); do
  sleep 1
  loss=$(awk -v l="$loss" 'BEGIN { printf "%.2f", l * 0.7 }')
  echo "step ${step}/${steps} loss ${loss}"
done
echo "done"
