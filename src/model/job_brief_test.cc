#include "model/job_brief.h"

#include <gtest/gtest.h>

#include <string>

namespace gantry::model {
namespace {

// A job with a value in every field the slim form keeps, and in some it drops.
v1::Job FullJob() {
  v1::Job job;
  job.set_job_id(12);
  job.set_user_id(1000);
  job.set_user_name("alice");
  job.set_group_name("research");
  job.set_state(1);
  job.set_state_flags(4);
  job.set_reason("Priority");
  job.set_state_desc("held by admin");
  job.set_priority(77);
  job.set_submit_time(100);
  job.set_start_time(200);
  job.set_end_time(300);
  job.set_suspend_time(250);
  job.set_pre_suspend_secs(20);
  job.set_partition("gpu");
  job.add_nodes("a4-0");
  job.add_nodes("a4-1");
  job.set_time_limit_min(60);
  job.set_array_job_id(10);
  job.set_array_task_id(2);
  job.add_array_pending_tasks(3);
  job.set_array_task_throttle(2);
  job.set_expected_start_time(400);
  job.set_num_cpus(16);
  job.set_tres("cpu=16");
  v1::JobRequest& r = *job.mutable_request();
  r.set_name("train");
  r.set_min_nodes(2);
  r.set_account("physics");
  r.set_work_dir("/home/alice");
  return job;
}

TEST(JobBriefTest, TheSlimFormKeepsItsFieldsAndDropsTheRest) {
  const v1::Job full = FullJob();
  v1::Job slim;
  slim.set_num_cpus(3);  // whatever it held is replaced
  CopySlimJob(full, &slim);
  // Every kept field has the full record's value...
  v1::Job expected = full;
  expected.clear_group_name();
  expected.clear_num_cpus();
  expected.clear_tres();
  expected.mutable_request()->clear_account();
  expected.mutable_request()->clear_work_dir();
  EXPECT_EQ(slim.SerializeAsString(), expected.SerializeAsString());
  // ...and CopyJobInForm makes the same.
  v1::Job same;
  CopyJobInForm(full, JobRecordForm::kSlim, &same);
  EXPECT_EQ(same.SerializeAsString(), slim.SerializeAsString());
}

TEST(JobBriefTest, ClearSlimJobEmptiesExactlyTheSlimFields) {
  v1::Job slim;
  CopySlimJob(FullJob(), &slim);
  ClearSlimJob(&slim);
  v1::Job empty;
  empty.mutable_request();  // kept, empty, for the next record's fields
  EXPECT_EQ(slim.SerializeAsString(), empty.SerializeAsString()) << slim.ShortDebugString();

  v1::Job full = FullJob();
  ClearSlimJob(&full);  // the fields the slim form drops stay
  EXPECT_EQ(full.num_cpus(), 16u);
  EXPECT_EQ(full.tres(), "cpu=16");
  EXPECT_EQ(full.group_name(), "research");
  EXPECT_EQ(full.request().account(), "physics");
  EXPECT_EQ(full.job_id(), 0u);
  EXPECT_TRUE(full.nodes().empty());
}

TEST(JobBriefTest, MergeSlimRecordDecodesWhatProtobufDecodes) {
  v1::Job slim;
  CopySlimJob(FullJob(), &slim);
  v1::Job decoded;
  ClearSlimJob(&decoded);
  ASSERT_TRUE(MergeSlimRecord(slim.SerializeAsString(), &decoded));
  EXPECT_EQ(decoded.SerializeAsString(), slim.SerializeAsString());

  // Negative times, a zero task id (present) and the pending tasks unpacked, as an older
  // writer may send them.
  v1::Job odd;
  odd.set_start_time(-5);
  odd.set_array_task_id(0);
  std::string bytes = odd.SerializeAsString();
  auto put_varint = [&bytes](uint64_t v) {
    for (; v >= 0x80; v >>= 7) bytes.push_back(static_cast<char>((v & 0x7f) | 0x80));
    bytes.push_back(static_cast<char>(v));
  };
  for (uint32_t task : {4u, 300u}) {
    put_varint(uint64_t{v1::Job::kArrayPendingTasksFieldNumber} << 3);  // varint, unpacked
    put_varint(task);
  }
  v1::Job expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  ASSERT_EQ(expected.array_pending_tasks_size(), 2);
  v1::Job got;
  ClearSlimJob(&got);
  ASSERT_TRUE(MergeSlimRecord(bytes, &got));
  expected.mutable_request();
  EXPECT_EQ(got.SerializeAsString(), expected.SerializeAsString());
}

TEST(JobBriefTest, MergeSlimRecordRefusesOtherFieldsAndBrokenBytes) {
  v1::Job job;
  ClearSlimJob(&job);
  EXPECT_FALSE(MergeSlimRecord(FullJob().SerializeAsString(), &job));  // num_cpus, tres...
  v1::Job slim;
  CopySlimJob(FullJob(), &slim);
  const std::string bytes = slim.SerializeAsString();
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    v1::Job partial;
    ClearSlimJob(&partial);
    v1::Job reference;
    // Protobuf's parser and the decoder agree on every prefix: both accept or both refuse.
    EXPECT_EQ(MergeSlimRecord(bytes.substr(0, cut), &partial),
              reference.ParseFromString(bytes.substr(0, cut)))
        << cut;
  }
}

TEST(JobBriefTest, WiderFormHoldsWhatBothHold) {
  EXPECT_EQ(WiderForm(JobRecordForm::kSlim, JobRecordForm::kBrief), JobRecordForm::kBrief);
  EXPECT_EQ(WiderForm(JobRecordForm::kFull, JobRecordForm::kSlim), JobRecordForm::kFull);
  EXPECT_EQ(WiderForm(JobRecordForm::kSlim, JobRecordForm::kSlim), JobRecordForm::kSlim);
}

}  // namespace
}  // namespace gantry::model
