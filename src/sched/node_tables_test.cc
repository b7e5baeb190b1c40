#include "sched/node_tables.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "sched/scheduler.h"
#include "state/cluster_state.h"
#include "state/records.h"
#include "state/testing.h"

namespace gantry::sched {
namespace {

using model::JobBaseState;
using state::ClusterState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the builders

// Everything a pass decided, as text, to compare two passes.
std::string Describe(const Decisions& d) {
  std::ostringstream out;
  for (const Preemption& p : d.preemptions) {
    out << "preempt " << p.victim << " for " << p.preemptor << " " << static_cast<int>(p.action)
        << "\n";
  }
  for (const Start& s : d.starts) {
    out << "start " << s.job_id << " task " << s.array_task_id.value_or(UINT32_MAX) << " in "
        << s.partition << " cpus " << s.num_cpus << " mem " << s.alloc_mem_mb << " limit "
        << s.time_limit_min << " on";
    for (const std::string& n : s.nodes) out << " " << n;
    out << "\n";
  }
  for (const ExpectedStart& e : d.expected_starts) {
    out << "plan " << e.job_id << " " << e.time << "\n";
  }
  for (const ReasonChange& r : d.reasons) out << "reason " << r.job_id << " " << r.reason << "\n";
  for (const DependencyChange& c : d.dependencies) {
    out << "dep " << c.job_id << " " << c.status << "\n";
  }
  for (uint32_t id : d.cancels) out << "cancel " << id << "\n";
  const PassStats& st = d.stats;
  out << "stats " << st.queue_length << " " << st.depth << " " << st.backfilled << " "
      << st.bf_tried << " " << st.bf_planned << " " << st.bf_reservations << "\n";
  return out.str();
}

// Twelve nodes of three sizes, two of them heavier (picked last), some with GPUs; "batch" holds
// them all, "small" the first six.
ClusterState Cluster() {
  ClusterState s;
  s.return_to_service = 2;
  std::vector<v1::Node> nodes;
  const std::vector<std::string> names = NodeNames(12);
  for (size_t i = 0; i < names.size(); ++i) {
    v1::Node node = MakeNode(names[i], 4u << (i % 3), 16000u << (i % 3), i % 4 == 0 ? "gpu:2" : "");
    if (i == 2 || i == 7) node.set_weight(5);
    nodes.push_back(node);
  }
  const std::vector<std::string> small(names.begin(), names.begin() + 6);
  MustApply(
      &s, ConfigEvent(nodes, {MakePartition("batch", names, true), MakePartition("small", small)}));
  for (const std::string& name : names) MustApply(&s, RegisterEvent(name));
  return s;
}

struct Life {
  const char* name;
  SchedulerOptions options;
};

std::vector<Life> Lives() {
  SchedulerOptions backfill;
  SchedulerOptions strict;
  strict.backfill = false;
  SchedulerOptions linear;
  linear.whole_nodes = true;
  return {{"backfill", backfill}, {"strict", strict}, {"linear", linear}};
}

// A cluster lives through submissions, starts, ends, epilogs, drains, time limit changes,
// requeues and clock steps; before every pass the tables kept from the last one are brought up
// to date, and the pass decides exactly what a pass with tables built afresh decides.
TEST(NodeTablesTest, KeptTablesDecideAsFreshOnesThroughARandomLife) {
  for (const Life& life : Lives()) {
    SCOPED_TRACE(life.name);
    std::mt19937 rng(26);
    auto pick = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    ClusterState s = Cluster();
    const std::vector<std::string> names = NodeNames(12);
    NodeTables kept;
    int64_t now = kNow;
    uint32_t next_id = 1;
    size_t started = 0;
    size_t planned = 0;
    size_t partial_refreshes = 0;
    for (int step = 0; step < 600; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      switch (pick(8)) {
        case 0:
        case 1: {  // submissions
          for (uint32_t k = 0, n = 1 + pick(3); k < n; ++k) {
            const bool small = pick(3) == 0;
            v1::Job job = PendingJob(next_id++, small ? "small" : "batch", 1 + pick(4), now);
            v1::JobRequest& r = *job.mutable_request();
            r.set_cpus_per_task(1 + pick(8));
            if (pick(3) == 0) r.set_mem_per_node_mb(uint64_t{1000} * (1 + pick(20)));
            if (pick(8) == 0) r.set_gres("gpu:1");
            if (pick(10) == 0) r.set_exclusive(true);
            if (pick(12) == 0) r.set_req_nodes(names[pick(6)]);
            job.set_time_limit_min(pick(10) == 0 ? 0 : 5 + pick(120));
            if (pick(10) == 0) job.set_priority(0);  // held
            MustApply(&s, SubmitEvent(job, now));
          }
          break;
        }
        case 2: {  // a running job ends; its epilogs finish now or later
          std::vector<uint32_t> running(s.active.begin(), s.active.end());
          if (running.empty()) break;
          const uint32_t id = running[pick(static_cast<uint32_t>(running.size()))];
          MustApply(&s, EndEvent(id, JobBaseState::kCompleted, now));
          if (pick(2) == 0) break;
          [[fallthrough]];
        }
        case 3: {  // epilogs finish
          const auto waiting = s.completing;
          for (const auto& [id, nodes] : waiting) {
            for (const std::string& node : nodes) {
              if (pick(2) == 0) MustApply(&s, ReleaseEvent(id, node, now));
            }
          }
          break;
        }
        case 4: {  // a node is drained, resumed or lost and back
          const std::string& node = names[pick(12)];
          switch (pick(3)) {
            case 0:
              MustApply(&s, NodeOpEvent({node}, "DRAIN", "test", now));
              break;
            case 1:
              MustApply(&s, NodeOpEvent({node}, "RESUME", "", now));
              break;
            default:
              MustApply(&s, RegisterEvent(node, now));
              break;
          }
          break;
        }
        case 5: {  // a running job's time limit changes, or it is requeued
          std::vector<uint32_t> running(s.active.begin(), s.active.end());
          if (running.empty()) break;
          v1::Job job = *s.FindJob(running[pick(static_cast<uint32_t>(running.size()))]);
          if (pick(3) == 0) {
            MustApply(&s, RequeueEvent(job.job_id(), false, "", now));
          } else {
            job.set_time_limit_min(1 + pick(300));
            MustApply(&s, UpdateEvent(job, now));
          }
          break;
        }
        case 6:  // the clock steps back
          now -= pick(90);
          break;
        default:
          now += pick(900);
          break;
      }
      const Decisions with = Schedule(s, now, life.options, nullptr, &kept);
      if (kept.last_refreshed() < s.nodes.size()) ++partial_refreshes;
      const Decisions fresh = Schedule(s, now, life.options);
      ASSERT_EQ(Describe(with), Describe(fresh));
      started += with.starts.size();
      planned += with.expected_starts.size();
      // Not every decision is carried out: a shell may drop some.
      for (const Start& start : with.starts) {
        if (pick(10) == 0) continue;
        MustApply(&s, StartEvent(start.job_id, start.nodes, now, start.num_cpus, start.alloc_mem_mb,
                                 start.time_limit_min, start.partition));
      }
    }
    // The life was eventful, and the kept tables were mostly brought up to date node by node.
    EXPECT_GT(started, 50u);
    if (life.options.backfill) {
      EXPECT_GT(planned, 50u);
    }
    EXPECT_GT(partial_refreshes, 300u);
  }
}

TEST(NodeTablesTest, ACopyOfTheStateIsReadAnew) {
  ClusterState s = Cluster();
  MustApply(&s, SubmitEvent(PendingJob(1, "batch", 2)));
  NodeTables kept;
  kept.Refresh(s, kNow, false);
  EXPECT_EQ(kept.last_refreshed(), 12u);
  kept.Refresh(s, kNow, false);
  EXPECT_EQ(kept.last_refreshed(), 0u);
  MustApply(&s, StartEvent(1, {"n1", "n2"}, kNow, 2, 0));
  kept.Refresh(s, kNow, false);
  EXPECT_EQ(kept.last_refreshed(), 2u);
  const ClusterState copy = s;
  kept.Refresh(copy, kNow, false);
  EXPECT_EQ(kept.last_refreshed(), 12u);
  kept.Refresh(copy, kNow, true);  // select/linear reads every node again
  EXPECT_EQ(kept.last_refreshed(), 12u);
}

TEST(NodeTablesTest, APassGivesBackEveryNodeItChanged) {
  ClusterState s = Cluster();
  for (uint32_t id = 1; id <= 6; ++id) MustApply(&s, SubmitEvent(PendingJob(id, "batch", 4)));
  NodeTables kept;
  const Decisions d = Schedule(s, kNow, SchedulerOptions(), nullptr, &kept);
  ASSERT_FALSE(d.starts.empty());
  ASSERT_FALSE(d.expected_starts.empty());
  EXPECT_EQ(kept.plans.keeps(), 0u);  // the plans were the pass's own
  NodeTables fresh;
  fresh.Refresh(s, kNow, false);
  EXPECT_EQ(kept.free_now, fresh.free_now);
  EXPECT_EQ(kept.slots, fresh.slots);
  EXPECT_EQ(kept.plans.by_open(), fresh.plans.by_open());
}

}  // namespace
}  // namespace gantry::sched
