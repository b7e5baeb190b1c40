// gantry: creates, shows, updates and deletes clusters from a spec.
#include <iostream>
#include <string>
#include <vector>

#include "cli/gantry_command.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return gantry::cli::RunGantry(args, std::cout, std::cerr);
}
