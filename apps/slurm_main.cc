// gantry-slurm: the Slurm-compatible commands (sbatch, squeue, scancel, sinfo, scontrol) in one
// binary; the build links each command name to it, and `gantry-slurm <command> ...` works too.
#include "slurm/commands.h"

int main(int argc, char** argv) { return gantry::slurm::SlurmMain(argc, argv); }
