// gantryd: the Gantry controller. See src/ctld/gantryd.h.
#include <string>
#include <vector>

#include "ctld/gantryd.h"

int main(int argc, char** argv) {
  return gantry::ctld::RunGantryd(std::vector<std::string>(argv + 1, argv + argc));
}
