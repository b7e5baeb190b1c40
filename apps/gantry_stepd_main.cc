// gantry-stepd: one srun step's tasks on a node, started by gantry-agent (agent/step_keeper.h).
#include "agent/step_keeper.h"

int main(int argc, char** argv) { return gantry::agent::RunStepKeeper(argc, argv); }
