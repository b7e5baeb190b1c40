#include "state/job_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "state/testing.h"

namespace gantry::state {
namespace {

using testing::MakeCluster;
using testing::MustApply;
using testing::PendingArray;
using testing::PendingJob;
using testing::SplitEvent;
using testing::SubmitEvent;

// Array 10 with tasks 1-4: 2 split off as job 11; plain job 20.
ClusterState State() {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingArray(10, {1, 2, 3, 4})));
  MustApply(&s, SplitEvent(10, 2, 11));
  MustApply(&s, SubmitEvent(PendingJob(20)));
  return s;
}

// "job" or "job:task" for each target, or the error.
std::string Show(const ClusterState& s, std::string_view text) {
  Result<std::vector<JobTarget>> targets = ResolveJobId(s, text);
  if (!targets.ok()) return "error: " + targets.status().message();
  std::string out;
  for (const JobTarget& t : *targets) {
    if (!out.empty()) out += " ";
    out += std::to_string(t.job->job_id());
    if (t.pending_task) out += ":" + std::to_string(*t.pending_task);
  }
  return out;
}

TEST(ResolveJobIdTest, NamesRecordsAndPendingTasks) {
  const ClusterState s = State();
  const std::pair<const char*, const char*> cases[] = {
      {"20", "20"},
      {"10", "10 11"},
      {"10_*", "10 11"},
      {"10_2", "11"},
      {"10_3", "10:3"},
      {"10_[1-3]", "10:1 10:3 11"},
      {"11", "11"},
      {"11_2", "error: Invalid job id specified"},
      {"10_9", "error: Invalid job id specified"},
      {"99", "error: Invalid job id specified"},
      {"abc", "error: Invalid job id specified"},
      {"10_[1-", "error: Invalid job id specified"},
      {"0", "error: Invalid job id specified"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(Show(s, text), want) << text;
}

}  // namespace
}  // namespace gantry::state
