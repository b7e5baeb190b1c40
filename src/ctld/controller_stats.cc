// Controller: sdiag's statistics (ctld/diag_stats.h) with the figures only the controller
// knows: the jobs' states now, the agents' load, the clock's latency.
#include <chrono>
#include <ctime>
#include <shared_mutex>

#include "ctld/controller.h"
#include "model/job_state.h"

namespace gantry::ctld {
namespace {

// How long 1000 reads of the wall clock take, in microseconds (sdiag's gettimeofday latency).
uint32_t ClockLatencyMicros() {
  const auto start = std::chrono::steady_clock::now();
  timespec ts{};
  for (int i = 0; i < 1000; ++i) clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
}

}  // namespace

Result<v1::GetStatsReply> Controller::GetStats(const Caller& caller,
                                               const v1::GetStatsRequest& request,
                                               const DiagStats::Call* self) {
  const UnixTime now = clock_->Now();
  v1::GetStatsReply reply;
  if (request.reset()) {
    if (!IsOperator(caller)) return PermissionDenied("Access/permission denied");
    stats_.Reset(now);
    return reply;
  }
  stats_.Fill(self, &reply);
  reply.set_time(now);
  const AgentLink::Load load = agents_->CurrentLoad();
  reply.set_agent_queue_size(load.queued);
  reply.set_agent_count(load.active);
  reply.set_agent_thread_count(load.threads);
  reply.set_gettimeofday_latency_usec(ClockLatencyMicros());
  uint32_t pending = 0;
  uint32_t running = 0;
  {
    ReaderLock lock(mu_);
    for (const auto& [id, job] : state_.jobs) {
      const auto base = static_cast<model::JobBaseState>(job.state());
      pending += base == model::JobBaseState::kPending ? 1 : 0;
      running += base == model::JobBaseState::kRunning ? 1 : 0;
    }
  }
  reply.set_job_states_time(now);
  reply.set_jobs_pending(pending);
  reply.set_jobs_running(running);
  return reply;
}

}  // namespace gantry::ctld
