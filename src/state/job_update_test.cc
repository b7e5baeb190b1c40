#include "state/job_update.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "state/testing.h"

namespace gantry::state {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): the builders

struct Case {
  const char* name;
  std::map<std::string, std::string> fields;
  bool running = false;
  bool operator_caller = false;
  std::string error;  // "" = accepted
  std::function<void(const v1::Job&)> check = nullptr;
};

TEST(UpdateJobFieldsTest, AppliesSlurmsRules) {
  const Case cases[] = {
      {"name and comment",
       {{"JobName", "n2"}, {"Comment", "c"}},
       false,
       false,
       "",
       [](const v1::Job& j) {
         EXPECT_EQ(j.request().name(), "n2");
         EXPECT_EQ(j.request().comment(), "c");
       }},
      {"time limit",
       {{"timelimit", "1:30:00"}},
       false,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.request().time_limit_min(), 90u); }},
      {"bad time limit", {{"TimeLimit", "abc"}}, false, false, "Invalid time limit specified"},
      {"nice",
       {{"Nice", "10"}},
       false,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.request().nice(), 10); }},
      {"negative nice needs an operator",
       {{"Nice", "-5"}},
       false,
       false,
       "Access/permission denied"},
      {"operator negative nice", {{"Nice", "-5"}}, false, true, ""},
      {"partition",
       {{"Partition", "batch"}},
       false,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.partition(), "batch"); }},
      {"unknown partition",
       {{"Partition", "nope"}},
       false,
       false,
       "Invalid partition name specified"},
      {"node count",
       {{"NumNodes", "2-3"}},
       false,
       false,
       "",
       [](const v1::Job& j) {
         EXPECT_EQ(j.request().min_nodes(), 2u);
         EXPECT_EQ(j.request().max_nodes(), 3u);
       }},
      {"bad node count", {{"NumNodes", "3-2"}}, false, false, "Invalid node count specified"},
      {"dependency",
       {{"Dependency", "afterok:7"}},
       false,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.request().dependency(), "afterok:7"); }},
      {"bad dependency", {{"Dependency", "later:7"}}, false, false, "Job dependency problem"},
      {"start time",
       {{"StartTime", "now+1hour"}},
       false,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.request().begin_time(), kNow + 3600); }},
      {"unknown key",
       {{"Foo", "bar"}},
       false,
       false,
       "Update of this parameter is not supported: Foo=bar"},
      {"running: lower the limit",
       {{"TimeLimit", "5"}},
       true,
       false,
       "",
       [](const v1::Job& j) { EXPECT_EQ(j.time_limit_min(), 5u); }},
      {"running: raise the limit", {{"TimeLimit", "50"}}, true, false, "Access/permission denied"},
      {"running: operator raises", {{"TimeLimit", "50"}}, true, true, ""},
      {"running: pending-only key",
       {{"Partition", "batch"}},
       true,
       false,
       "Job is no longer pending execution"},
  };
  for (const Case& c : cases) {
    ClusterState s = MakeCluster(2);
    v1::Job job = PendingJob(1);
    job.mutable_request()->set_time_limit_min(10);
    ASSERT_TRUE(Apply(&s, SubmitEvent(job)).ok());
    if (c.running) {
      ASSERT_TRUE(Apply(&s, StartEvent(1, {"n1"}, kNow, 64, 0, 10)).ok());
    }
    JobUpdateContext context;
    context.operator_caller = c.operator_caller;
    context.caller_owns_job = true;
    context.now = kNow;
    context.time_zone = &TimeZone::Utc();
    Result<v1::Job> updated = UpdateJobFields(s, *s.FindJob(1), c.fields, context);
    if (c.error.empty()) {
      ASSERT_TRUE(updated.ok()) << c.name << ": " << updated.status().message();
      if (c.check) c.check(*updated);
    } else {
      ASSERT_FALSE(updated.ok()) << c.name;
      EXPECT_EQ(updated.status().message(), c.error) << c.name;
    }
  }
}

TEST(UpdateJobFieldsTest, OnlyTheOwnerOrAnOperatorMayUpdate) {
  ClusterState s = MakeCluster(1);
  ASSERT_TRUE(Apply(&s, SubmitEvent(PendingJob(1))).ok());
  JobUpdateContext context;
  context.now = kNow;
  context.time_zone = &TimeZone::Utc();
  const Result<v1::Job> refused = UpdateJobFields(s, *s.FindJob(1), {{"Comment", "x"}}, context);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Invalid user id");  // as slurmctld's update_job says
  context.operator_caller = true;
  EXPECT_TRUE(UpdateJobFields(s, *s.FindJob(1), {{"Comment", "x"}}, context).ok());
}

// The texts an update leaves follow a submission's rules (admission.h).
TEST(UpdateJobFieldsTest, TextsFollowTheSubmissionRules) {
  ClusterState s = MakeCluster(1);
  ASSERT_TRUE(Apply(&s, SubmitEvent(PendingJob(1))).ok());
  JobUpdateContext context;
  context.now = kNow;
  context.time_zone = &TimeZone::Utc();
  context.caller_owns_job = true;
  EXPECT_EQ(
      UpdateJobFields(s, *s.FindJob(1), {{"JobName", "a\x1b[2J"}}, context).status().message(),
      "name: holds the control character 0x1b; texts other users see may hold none");
  EXPECT_EQ(UpdateJobFields(s, *s.FindJob(1), {{"Comment", std::string(1025, 'x')}}, context)
                .status()
                .message(),
            "Pathname of a file, directory or other parameter too long");
  EXPECT_TRUE(
      UpdateJobFields(s, *s.FindJob(1), {{"Comment", std::string(1024, 'x')}}, context).ok());
}

}  // namespace
}  // namespace gantry::state
