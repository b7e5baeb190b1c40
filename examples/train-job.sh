#!/bin/bash
#SBATCH -p gpu -N 2 --ntasks-per-node=4 --gpus-per-node=4 -J train -o train-%j.out
# A distributed "training" job for the demo cluster's GPU partition (examples/demo.json):
#   eval "$(gantry env)" && cd examples && sbatch train-job.sh   (allreduce.py is read from here)
# srun starts 8 tasks over the 2 nodes; each has its rank, its node's 4 GPUs and the
# rendezvous address PyTorch's init_process_group reads (MASTER_ADDR, MASTER_PORT). The tasks
# all-reduce a number over TCP there (examples/allreduce.py), as a first collective would.
echo "job ${SLURM_JOB_ID}: ${SLURM_NTASKS} tasks on ${SLURM_JOB_NODELIST}, rendezvous at ${MASTER_ADDR}:${MASTER_PORT}"
srun -l bash -c 'echo "rank $SLURM_PROCID on $SLURMD_NODENAME: GPUs $CUDA_VISIBLE_DEVICES"' | sort -n
srun python3 "${SLURM_SUBMIT_DIR}/allreduce.py"
