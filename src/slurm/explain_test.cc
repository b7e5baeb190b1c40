#include "slurm/explain.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/job_state.h"
#include "slurm_view/anchor_records_test_util.h"

namespace gantry::slurm {
namespace {

using testing::AnchorJob;
using testing::AnchorNodes;
using testing::AnchorPartitions;
using testing::AnchorQueue;
using testing::AnchorQueueNow;

// Explains one job of the reference queue (ids as in anchor_records_test_util.h).
class ExplainTest : public ::testing::Test {
 protected:
  ExplainTest() : queue_(AnchorQueue()) {
    for (const v1::Node& n : AnchorNodes()) *nodes_.add_nodes() = n;
    for (const v1::Partition& p : AnchorPartitions()) *nodes_.add_partitions() = p;
  }

  std::string Explain(const v1::Job& job) {
    ExplainInput in;
    in.job = &job;
    for (const v1::Job& j : queue_) in.jobs.push_back(&j);
    in.nodes = &nodes_;
    in.now = AnchorQueueNow();
    in.tz = &TimeZone::Utc();
    return ExplainJob(in);
  }
  std::string Explain(uint32_t id) {
    for (const v1::Job& j : queue_) {
      if (j.job_id() == id) return Explain(j);
    }
    return "no job " + std::to_string(id);
  }

  std::vector<v1::Job> queue_;
  v1::GetNodesReply nodes_;
};

TEST_F(ExplainTest, RunningJobSaysWhereAndUntilWhen) {
  EXPECT_EQ(Explain(21443),
            "Job 21443 (sweep, user bob, partition a4) is RUNNING.\n"
            "  It runs on gpu[1-2] since 2026-12-02T11:46:41 (00:00:06 so far).\n"
            "  Its time limit (01:00:00) ends it at 2026-12-02T12:46:41.\n");
}

TEST_F(ExplainTest, PreemptedJobSaysByWhomAndWhenItResumes) {
  v1::Job job = AnchorJob(21443);
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kSuspended));
  job.set_preempted_by(21450);
  job.set_preempt_time(job.start_time() + 3);
  const std::string text = Explain(job);
  EXPECT_NE(text.find("Job 21450 preempted it at 2026-12-02T11:46:44: it is suspended, keeps its "
                      "memory and GPUs, and resumes by itself once that job's CPUs are free "
                      "again."),
            std::string::npos)
      << text;
}

TEST_F(ExplainTest, RequeuedByPreemptionSaysWhen) {
  v1::Job job = AnchorJob(21443);
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kPending));
  job.clear_nodes();
  job.set_preempt_time(job.start_time() + 3);
  const std::string text = Explain(job);
  EXPECT_NE(text.find("It was preempted at 2026-12-02T11:46:44 and requeued: it starts again "
                      "from the beginning when it is scheduled."),
            std::string::npos)
      << text;
}

// A pending job of a higher tier: the running jobs of lower tiers on its partition's nodes
// that preemption may take, now or after their exempt time.
TEST_F(ExplainTest, PendingJobOfAHigherTierNamesWhoItMayPreempt) {
  for (v1::Partition& p : *nodes_.mutable_partitions()) {
    if (p.name() == "high") p.set_priority_tier(10);
    if (p.name() == "a4") p.set_priority_tier(1);
  }
  for (v1::Job& j : queue_) {
    if (j.job_id() == 21439) j.set_preempt_eligible_time(AnchorQueueNow() + 600);
  }
  v1::Job job = AnchorJob(21449);  // pending in high
  job.set_reason("Resources");
  const std::string text = Explain(job);
  EXPECT_NE(text.find("It may preempt 21438 (a4, SUSPEND, gpu2), 21440 (a4, SUSPEND, gpu4), "
                      "21443 (a4, SUSPEND, gpu[1-2])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Once their PreemptExemptTime is over it may also preempt 21439 (a4, "
                      "SUSPEND, gpu3) from 2026-12-02T11:56:47."),
            std::string::npos)
      << text;
}

TEST_F(ExplainTest, HeldBeginTimeAndDependency) {
  const std::string held = Explain(21445);
  EXPECT_NE(held.find("Reason: JobHeldUser.\n  Its owner held it"), std::string::npos) << held;
  EXPECT_NE(held.find("scontrol release 21445"), std::string::npos) << held;
  const std::string later = Explain(21447);
  EXPECT_NE(later.find("It may not start before 2026-12-02T12:46:22 (--begin)"), std::string::npos)
      << later;
  v1::Job dep = AnchorJob(21446);
  dep.mutable_request()->set_dependency("afterok:21443");
  const std::string waits = Explain(dep);
  EXPECT_NE(waits.find("  Dependency: afterok:21443(unfulfilled).\n"
                       "  afterok:21443: 21443 RUNNING.\n"),
            std::string::npos)
      << waits;
}

TEST_F(ExplainTest, ArrayThrottleNamesTheRunningTasks) {
  const std::string text = Explain(21444);
  EXPECT_NE(text.find("Job 21444_[3-5%2] (hparam, user alice, partition a4) is PENDING."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("The array may run 2 tasks at once (--array=...%2) and runs 2: 21444_1, "
                      "21444_2. Its next task starts when one of them ends."),
            std::string::npos)
      << text;
}

TEST_F(ExplainTest, ResourcesGiveNodesJobsAheadAndExpectedStart) {
  const std::string text = Explain(21448);  // too-big: 2 nodes, behind 21442
  EXPECT_NE(text.find("It needs 2 whole nodes of partition a4: 4 nodes, 4 up, 0 idle."),
            std::string::npos)
      << text;
  // gpu1 runs 21437 (2:00:00 from 11:46:08, suspended) and 21441; gpu2-4 the 21438-21440
  // training jobs (2:00:00 from 11:46:08) and the array's tasks (30:00 from 11:46:41).
  EXPECT_NE(text.find("Expected start: about 2026-12-02T13:46:08"), std::string::npos) << text;
}

TEST_F(ExplainTest, FinishedJobSaysHowItEnded) {
  v1::Job done = AnchorJob(21441);
  done.set_state(static_cast<uint32_t>(model::JobBaseState::kFailed));
  done.set_end_time(AnchorQueueNow());
  done.set_exit_status(3 << 8);
  EXPECT_NE(Explain(done).find("It ended at 2026-12-02T11:46:47 with exit code 3:0."),
            std::string::npos);
}

}  // namespace
}  // namespace gantry::slurm
