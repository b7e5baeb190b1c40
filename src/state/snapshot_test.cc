#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "model/job_state.h"
#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using namespace testing;  // NOLINT(google-build-using-namespace): the builders

ClusterState Busy() {
  ClusterState s = MakeCluster(4);
  for (uint32_t id = 1; id <= 5; ++id) MustApply(&s, SubmitEvent(PendingJob(id)));
  MustApply(&s, StartEvent(2, {"n1", "n2"}, kNow, 128, 0));
  MustApply(&s, StartEvent(3, {"n3"}, kNow, 64, 1000));
  MustApply(&s, EndEvent(3, JobBaseState::kCompleted, kNow + 5));
  MustApply(&s, HoldEvent(4, true));
  MustApply(&s, NodeOpEvent({"n4"}, "DRAIN", "disk", kNow));
  return s;
}

TEST(SnapshotTest, RoundTripThroughBytes) {
  const ClusterState s = Busy();
  const v1::ClusterSnapshot snapshot = ToSnapshot(s);
  std::string bytes;
  ASSERT_TRUE(snapshot.SerializeToString(&bytes));
  v1::ClusterSnapshot parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  auto restored = FromSnapshot(parsed);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(snapshot, ToSnapshot(*restored)));
  EXPECT_EQ(restored->next_job_id, 6u);
  EXPECT_EQ(restored->pending, s.pending);
  EXPECT_EQ(restored->node_index, s.node_index);
  EXPECT_EQ(restored->partition_nodes, s.partition_nodes);
  EXPECT_EQ(restored->completing, s.completing);
  EXPECT_EQ(restored->completing.at(3), std::set<std::string>{"n3"});
}

// H8: a snapshot's bytes carry their length and hash; empty, cut or damaged bytes are refused
// (they used to load as an empty cluster), and one over the stores' limit is not made at all.
TEST(SnapshotTest, EncodedSnapshotsAreCheckedWhenRead) {
  const v1::ClusterSnapshot snapshot = ToSnapshot(Busy());
  Result<std::string> bytes = EncodeSnapshot(snapshot);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<v1::ClusterSnapshot> back = DecodeSnapshot(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(snapshot, *back));
  EXPECT_TRUE(DecodeSnapshot(snapshot.SerializeAsString()).ok());  // written before the trailer
  EXPECT_EQ(DecodeSnapshot("").status().message(),
            "snapshot: empty (a snapshot always holds the cluster)");
  std::string cut = *bytes;
  cut.erase(10, 1);
  EXPECT_EQ(DecodeSnapshot(cut).status().message(),
            "snapshot: " + std::to_string(cut.size() - 20) + " bytes where its trailer says " +
                std::to_string(bytes->size() - 20) + " (truncated)");
  std::string damaged = *bytes;
  damaged[5] ^= 0x10;
  EXPECT_EQ(DecodeSnapshot(damaged).status().message(),
            "snapshot: its hash does not match (damaged)");
  v1::ClusterSnapshot huge;
  v1::Job* job = huge.add_jobs();
  job->mutable_request()->set_comment(std::string(kMaxSnapshotBytes, 'x'));
  EXPECT_EQ(EncodeSnapshot(huge).status().code(), StatusCode::kResourceExhausted);
}

TEST(SnapshotTest, RestoredStateKeepsApplyingEvents) {
  ClusterState live = Busy();
  auto restored = FromSnapshot(ToSnapshot(live));
  ASSERT_TRUE(restored.ok());
  for (const v1::Event& e : {ReleaseEvent(3, "n3", kNow + 6), StartEvent(1, {"n3"}, kNow + 7),
                             EndEvent(2, JobBaseState::kCancelled, kNow + 8)}) {
    MustApply(&live, e);
    MustApply(&*restored, e);
  }
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(ToSnapshot(live), ToSnapshot(*restored)));
}

TEST(SnapshotTest, EmptySnapshotStartsAtJobOne) {
  auto s = FromSnapshot(v1::ClusterSnapshot());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->next_job_id, 1u);
  EXPECT_TRUE(s->jobs.empty());
}

TEST(SnapshotTest, RefusesInconsistentSnapshots) {
  struct Case {
    std::string name;
    v1::ClusterSnapshot snapshot;
    std::string message;
  };
  const v1::ClusterSnapshot good = ToSnapshot(Busy());
  v1::ClusterSnapshot dup_job = good;
  *dup_job.add_jobs() = good.jobs(0);
  v1::ClusterSnapshot zero_job = good;
  zero_job.mutable_jobs(0)->set_job_id(0);
  v1::ClusterSnapshot dup_node = good;
  *dup_node.add_nodes() = good.nodes(1);
  v1::ClusterSnapshot bad_completing = good;
  (*bad_completing.mutable_completing())[77].add_names("n1");
  const Case cases[] = {
      {"duplicate job", dup_job, "job 1 appears twice"},
      {"job id 0", zero_job, "a job has id 0"},
      {"duplicate node", dup_node, "node \"n2\" appears twice"},
      {"completing unknown job", bad_completing, "completing entry for unknown job 77"},
  };
  for (const Case& c : cases) {
    auto s = FromSnapshot(c.snapshot);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(s.status().message().find(c.message), std::string::npos)
        << c.name << ": " << s.status().message();
  }
}

}  // namespace
}  // namespace gantry::state
