// gantry-keeper: the parent of one batch script, started by gantry-agent (agent/keeper.h).
#include "agent/keeper.h"

int main(int argc, char** argv) { return gantry::agent::RunKeeper(argc, argv); }
