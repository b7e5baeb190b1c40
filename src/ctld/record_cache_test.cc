#include "ctld/record_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gantry/v1/controller.pb.h"

namespace gantry::ctld {
namespace {

constexpr uint32_t kBlock = RecordCache::kBlockJobs;

v1::Job MakeJob(uint32_t id, uint32_t uid, const std::string& name) {
  v1::Job job;
  job.set_job_id(id);
  job.set_user_id(uid);
  job.mutable_request()->set_name(name);
  return job;
}

// The listing the blocks make, parsed back.
std::vector<v1::Job> Listed(const std::vector<std::shared_ptr<const RecordCache::Block>>& blocks) {
  std::string bytes;
  for (const auto& b : blocks) bytes += b->bytes;
  v1::GetJobsReply reply;
  EXPECT_TRUE(reply.ParseFromString(bytes));
  return {reply.jobs().begin(), reply.jobs().end()};
}

void ExpectSame(const std::vector<v1::Job>& listed, const RecordCache::Jobs& jobs) {
  ASSERT_EQ(listed.size(), jobs.size());
  size_t i = 0;
  for (const auto& [id, job] : jobs) {
    EXPECT_EQ(listed[i++].SerializeAsString(), job.SerializeAsString()) << "job " << id;
  }
}

TEST(RecordCacheTest, BlocksHoldEveryJobInIdOrderWithEntriesPointingAtEachRecord) {
  RecordCache::Jobs jobs;
  for (uint32_t id : {1u, 2u, kBlock - 1, kBlock, 3 * kBlock + 5}) {
    jobs[id] = MakeJob(id, 1000 + id % 2, "job" + std::to_string(id));
  }
  RecordCache cache;
  const auto blocks = cache.Blocks(jobs, {});
  ASSERT_EQ(blocks.size(), 3u);  // ids 1..1023, 1024, 3077: blocks 0, 1 and 3
  ExpectSame(Listed(blocks), jobs);
  const RecordCache::Entry& e = blocks[0]->entries[2];
  EXPECT_EQ(e.job_id, kBlock - 1);
  EXPECT_EQ(e.user_id, 1001u);
  v1::Job one;
  ASSERT_TRUE(one.ParseFromString(std::string(blocks[0]->Record(e))));
  EXPECT_EQ(one.request().name(), "job" + std::to_string(kBlock - 1));
}

TEST(RecordCacheTest, AChangedJobRemakesOnlyItsBlock) {
  RecordCache::Jobs jobs;
  for (uint32_t id = 1; id < 3 * kBlock; id += 100) jobs[id] = MakeJob(id, 1000, "a");
  RecordCache cache;
  const auto before = cache.Blocks(jobs, {});

  jobs[101].mutable_request()->set_name("renamed");
  cache.Forget(101);
  const auto after = cache.Blocks(jobs, {});
  ExpectSame(Listed(after), jobs);
  EXPECT_NE(after[0], before[0]);
  EXPECT_EQ(after[1], before[1]);
  EXPECT_EQ(after[2], before[2]);
  EXPECT_EQ(Listed(before)[1].request().name(), "a");  // a listing keeps what it was given
}

TEST(RecordCacheTest, AddedRemovedAndNotYetForgottenJobsShowAtTheNextListing) {
  RecordCache::Jobs jobs;
  jobs[5] = MakeJob(5, 1000, "a");
  jobs[kBlock + 5] = MakeJob(kBlock + 5, 1000, "b");
  RecordCache cache;
  ASSERT_EQ(cache.Blocks(jobs, {}).size(), 2u);

  jobs.erase(kBlock + 5);  // its block goes away
  cache.Forget(kBlock + 5);
  jobs[7 * kBlock] = MakeJob(7 * kBlock, 1000, "c");  // a new block
  cache.Forget(7 * kBlock);
  jobs[5].set_priority(9);  // edited, named in `changed` but not forgotten yet
  const std::vector<uint32_t> changed = {5};
  const auto blocks = cache.Blocks(jobs, changed);
  EXPECT_EQ(blocks.size(), 2u);
  ExpectSame(Listed(blocks), jobs);

  cache.Clear();  // as after recovery: everything is made again from the jobs
  jobs[9] = MakeJob(9, 1000, "d");
  ExpectSame(Listed(cache.Blocks(jobs, {})), jobs);
}

TEST(RecordCacheTest, AShortFormCacheHoldsEachRecordInItsForm) {
  RecordCache::Jobs jobs;
  for (uint32_t id : {3u, kBlock + 1}) {
    jobs[id] = MakeJob(id, 1000, "job" + std::to_string(id));
    jobs[id].mutable_request()->set_account("physics");   // kept by brief, not by slim
    jobs[id].mutable_request()->set_work_dir("/home/a");  // kept by neither
  }
  for (model::JobRecordForm form : {model::JobRecordForm::kBrief, model::JobRecordForm::kSlim}) {
    RecordCache cache(form);
    const std::vector<v1::Job> listed = Listed(cache.Blocks(jobs, {}));
    ASSERT_EQ(listed.size(), 2u);
    for (const v1::Job& job : listed) {
      v1::Job expected;
      model::CopyJobInForm(jobs.at(job.job_id()), form, &expected);
      EXPECT_EQ(job.SerializeAsString(), expected.SerializeAsString());
      EXPECT_EQ(job.request().name(), "job" + std::to_string(job.job_id()));
      EXPECT_EQ(job.request().work_dir(), "");
      EXPECT_EQ(job.request().account(), form == model::JobRecordForm::kBrief ? "physics" : "");
    }
  }
}

}  // namespace
}  // namespace gantry::ctld
