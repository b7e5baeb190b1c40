// gantry-slurm: the Slurm-compatible commands (sbatch, squeue, scancel, sinfo, scontrol) in one
// binary; the build links each command name to it, and `gantry-slurm <command> ...` works too.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "slurm/commands.h"

int main(int argc, char** argv) {
  const int code = gantry::slurm::SlurmMain(argc, argv);
  // The command holds nothing that needs tearing down: flush the output and leave without
  // running static destructors (protobuf's shutdown alone is a tenth of an sbatch's CPU time).
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);
}
