#include "cli/gantry_command.h"

#include <ostream>

namespace gantry::cli {

int RunGantry(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  (void)args;
  (void)out;
  err << "gantry: not implemented yet\n";
  return 2;
}

}  // namespace gantry::cli
