// gantry-restd: the REST daemon. See src/rest/restd.h.
#include <string>
#include <vector>

#include "rest/restd.h"

int main(int argc, char** argv) {
  return gantry::rest::RunRestd(std::vector<std::string>(argv + 1, argv + argc));
}
