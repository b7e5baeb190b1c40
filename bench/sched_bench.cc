// One full scheduling cycle as gantryd runs it (core/cycle.h's priority and schedule stages):
// priority/multifactor recomputed for every pending job (Fair Tree over 100 accounts of 10 users,
// the reference cluster's weights), then the pass (priority order, backfill planning up to
// bf_max_job_test jobs). 10,000 nodes (64 CPUs, 8 GPUs) each running two jobs of half a node (20k
// running, consumable resources), and 10k, 50k and 100k pending jobs of 1-24 hours: half share a
// node (8-32 CPUs, 1-8 GPUs), half want 1-4 whole nodes. Prints, per size, the median of 5 cycles
// in ms (priorities / pass / both) and the process's peak RSS; between cycles the pass's reasons
// and plans are kept on the jobs, as gantryd keeps them (its starts are not: every cycle sees the
// same queue). Not a Google Benchmark: it prints
// one line per size.
// Then preemption (PreemptType=preempt/partition_prio): the same 10k nodes and 20k running jobs
// in partition batch (tier 1) and one pending job of partition urgent (tier 10): the median of 5
// passes that place it and pick its victims (REQUEUE: a one-node and a four-node 8-GPU job),
// beside the same pass without preemption, and SUSPEND, where the victims would keep the
// memory the job needs, so every node is looked at and none found.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/context.h"
#include "core/cycle.h"
#include "sched/priority.h"
#include "sched/scheduler.h"
#include "state/accounting.h"
#include "state/testing.h"
#include "state/volatile_updates.h"

namespace gantry {
namespace {

using state::ClusterState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

constexpr int kNodes = 10000;
constexpr int kAccounts = 100;
constexpr int kUsersPerAccount = 10;

void Must(ClusterState* s, const v1::Event& e) {
  if (!state::Apply(s, e).ok()) std::abort();
}

std::string UserOf(uint32_t i) { return "u" + std::to_string(i % (kAccounts * kUsersPerAccount)); }
std::string AccountOf(uint32_t i) {
  return "a" + std::to_string(i % (kAccounts * kUsersPerAccount) / kUsersPerAccount);
}

// With `urgent`, a second partition of PriorityTier 10 on the same nodes (the preemption runs).
ClusterState Cluster(int pending, bool urgent = false) {
  ClusterState s;
  std::vector<v1::Partition> partitions = {MakePartition("batch", NodeNames(kNodes), true)};
  if (urgent) {
    partitions.push_back(MakePartition("urgent", NodeNames(kNodes)));
    partitions.back().set_priority_tier(10);
  }
  s.return_to_service = 2;
  const std::vector<std::string> names = NodeNames(kNodes);
  std::vector<v1::Node> nodes;
  nodes.reserve(names.size());
  for (const std::string& n : names) nodes.push_back(MakeNode(n, 64, 256000, "gpu:h100:8"));
  Must(&s, ConfigEvent(nodes, partitions));
  for (const std::string& n : names) Must(&s, RegisterEvent(n));
  // Accounts a0..a99 under root, users u0..u999, one association each; some usage.
  v1::AccountingChange change = state::DefaultAccounting();
  uint32_t assoc = 100;
  for (int a = 0; a < kAccounts; ++a) {
    v1::Account* account = change.add_accounts();
    account->set_name("a" + std::to_string(a));
    account->set_parent("root");
    v1::Association* own = change.add_associations();
    own->set_id(assoc++);
    own->set_account(account->name());
    own->set_shares(1);
    own->add_qos("normal");
    for (int u = 0; u < kUsersPerAccount; ++u) {
      const auto n = static_cast<uint32_t>(a * kUsersPerAccount + u);
      v1::AccountingUser* user = change.add_users();
      user->set_name(UserOf(n));
      user->set_default_account(account->name());
      v1::Association* mine = change.add_associations();
      mine->set_id(assoc++);
      mine->set_account(account->name());
      mine->set_user(user->name());
      mine->set_shares(1);
      mine->add_qos("normal");
    }
  }
  state::ApplyAccountingChange(change, &s.accounting);
  for (auto& [id, a] : s.accounting.associations) {
    v1::UsageTally& t = s.accounting.association_usage[id];
    t.set_as_of(kNow);
    (*t.mutable_tres_sec())["billing"] = static_cast<double>(id % 97) * 1000;
  }
  uint32_t id = 1;
  for (int i = 0; i < 2 * kNodes; ++i) {
    v1::Job job = PendingJob(id);
    job.set_user_name(UserOf(id));
    job.mutable_request()->set_account(AccountOf(id));
    job.mutable_request()->set_qos("normal");
    job.mutable_request()->set_num_tasks(32);
    job.mutable_request()->set_mem_per_cpu_mb(4000);
    job.mutable_request()->set_gres("gpu:4");
    Must(&s, SubmitEvent(job));
    Must(&s, StartEvent(id++, {names[static_cast<size_t>(i / 2)]}, kNow - 600, 32, 128000,
                        60 * (1 + static_cast<uint32_t>(i % 24))));
  }
  for (int i = 0; i < pending; ++i) {
    const bool shared = id % 2 == 0;
    v1::Job job = PendingJob(id, "batch", shared ? 1 : 1 + id % 4);
    if (shared) {
      job.mutable_request()->set_num_tasks(8 * (1 + id % 4));
      job.mutable_request()->set_mem_per_cpu_mb(2000);
      job.mutable_request()->set_gres("gpu:" + std::to_string(1 + id % 8));
    }
    job.set_user_name(UserOf(id));
    job.mutable_request()->set_account(AccountOf(id));
    job.mutable_request()->set_qos("normal");
    job.set_time_limit_min(60 * (1 + id % 24));
    job.set_submit_time(kNow - id % 3600);
    job.set_accrue_time(job.submit_time());
    ++id;
    Must(&s, SubmitEvent(job));
  }
  return s;
}

sched::PriorityConfig Weights() {
  sched::PriorityConfig c;
  c.multifactor = true;
  c.weight_age = 1000;
  c.weight_fairshare = 10000;
  c.weight_job_size = 1000;
  c.weight_partition = 1000;
  c.weight_qos = 1000;
  c.weight_tres = {{"cpu", 100}, {"mem", 150}};
  return c;
}

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

void Run(int pending) {
  ClusterState s = Cluster(pending);
  core::Config config;
  config.priority = Weights();
  core::Memory memory;
  std::vector<double> prio_ms;
  std::vector<double> pass_ms;
  std::vector<double> total_ms;
  size_t starts = 0;
  size_t planned = 0;
  for (int round = 0; round < 5; ++round) {
    memory.last_priority_calc = 0;  // every cycle recomputes every priority
    const core::Context ctx{s, config, memory, kNow, kNow * 1000};
    const auto t0 = std::chrono::steady_clock::now();
    state::ApplyVolatile(&s, core::PriorityStage(ctx).volatile_updates);
    const auto t1 = std::chrono::steady_clock::now();
    const core::Effects effects = core::ScheduleStage(ctx);
    state::ApplyVolatile(&s, effects.volatile_updates);
    const auto t2 = std::chrono::steady_clock::now();
    starts = core::StartedJobs(effects.events).size();
    planned = effects.volatile_updates.expected_starts.size();
    prio_ms.push_back(Ms(t1 - t0));
    pass_ms.push_back(Ms(t2 - t1));
    total_ms.push_back(Ms(t2 - t0));
    s.changed_jobs.clear();
    s.entered_pending.clear();
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "%7d pending  %5d nodes  %5d running  priorities %7.1f ms  pass %7.1f ms  "
      "cycle %7.1f ms  (%zu started, %zu planned)  peak RSS %ld MiB\n",
      pending, kNodes, 2 * kNodes, median(prio_ms), median(pass_ms), median(total_ms), starts,
      planned, usage.ru_maxrss / 1024);
  std::fflush(stdout);
}

void RunPreemption() {
  ClusterState s = Cluster(0, /*urgent=*/true);
  const struct {
    const char* what;
    sched::PreemptAction action;
    uint32_t nodes;
    const char* gres;
  } cases[] = {{"no preemption (the pass alone)", sched::PreemptAction::kOff, 1, ""},
               {"REQUEUE, 1 node, 8 GPUs", sched::PreemptAction::kRequeue, 1, "gpu:8"},
               {"REQUEUE, 4 nodes, 8 GPUs each", sched::PreemptAction::kRequeue, 4, "gpu:8"},
               {"SUSPEND, 1 node (none: memory kept)", sched::PreemptAction::kSuspend, 1, ""}};
  uint32_t id = 1000000;
  for (const auto& c : cases) {
    sched::SchedulerOptions options;
    options.preempt.type = c.action == sched::PreemptAction::kOff
                               ? sched::PreemptType::kNone
                               : sched::PreemptType::kPartitionPrio;
    options.preempt.action = c.action;
    options.preempt.gang = true;
    v1::Job job = PendingJob(id, "urgent", c.nodes);
    job.mutable_request()->set_num_tasks(64 * c.nodes);
    job.mutable_request()->set_mem_per_cpu_mb(1000);
    job.mutable_request()->set_gres(c.gres);
    job.mutable_request()->set_qos("normal");
    Must(&s, SubmitEvent(job));
    std::vector<double> ms;
    size_t victims = 0;
    for (int round = 0; round < 5; ++round) {
      const auto t0 = std::chrono::steady_clock::now();
      const sched::Decisions d = sched::Schedule(s, kNow, options);
      ms.push_back(Ms(std::chrono::steady_clock::now() - t0));
      victims = d.preemptions.size();
    }
    std::sort(ms.begin(), ms.end());
    std::printf("preemption: %-36s %5d nodes  %5d running  pass %6.2f ms  (%zu victims)\n", c.what,
                kNodes, 2 * kNodes, ms[ms.size() / 2], victims);
    std::fflush(stdout);
    Must(&s, EndEvent(id++, model::JobBaseState::kCancelled, kNow));
  }
}

}  // namespace
}  // namespace gantry

int main(int argc, char** argv) {
  std::vector<int> sizes = {10000, 50000, 100000};
  if (argc > 1) sizes = {std::atoi(argv[1])};
  for (int n : sizes) gantry::Run(n);
  gantry::RunPreemption();
  return 0;
}
