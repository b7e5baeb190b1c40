#include "slurm/squeue_steps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/job_state.h"

namespace gantry::slurm {
namespace {

constexpr UnixTime kNow = 1796211981;

// Job 91 as the reference listed it (`sbatch -N2 -n2 --wrap 'srun ... & srun -J named ...'`,
// squeue -s 5 s later): its step 0 and its batch step; an ended step is not listed.
v1::Job Job91() {
  v1::Job job;
  job.set_job_id(91);
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kRunning));
  job.set_partition("a4");
  job.set_user_name("root");
  job.set_batch_flag(true);
  job.set_start_time(kNow - 5);
  job.add_nodes("gpu1");
  job.add_nodes("gpu2");
  v1::JobStep& named = *job.add_steps();
  named.set_step_id(0);
  named.set_name("named");
  named.set_start_time(kNow - 5);
  named.add_nodes("gpu1");
  named.set_num_tasks(1);
  v1::JobStep& ended = *job.add_steps();
  ended.set_step_id(1);
  ended.set_name("done");
  ended.set_start_time(kNow - 5);
  ended.set_end_time(kNow - 1);
  return job;
}

TEST(FormatStepsTest, MatchesTheReferenceListing) {
  const v1::Job job = Job91();
  v1::Job pending;
  pending.set_job_id(92);
  Result<std::string> out = FormatSteps({&job, &pending}, StepListing{}, kNow);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "           91.0    named        a4     root      0:05 gpu1\n"
            "       91.batch    batch        a4     root      0:05 gpu1\n");
}

TEST(FormatStepsTest, TakesAFormatAStepListAndNoHeader) {
  const v1::Job job = Job91();
  StepListing listing;
  listing.format = "%i %j %M %N %A %b";
  EXPECT_EQ(*FormatSteps({&job}, listing, kNow),
            "STEPID NAME TIME NODELIST TASKS TRES_PER_JOB\n"
            "91.0 named 0:05 gpu1 1 (null)\n"
            "91.batch batch 0:05 gpu1 1 (null)\n");
  listing.header = false;
  listing.only = {"91.batch"};
  EXPECT_EQ(*FormatSteps({&job}, listing, kNow), "91.batch batch 0:05 gpu1 1 (null)\n");
  listing.format = "%i %Q";
  EXPECT_FALSE(FormatSteps({&job}, listing, kNow).ok());
}

}  // namespace
}  // namespace gantry::slurm
