// What sdiag reports about gantryd: calls by message type and by user (how many, how long),
// jobs by what happened to them, and the scheduler's passes, counted from the controller's
// start or the last reset (sdiag -r).
//
// Jobs are counted from the events gantryd applies: submitted (an array once), started, and
// ended as canceled (CANCELLED), failed (NODE_FAIL, BOOT_FAIL: the job could not run where it
// was placed) or completed (every other end: the job ran its course, whatever its exit).
// A pass counts as a main cycle; one in which backfill tried to plan a job counts as a backfill
// cycle too (Gantry plans inside the same pass), with the same time.
// Thread-safe.
#ifndef GANTRY_CTLD_DIAG_STATS_H_
#define GANTRY_CTLD_DIAG_STATS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/events.pb.h"
#include "metrics/histogram.h"
#include "metrics/openmetrics.h"
#include "model/rpc_type.h"
#include "sched/scheduler.h"

namespace gantry::ctld {

class DiagStats {
 public:
  explicit DiagStats(int64_t now) : since_(now) {}
  DiagStats(const DiagStats&) = delete;
  DiagStats& operator=(const DiagStats&) = delete;

  // One request from its arrival to its answer: in progress while it lives, counted (type,
  // caller, time) when it is destroyed.
  class Call {
   public:
    Call(DiagStats* stats, model::RpcType type, uint32_t uid);
    ~Call();
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;
    // Once the request is read: the type it turned out to be (GetJobs for one job...).
    void set_type(model::RpcType type);

   private:
    friend class DiagStats;
    DiagStats* stats_;
    uint32_t type_;
    uint32_t uid_;
    std::chrono::steady_clock::time_point start_;
  };

  void CountEvent(const v1::Event& event);
  // A scheduling pass at `now` (priorities, decisions and applying them) took `usec`.
  void CountPass(const sched::PassStats& pass, uint64_t usec, int64_t now);
  // Counting starts again at `now` (the backfilled total since the start stays).
  void Reset(int64_t now);
  // Everything counted here into *reply; `self` (the sdiag call) is left out of the pending
  // RPCs. The caller adds the time, job states and agent figures.
  void Fill(const Call* self, v1::GetStatsReply* reply) const;

  // /metrics/scheduler: what sdiag shows, under Slurm 25.11's metric names (slurm_schedule_*,
  // slurm_bf_*, slurm_sdiag_*: reset by sdiag -r, as there), and what Gantry adds and never
  // resets: gantry_jobs_{submitted,started,ended}_total, gantry_preemptions_total, and each call
  // type's count and latency (gantry_rpc_seconds{type}).
  void WriteMetrics(metrics::MetricsText* out) const;

 private:
  struct Tally {
    uint32_t count = 0;
    uint64_t usec = 0;
  };

  mutable Mutex mu_;
  int64_t since_ GANTRY_GUARDED_BY(mu_);
  std::map<uint32_t, Tally> by_type_ GANTRY_GUARDED_BY(mu_);
  std::map<uint32_t, Tally> by_user_ GANTRY_GUARDED_BY(mu_);
  std::map<uint32_t, uint32_t> in_progress_ GANTRY_GUARDED_BY(mu_);  // type -> calls
  v1::GetStatsReply counters_ GANTRY_GUARDED_BY(mu_);  // jobs_*, schedule_*, bf_* fields
  // Since the start, never reset: jobs_* fields, and preemptions (suspended or requeued for a
  // preemptor).
  v1::GetStatsReply totals_ GANTRY_GUARDED_BY(mu_);
  uint64_t preemptions_ GANTRY_GUARDED_BY(mu_) = 0;
  std::map<uint32_t, std::unique_ptr<metrics::LatencyHistogram>> latency_ GANTRY_GUARDED_BY(mu_);
  uint32_t backfilled_since_start_ GANTRY_GUARDED_BY(mu_) = 0;
};

// The message type a request counts as (sdiag's names: one job, one user's or all jobs...).
model::RpcType RpcTypeOf(const v1::GetJobsRequest& request);
model::RpcType RpcTypeOf(const v1::GetPrioritiesRequest& request);
model::RpcType RpcTypeOf(const v1::JobStepRequest& request);
model::RpcType RpcTypeOf(const v1::JobReport& report);

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_DIAG_STATS_H_
