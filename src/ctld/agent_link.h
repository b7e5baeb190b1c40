// The controller's outbound side: calls to the node agents. Implementations queue the call and
// return at once (the controller calls them after its changes are durable, never while holding
// its lock for long), retrying an unreachable agent for a while; a node that stays silent is
// handled by the heartbeat timeout, not here.
#ifndef GANTRY_CTLD_AGENT_LINK_H_
#define GANTRY_CTLD_AGENT_LINK_H_

#include <cstdint>
#include <string>

#include "gantry/v1/agent.pb.h"

namespace gantry::ctld {

class AgentLink {
 public:
  // sdiag's agent figures.
  struct Load {
    uint32_t queued = 0;   // calls waiting to be sent or retried
    uint32_t active = 0;   // calls in progress
    uint32_t threads = 0;  // threads that send them
  };

  virtual ~AgentLink() = default;
  virtual Load CurrentLoad() const { return {}; }
  // `address` is the agent's host:port as it registered.
  virtual void PrepareJob(const std::string& node, const std::string& address,
                          v1::PrepareJobRequest request) = 0;
  virtual void LaunchBatch(const std::string& node, const std::string& address,
                           v1::LaunchBatchRequest request) = 0;
  virtual void SignalJob(const std::string& node, const std::string& address,
                         v1::SignalJobOnNodeRequest request) = 0;
  virtual void TerminateJob(const std::string& node, const std::string& address,
                            v1::TerminateJobRequest request) = 0;
  virtual void LaunchTasks(const std::string& node, const std::string& address,
                           v1::LaunchTasksRequest request) = 0;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_AGENT_LINK_H_
