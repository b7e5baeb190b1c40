// request_latency_bench: how long a submission (`sbatch -H`) and a listing (`squeue -j N`) wait
// while gantryd schedules a full queue. An in-process ctld::Controller, as gantryd runs it (its
// background loop, the scheduler's defaults) over its SQLite store in a temporary folder, with
// stand-in agents that accept every call (a prolog is done at once): 10k nodes (64 CPUs, 256 GB)
// each running two half-node jobs of 12 hours (inside bf_window: every pass plans), and PENDING
// eligible jobs (not held) that wait for them, half sharing a node (8-32 CPUs), half wanting 1-4
// whole nodes. While the loop passes back to back (each submission kicks it), two client threads
// make SAMPLES submissions of a held job and SAMPLES listings of one job by id, 20 ms apart, and
// the bench prints each one's p50 / p99 / max latency beside the passes' count and mean and longest
// time. The transport (gRPC over the unix socket, the command's process) is left out: the figures
// are the controller's own, where a request waits for a pass.
//
// usage: request_latency_bench [PENDING] [SAMPLES] [SchedulerParameters]
// (e.g. "bf_yield_interval=0": the pass never lets requests in, as before decision 0011.)
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctld/controller.h"
#include "state/testing.h"
#include "store/sqlite_store.h"
#include "sys/system_time.h"

namespace gantry {
namespace {

using state::testing::MakeNode;
using state::testing::MakePartition;

constexpr int kNodes = 10000;
constexpr ctld::Caller kRoot{0, 0};

// Accepts every call: a prolog is done at once (reported back), the rest is forgotten, so the
// jobs run for ever as far as the controller can tell.
class StandInAgents final : public ctld::AgentLink {
 public:
  ctld::Controller* controller = nullptr;
  void PrepareJob(const std::string& node, const std::string&, v1::PrepareJobRequest r) override {
    v1::JobReport report;
    report.set_node(node);
    report.set_job_id(r.context().job().job_id());
    report.set_epoch(r.context().epoch());
    report.set_kind(v1::JobReport::PROLOG_OK);
    (void)controller->Report(kRoot, report);
  }
  void LaunchBatch(const std::string&, const std::string&, v1::LaunchBatchRequest) override {}
  void SignalJob(const std::string&, const std::string&, v1::SignalJobOnNodeRequest) override {}
  void TerminateJob(const std::string&, const std::string&, v1::TerminateJobRequest) override {}
  void LaunchTasks(const std::string&, const std::string&, v1::LaunchTasksRequest) override {}
};

v1::SubmitJobRequest Request(uint32_t i, bool hold) {
  v1::SubmitJobRequest r;
  v1::JobRequest* q = r.mutable_request();
  q->set_work_dir("/tmp");
  q->set_name("bench");
  q->set_hold(hold);
  q->set_time_limit_min(60 * (1 + i % 24));
  if (i % 2 == 0) {
    q->set_min_nodes(1);
    q->set_num_tasks(1);
    q->set_cpus_per_task(8 * (1 + i / 2 % 4));
    q->set_mem_per_node_mb(1000);
  } else {
    q->set_min_nodes(1 + i / 2 % 4);
    q->set_exclusive(true);
  }
  r.mutable_payload()->set_script("#!/bin/sh\ntrue\n");
  return r;
}

void Must(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "request_latency_bench: %s failed\n", what);
    std::exit(1);
  }
}

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

Percentiles Of(std::vector<double> ms) {
  std::ranges::sort(ms);
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * double(ms.size())))]; };
  return {at(0.5), at(0.99), ms.back()};
}

int Run(int pending, int samples, const std::string& parameters) {
  ctld::ControllerConfig config;
  config.cluster_name = "bench";
  config.core.node_timeout_sec = 3600;
  config.admit.max_job_count = 1000000;
  Result<sched::SchedulerOptions> options =
      sched::SchedulerOptions::FromConfig("sched/backfill", parameters);
  Must(options.ok(), "SchedulerParameters");
  config.core.scheduler = *options;
  char dir[] = "/tmp/request_latency_bench.XXXXXX";
  Must(mkdtemp(dir) != nullptr, "mkdtemp");
  auto store = store::OpenSqliteStore(std::string(dir) + "/state.db");
  Must(store.ok(), "store");
  const sys::SystemClock& clock = sys::SystemClock::Get();
  StandInAgents agents;
  ctld::Controller controller(config, store->get(), &clock, &agents);
  agents.controller = &controller;
  v1::ConfigLoaded nodes;
  std::vector<std::string> names;
  for (int i = 0; i < kNodes; ++i) {
    names.push_back("n" + std::to_string(i));
    *nodes.add_nodes() = MakeNode(names.back(), 64, 256000, "");
  }
  *nodes.add_partitions() = MakePartition("batch", names, true);
  Must(controller.Recover(nodes).ok(), "recover");
  auto phase = std::chrono::steady_clock::now();
  auto took = [&phase](const char* what) {
    const auto now = std::chrono::steady_clock::now();
    std::printf("%s: %.1f s\n", what, std::chrono::duration<double>(now - phase).count());
    phase = now;
  };
  for (const std::string& n : names) {
    v1::RegisterRequest r;
    r.set_node(n);
    r.set_address("127.0.0.1:1");
    r.set_boot_time(clock.Now() - 60);
    Must(controller.Register(kRoot, r).ok(), "register");
  }
  took("10k nodes registered");
  // Two half-node jobs on every node, then the queue.
  for (int i = 0; i < 2 * kNodes; ++i) {
    v1::SubmitJobRequest r = Request(0, false);
    r.mutable_request()->set_cpus_per_task(32);
    r.mutable_request()->set_time_limit_min(12 * 60);
    Result<v1::SubmitJobReply> reply = controller.Submit(kRoot, r);
    if (!reply.ok()) std::fprintf(stderr, "%s\n", reply.status().ToString().c_str());
    Must(reply.ok(), "submit");
  }
  controller.RunOnce();
  const auto fill = std::chrono::steady_clock::now();
  {  // 8 threads share the store's commits, as concurrent sbatch calls do
    std::vector<std::thread> fillers;
    for (int t = 0; t < 8; ++t) {
      fillers.emplace_back([&, t] {
        for (int i = t; i < pending; i += 8) {
          Must(controller.Submit(kRoot, Request(i, false)).ok(), "fill");
        }
      });
    }
    for (std::thread& t : fillers) t.join();
  }
  std::printf("queue filled: %d pending in %.1f s\n", pending,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - fill).count());
  controller.RunOnce();  // the first full pass (priorities, plans), before the clients start
  // The snapshot the fill's events call for (gantryd takes one every 20,000 events): writers
  // wait for it, listings do not.
  phase = std::chrono::steady_clock::now();
  controller.SaveSnapshotNow();
  took("a snapshot of the state");
  v1::GetStatsRequest reset;  // sdiag -r: the figures below count the measured time only
  reset.set_reset(true);
  Must(controller.GetStats(kRoot, reset, nullptr).ok(), "sdiag -r");

  controller.Start();
  std::atomic<uint32_t> last_id{0};
  std::vector<double> submit_ms, list_ms;
  std::thread submitter([&] {
    for (int i = 0; i < samples; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      Result<v1::SubmitJobReply> reply = controller.Submit(kRoot, Request(i, true));
      submit_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      Must(reply.ok(), "sbatch -H");
      last_id = reply->job_id();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::thread lister([&] {
    v1::GetJobsRequest r;  // what squeue -j N asks for
    r.set_slim(true);
    for (int i = 0; i < samples; ++i) {
      r.clear_job_ids();
      r.add_job_ids(last_id.load() == 0 ? 1 : last_id.load());
      const auto t0 = std::chrono::steady_clock::now();
      wire::Slices out;
      Must(controller.GetJobsSerialized(r, &out).ok(), "squeue -j");
      list_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  submitter.join();
  lister.join();
  controller.Stop();
  const v1::GetStatsReply after = *controller.GetStats(kRoot, v1::GetStatsRequest(), nullptr);
  const uint64_t passes = after.schedule_cycle_counter();
  const double pass_mean =
      passes == 0 ? 0 : double(after.schedule_cycle_sum()) / 1000.0 / double(passes);
  const Percentiles s = Of(submit_ms), l = Of(list_ms);
  std::printf(
      "SchedulerParameters=%s: %llu passes while measuring, mean %.1f ms, longest %.1f ms "
      "(the last planned %u jobs)\n"
      "  sbatch -H   p50 %.2f ms  p99 %.2f ms  max %.2f ms  (%d)\n"
      "  squeue -j   p50 %.2f ms  p99 %.2f ms  max %.2f ms  (%d)\n",
      parameters.empty() ? "(default)" : parameters.c_str(),
      static_cast<unsigned long long>(passes), pass_mean,
      double(after.schedule_cycle_max()) / 1000.0, after.bf_last_depth_try(), s.p50, s.p99, s.max,
      samples, l.p50, l.p99, l.max, samples);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("  peak RSS %.0f MB\n", double(usage.ru_maxrss) / 1024.0);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace gantry

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int pending = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int samples = argc > 2 ? std::atoi(argv[2]) : 500;
  return gantry::Run(pending, samples, argc > 3 ? argv[3] : "");
}
