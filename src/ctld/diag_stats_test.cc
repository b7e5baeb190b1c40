#include "ctld/diag_stats.h"

#include <gtest/gtest.h>

#include <map>

#include "model/job_state.h"

namespace gantry::ctld {
namespace {

using model::JobBaseState;
using model::RpcType;

constexpr int64_t kDiagNow = 1796212009;

v1::Event Ended(JobBaseState state) {
  v1::Event event;
  event.mutable_job_ended()->set_state(static_cast<uint32_t>(state));
  return event;
}

std::map<uint32_t, uint32_t> Counts(const google::protobuf::RepeatedPtrField<v1::RpcStat>& t) {
  std::map<uint32_t, uint32_t> out;
  for (const v1::RpcStat& s : t) out[s.id()] = s.count();
  return out;
}

TEST(DiagStatsTest, JobsCountByHowTheyEnded) {
  DiagStats stats(kDiagNow);
  v1::Event submitted;
  submitted.mutable_job_submitted();
  stats.CountEvent(submitted);
  for (JobBaseState s : {JobBaseState::kCompleted, JobBaseState::kFailed, JobBaseState::kTimeout,
                         JobBaseState::kOutOfMemory, JobBaseState::kCancelled,
                         JobBaseState::kNodeFail, JobBaseState::kBootFail}) {
    stats.CountEvent(Ended(s));
  }
  v1::GetStatsReply reply;
  stats.Fill(nullptr, &reply);
  EXPECT_EQ(reply.jobs_submitted(), 1u);
  EXPECT_EQ(reply.jobs_completed(), 4u);
  EXPECT_EQ(reply.jobs_canceled(), 1u);
  EXPECT_EQ(reply.jobs_failed(), 2u);
}

TEST(DiagStatsTest, CallsInProgressAndDone) {
  DiagStats stats(kDiagNow);
  {
    DiagStats::Call listing(&stats, RpcType::kJobInfo, 1001);
    listing.set_type(RpcType::kJobInfoSingle);  // the request named one job
  }
  DiagStats::Call submit(&stats, RpcType::kSubmitBatchJob, 1002);
  DiagStats::Call other_sdiag(&stats, RpcType::kStatsInfo, 1002);
  DiagStats::Call self(&stats, RpcType::kStatsInfo, 0);
  v1::GetStatsReply reply;
  stats.Fill(&self, &reply);
  EXPECT_EQ(reply.server_thread_count(), 3u);
  EXPECT_EQ(Counts(reply.pending_rpcs()),
            (std::map<uint32_t, uint32_t>{{4003, 1}, {2035, 1}}));  // self left out
  EXPECT_EQ(Counts(reply.rpc_types()), (std::map<uint32_t, uint32_t>{{2021, 1}}));
  EXPECT_EQ(Counts(reply.rpc_users()), (std::map<uint32_t, uint32_t>{{1001, 1}}));
}

TEST(DiagStatsTest, PassesAndBackfillCyclesAndReset) {
  DiagStats stats(kDiagNow);
  sched::PassStats main_only;
  main_only.queue_length = 7;
  main_only.depth = 3;
  stats.CountPass(main_only, 1000, kDiagNow + 1);
  sched::PassStats planned = main_only;
  planned.backfilled = 2;
  planned.bf_tried = 4;
  planned.bf_planned = 3;
  planned.bf_reservations = 9;
  stats.CountPass(planned, 3000, kDiagNow + 2);
  v1::GetStatsReply r;
  stats.Fill(nullptr, &r);
  EXPECT_EQ(r.schedule_cycle_counter(), 2u);
  EXPECT_EQ(r.schedule_cycle_last(), 3000u);
  EXPECT_EQ(r.schedule_cycle_max(), 3000u);
  EXPECT_EQ(r.schedule_cycle_sum(), 4000u);
  EXPECT_EQ(r.schedule_cycle_depth(), 6u);
  EXPECT_EQ(r.schedule_queue_len(), 7u);
  EXPECT_EQ(r.bf_cycle_counter(), 1u);
  EXPECT_EQ(r.bf_when_last_cycle(), kDiagNow + 2);
  EXPECT_EQ(r.bf_cycle_last(), 3000u);
  EXPECT_EQ(r.bf_last_depth(), 4u);
  EXPECT_EQ(r.bf_last_depth_try(), 3u);
  EXPECT_EQ(r.bf_table_size(), 9u);
  EXPECT_EQ(r.bf_backfilled_jobs(), 2u);
  EXPECT_EQ(r.bf_last_backfilled_jobs(), 2u);

  stats.Reset(kDiagNow + 60);
  v1::GetStatsReply after;
  stats.Fill(nullptr, &after);
  EXPECT_EQ(after.since(), kDiagNow + 60);
  EXPECT_EQ(after.schedule_cycle_counter(), 0u);
  EXPECT_EQ(after.bf_cycle_counter(), 0u);
  EXPECT_EQ(after.bf_last_backfilled_jobs(), 0u);
  EXPECT_EQ(after.bf_backfilled_jobs(), 2u);  // since the start
}

TEST(DiagStatsTest, RequestsCountAsSlurmsMessageTypes) {
  v1::GetJobsRequest all;
  EXPECT_EQ(RpcTypeOf(all), RpcType::kJobInfo);
  v1::GetJobsRequest one;
  one.add_job_ids(7);
  EXPECT_EQ(RpcTypeOf(one), RpcType::kJobInfoSingle);
  v1::GetJobsRequest mine;
  mine.add_user_ids(1001);
  EXPECT_EQ(RpcTypeOf(mine), RpcType::kJobUserInfo);
  v1::JobReport epilog;
  epilog.set_kind(v1::JobReport::EPILOG_OK);
  EXPECT_EQ(RpcTypeOf(epilog), RpcType::kEpilogComplete);
  EXPECT_EQ(model::RpcTypeName(static_cast<uint32_t>(RpcType::kEpilogComplete)),
            "MESSAGE_EPILOG_COMPLETE");
  EXPECT_EQ(model::RpcTypeName(4242), "4242");
}

}  // namespace
}  // namespace gantry::ctld
