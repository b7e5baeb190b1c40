// gantry-sched-scenario FILE...: runs scheduling scenarios (sim/scenario.h) and prints what
// the scheduler decided at each `cycle`. Exit 1 with the error on a bad scenario.
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/scenario.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gantry-sched-scenario FILE.scn...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "gantry-sched-scenario: cannot read " << argv[i] << "\n";
      return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const gantry::Result<std::string> out = gantry::sim::RunScenario(text.str());
    if (!out.ok()) {
      std::cerr << argv[i] << ": " << out.status().message() << "\n";
      return 1;
    }
    std::cout << *out;
  }
  return 0;
}
