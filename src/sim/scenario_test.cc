#include "sim/scenario.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testing/spec_files.h"

namespace gantry::sim {
namespace {

// Every tests/scenarios/NAME.scn prints what NAME.out holds (GANTRY_UPDATE_GOLDEN=1 rewrites
// the .out files after an intended change; review the diff).
TEST(ScenarioTest, ScenarioFilesPrintTheirPinnedDecisions) {
  const std::filesystem::path dir = testing::SourceRoot() / "tests" / "scenarios";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".scn") continue;
    ++seen;
    SCOPED_TRACE(entry.path().string());
    Result<std::string> out = RunScenario(testing::ReadFile(entry.path()));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::filesystem::path expected = entry.path();
    expected.replace_extension(".out");
    const char* update = std::getenv("GANTRY_UPDATE_GOLDEN");
    if (update != nullptr && *update != '\0') {
      std::ofstream(expected, std::ios::binary) << *out;
      continue;
    }
    EXPECT_EQ(*out, testing::ReadFile(expected));
  }
  EXPECT_GE(seen, 3);
}

TEST(ScenarioTest, ErrorsNameTheLineAndTheRule) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"cycle\n", "line 1: a scenario needs node and partition lines first"},
      {"node n1\npartition p nodes=n1\nfly\n",
       "line 3: unknown command 'fly' (node, partition, scheduler, priority, account, user, "
       "submit, advance, end, cycle)"},
      {"node n1 cpus=many\n", "line 1: cpus=many: not a whole number"},
      {"node n1\npartition p nodes=n1\nsubmit 1\nend 1 state=RUNNING\n",
       "line 4: state=RUNNING: a batch script ends COMPLETED or FAILED"},
      {"node n1\npartition p\n", "line 2: nodes=HOSTLIST is required"},
      {"node n1\npartition p nodes=n1\nscheduler params=bf_window=0\n",
       "line 3: SchedulerParameters: invalid value 'bf_window=0' (bf_window is a whole number "
       "from 1 to 43200)"},
  };
  for (const Case& c : cases) {
    Result<std::string> out = RunScenario(c.text);
    ASSERT_FALSE(out.ok()) << c.text;
    EXPECT_EQ(out.status().message(), c.error);
  }
}

}  // namespace
}  // namespace gantry::sim
