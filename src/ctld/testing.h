// Test helpers for the controller (header only): a clock tests move by hand and an agent link
// that records the calls it is asked to make.
#ifndef GANTRY_CTLD_TESTING_H_
#define GANTRY_CTLD_TESTING_H_

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "ctld/agent_link.h"
#include "state/testing.h"

namespace gantry::ctld::testing {

// `now` moves both clocks (time passing); `wall_step` moves only the wall clock (an operator
// or NTP setting it).
class FakeClock final : public Clock {
 public:
  UnixTime Now() const override { return now + wall_step; }
  int64_t MonotonicMs() const override { return now * 1000; }
  UnixTime now = state::testing::kNow;
  UnixTime wall_step = 0;
};

// Records every call the controller makes to agents.
class FakeAgents final : public AgentLink {
 public:
  struct Call {
    std::string what;  // Prepare, Launch, Signal, Terminate, Tasks
    std::string node;
    uint32_t job_id = 0;
    uint64_t epoch = 0;
    int signal = 0;
    std::string script;  // Launch: the script; Tasks: the ranks ("0,1")
  };
  void PrepareJob(const std::string& node, const std::string& /*address*/,
                  v1::PrepareJobRequest r) override {
    Add({"Prepare", node, r.context().job().job_id(), r.context().epoch(), 0, ""});
  }
  void LaunchBatch(const std::string& node, const std::string& /*address*/,
                   v1::LaunchBatchRequest r) override {
    Add({"Launch", node, r.context().job().job_id(), r.context().epoch(), 0, r.payload().script()});
  }
  void SignalJob(const std::string& node, const std::string& /*address*/,
                 v1::SignalJobOnNodeRequest r) override {
    Add({"Signal", node, r.job_id(), r.epoch(), r.signal(), ""});
  }
  void TerminateJob(const std::string& node, const std::string& /*address*/,
                    v1::TerminateJobRequest r) override {
    Add({"Terminate", node, r.job_id(), r.epoch(), 0, ""});
  }
  void LaunchTasks(const std::string& node, const std::string& /*address*/,
                   v1::LaunchTasksRequest r) override {
    std::string ranks;
    for (uint32_t t : r.task_ids()) ranks += (ranks.empty() ? "" : ",") + std::to_string(t);
    Add({"Tasks", node, r.context().job().job_id(), r.context().epoch(), 0, ranks});
  }
  std::vector<std::string> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const Call& c : calls_) {
      out.push_back(c.what + " " + c.node + " " + std::to_string(c.job_id));
    }
    calls_.clear();
    return out;
  }
  std::vector<Call> TakeCalls() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Call> out = std::move(calls_);
    calls_.clear();
    return out;
  }

 private:
  void Add(Call call) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(call));
  }
  std::mutex mu_;
  std::vector<Call> calls_;
};

}  // namespace gantry::ctld::testing

#endif  // GANTRY_CTLD_TESTING_H_
