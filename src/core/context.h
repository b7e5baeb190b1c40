// What the core's decisions read besides the cluster state: the settings that shape them
// (core::Config), the controller's memory between calls (core::Memory: what is not in the
// state because it is not durable), and the time of the call.
//
// The core never reads a clock, a file or the network: gantryd passes its clocks' readings,
// the simulator its simulated time, tests a fixed one.
#ifndef GANTRY_CORE_CONTEXT_H_
#define GANTRY_CORE_CONTEXT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "sched/priority.h"
#include "sched/scheduler.h"
#include "spec/effective_config.h"
#include "state/cluster_state.h"

namespace gantry::core {

// The settings the core's decisions read, and those state::Apply reads (ConfigureState puts them
// in the state): slurm.conf keys as the cluster's spec sets them, Slurm's defaults otherwise.
// What nodes check of their health (core/health.h).
struct HealthConfig {
  std::string program;          // HealthCheckProgram ("" = none)
  uint32_t interval_sec = 0;    // HealthCheckInterval (0 = at agent start only)
  std::string node_state;       // HealthCheckNodeState as configured ("" = ANY)
  std::string home_storage;     // the spec's home_directory_storage
  std::string tmp_fs = "/tmp";  // TmpFS
};

struct Config {
  uint32_t kill_wait_sec = 30;      // KillWait
  uint32_t node_timeout_sec = 300;  // SlurmdTimeout: silent this long = DOWN
  // AuthInfo=cred_expire=N: a requeued job waits N + 1 s before it may start again.
  uint32_t cred_expire_sec = 120;
  sched::SchedulerOptions scheduler;  // SchedulerType, SchedulerParameters, Preempt*, SelectType
  sched::PriorityConfig priority;     // PriorityType, PriorityWeight*, PriorityFlags...
  int32_t return_to_service = 2;      // ReturnToService
  bool enforce_limits = false;        // AccountingStorageEnforce limits
  bool enforce_safe = false;          // AccountingStorageEnforce safe
  int64_t usage_half_life_sec = int64_t{7} * 24 * 3600;  // PriorityDecayHalfLife (0: no decay)
  // When the controller started (PriorityUsageResetPeriod counts boundaries from it) and the
  // time zone the period's boundaries fall in.
  UnixTime boot_time = 0;
  const TimeZone* time_zone = &TimeZone::Utc();
  HealthConfig health;
};

// Reads Config from a cluster's effective configuration; errors name the key and the value that
// does not parse. boot_time and time_zone are left to the caller.
Result<Config> ConfigFromSpec(const spec::EffectiveConfig& config);

// Puts what Apply reads of the configuration into `state` (return_to_service, the limits'
// enforcement, MAX_TRES billing, preemption and its exempt time, the usage half-life).
void ConfigureState(const Config& config, state::ClusterState* state);

// A silent node's jobs are settled this long after its agent has surely fenced them (on top of
// SlurmdTimeout and KillWait).
inline constexpr int64_t kFenceMarginSec = 3;

// The controller's memory between calls. Rebuilt after a restart from nothing: each field says
// what its loss costs.
struct Memory {
  // job -> the nodes whose prolog is still running (a restart asks them all again).
  std::map<uint32_t, std::set<std::string>> prologs;
  // node -> when it was last heard from, monotonic ms (a restart hears them anew).
  std::map<std::string, int64_t> last_heard;
  // (job, node) -> since when, monotonic ms, the node's agent owes a reply to a call (or when
  // it was last sent again): OnHeartbeat sends it again once overdue (a restart waits anew).
  std::map<std::pair<uint32_t, std::string>, int64_t> missing_since;
  // A running job's time limit counts monotonic time: job -> (the wall time its running time
  // counts from, the monotonic ms that stood for it when first seen). After a restart the wall
  // clock anchors it again.
  std::map<uint32_t, std::pair<UnixTime, int64_t>> run_anchors;
  // Running jobs (id, epoch) that got their --signal warning (after a restart: warned again).
  std::set<std::pair<uint32_t, uint64_t>> warned;
  // When each running job's warning or time limit is next due (monotonic ms, a little early),
  // as (due, job) and by job, and the jobs events touched since the time limits were last
  // looked at: the timer pass looks at those only. noted_through is the state's events_applied
  // as of the last event NoteApplied saw, with none missed, and noted_lineage the state's
  // lineage: when either differs (events applied unseen, as in recovery, or another state)
  // the next timer pass looks at every running job. Lost in a restart: the same.
  std::set<std::pair<int64_t, uint32_t>> time_limit_due;
  std::map<uint32_t, int64_t> time_limit_due_of;
  void ForgetTimeLimit(uint32_t job) {
    const auto due = time_limit_due_of.find(job);
    if (due == time_limit_due_of.end()) return;
    time_limit_due.erase({due->second, job});
    time_limit_due_of.erase(due);
  }
  std::set<uint32_t> time_limit_touched;
  // Pending jobs' begin times still to come, as (begin, job), for the timers (core/timers.h);
  // entries may outlive their job's wait (harmless: a cycle with nothing to do). Noted anew
  // with the time limits after a restart.
  std::set<std::pair<UnixTime, uint32_t>> begin_due;
  uint64_t noted_through = 0;
  uint64_t noted_lineage = 0;
  // The wall and monotonic clocks at the last timer pass, to notice a step of the wall clock.
  UnixTime last_wall = 0;
  int64_t last_mono_ms = 0;
  UnixTime last_backfill = 0;        // when a pass last backfilled (bf_interval)
  std::set<uint32_t> planned_jobs;   // jobs with an expected start set
  UnixTime last_priority_calc = 0;   // the last full priority recalculation
  UnixTime usage_reset_checked = 0;  // the last usage reset boundary looked at
  // node -> its last health report (a restart forgets them until each node's next run).
  std::map<std::string, v1::HealthReport> health;
  // The scheduler's picture of the nodes from the last pass, so the next reads only the nodes
  // that changed (after a restart: the first pass reads them all).
  sched::NodeTables node_tables;
};

// One call's inputs. `state` is read only; `memory` is the core's own.
struct Context {
  const state::ClusterState& state;
  const Config& config;
  Memory& memory;
  UnixTime now = 0;     // wall clock, seconds
  int64_t mono_ms = 0;  // monotonic clock, milliseconds
  // gantryd's: how the scheduling pass gives way to requests (sched::PassYield); none in the
  // simulator and the tests, whose passes are pure.
  sched::PassYield* yield = nullptr;
  // A replay of a recorded cycle (gantry sim --from-state-dir): whether it backfilled and
  // recalculated every priority comes from the record instead of bf_interval and
  // PriorityCalcPeriod. None: the cycle decides.
  const v1::PassMark* replay = nullptr;
};

}  // namespace gantry::core

#endif  // GANTRY_CORE_CONTEXT_H_
