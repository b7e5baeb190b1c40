// AgentLink over gRPC with mutual TLS: each call is queued and sent by a small pool of threads
// over a channel that presents the controller's certificate and accepts only the certificate of
// the node it dials (tls/cluster_tls.h); a call that fails (agent unreachable, busy) is retried
// with backoff for up to `give_up_after` seconds, then dropped with a log line (a node that stays
// silent is declared DOWN by the heartbeat timeout, which also settles its jobs).
// A node whose last attempt found it unreachable gets one attempt at a time until one gets
// through: its calls wait in the queue instead of holding every thread for their deadline, so
// a cut-off node does not stall the calls to the others.
#ifndef GANTRY_CTLD_GRPC_AGENT_LINK_H_
#define GANTRY_CTLD_GRPC_AGENT_LINK_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "ctld/agent_link.h"
#include "gantry/v1/agent.grpc.pb.h"
#include "tls/cluster_tls.h"

namespace gantry::ctld {

class GrpcAgentLink final : public AgentLink {
 public:
  GrpcAgentLink(tls::Identity identity, int threads = 8,
                std::chrono::seconds give_up_after = std::chrono::seconds(120));
  ~GrpcAgentLink() override;

  void PrepareJob(const std::string& node, const std::string& address,
                  v1::PrepareJobRequest request) override;
  void LaunchBatch(const std::string& node, const std::string& address,
                   v1::LaunchBatchRequest request) override;
  void SignalJob(const std::string& node, const std::string& address,
                 v1::SignalJobOnNodeRequest request) override;
  void LaunchTasks(const std::string& node, const std::string& address,
                   v1::LaunchTasksRequest request) override;
  void TerminateJob(const std::string& node, const std::string& address,
                    v1::TerminateJobRequest request) override;
  Load CurrentLoad() const override;

 private:
  using Clock = std::chrono::steady_clock;
  // One call: returns the gRPC status of an attempt.
  using Attempt = std::function<grpc::Status(v1::Agent::Stub*, grpc::ClientContext*)>;
  struct Task {
    Clock::time_point due;
    Clock::time_point deadline;  // give up after
    int tries = 0;
    std::string node, address, what;
    Attempt attempt;
    bool operator>(const Task& other) const { return due > other.due; }
  };

  void Enqueue(const std::string& node, const std::string& address, std::string what,
               Attempt attempt);
  void Worker();
  v1::Agent::Stub* StubFor(const std::string& node, const std::string& address);

  const tls::Identity identity_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  const std::chrono::seconds give_up_after_;
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  std::atomic<uint32_t> active_{0};  // calls in progress
  std::priority_queue<Task, std::vector<Task>, std::greater<>> tasks_ GANTRY_GUARDED_BY(mu_);
  // By node and address.
  std::map<std::pair<std::string, std::string>, std::unique_ptr<v1::Agent::Stub>> stubs_
      GANTRY_GUARDED_BY(mu_);
  struct NodeHealth {
    bool unreachable = false;  // its last attempt failed UNAVAILABLE or DEADLINE_EXCEEDED
    int in_flight = 0;
  };
  std::map<std::string, NodeHealth> health_ GANTRY_GUARDED_BY(mu_);  // by node
  bool stopping_ GANTRY_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_GRPC_AGENT_LINK_H_
