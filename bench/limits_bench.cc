// What accounting limits cost a scheduling pass: one pass over N pending jobs (default 100k) on a
// cluster of 1000 busy nodes, without limits and with the association and QOS limits a site
// sets (MaxTRES, GrpTRES, GrpTRESRunMins, MaxTRESPU, GrpTRESMins). Prints the median of 5
// passes in ms. Google Benchmark.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sched/scheduler.h"
#include "state/accounting.h"
#include "state/testing.h"

namespace gantry {
namespace {

using state::ClusterState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

void Must(ClusterState* s, const v1::Event& e) {
  const Status applied = state::Apply(s, e);
  if (!applied.ok()) std::abort();
}

ClusterState Busy(int pending, bool limits) {
  ClusterState s;
  s.return_to_service = 2;
  const std::vector<std::string> names = NodeNames(1000);
  std::vector<v1::Node> nodes;
  for (const std::string& n : names) nodes.push_back(MakeNode(n, 64, 256000, "gpu:h100:8"));
  Must(&s, ConfigEvent(nodes, {MakePartition("batch", names, true)}));
  for (const std::string& n : names) Must(&s, RegisterEvent(n));
  state::ApplyAccountingChange(state::DefaultAccounting(), &s.accounting);
  state::ApplyAccountingChange(LabTeamAlice(), &s.accounting);
  s.enforce_limits = limits;
  if (limits) {
    s.accounting.associations[kAliceAssociation].set_max_tres_per_job("cpu=128,gres/gpu=16");
    s.accounting.associations[kLabAssociation].set_grp_tres("gres/gpu=100000");
    s.accounting.associations[kTeamAssociation].set_grp_tres_mins("cpu=100000000000");
    s.accounting.qos["normal"].set_grp_tres_run_mins("cpu=100000000000");
    s.accounting.qos["normal"].set_max_tres_per_user("gres/gpu=100000");
  }
  // Every node runs a job; `pending` jobs wait (Resources).
  uint32_t id = 1;
  for (const std::string& n : names) {
    v1::Job job = PendingJob(id);
    job.mutable_request()->set_account("team");
    job.mutable_request()->set_qos("normal");
    Must(&s, SubmitEvent(job));
    Must(&s, StartEvent(id++, {n}, kNow, 64, 0));
  }
  for (int i = 0; i < pending; ++i) {
    v1::Job job = PendingJob(id++);
    job.mutable_request()->set_account("team");
    job.mutable_request()->set_qos("normal");
    job.mutable_request()->set_gres("gpu:h100:4");
    job.set_time_limit_min(60);
    Must(&s, SubmitEvent(job));
  }
  return s;
}

void BM_SchedulePass(benchmark::State& st) {
  const ClusterState s = Busy(static_cast<int>(st.range(0)), st.range(1) != 0);
  for (auto _ : st) benchmark::DoNotOptimize(sched::Schedule(s, kNow + 10));
  st.SetLabel(st.range(1) != 0 ? "with limits" : "no limits");
}
BENCHMARK(BM_SchedulePass)
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

}  // namespace
}  // namespace gantry

BENCHMARK_MAIN();
