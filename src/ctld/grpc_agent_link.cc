#include "ctld/grpc_agent_link.h"

#include <cstdio>

namespace gantry::ctld {
namespace {

// How long a call to a node that did not answer waits before it looks for its turn again.
constexpr std::chrono::milliseconds kUnreachableWait(200);

}  // namespace

GrpcAgentLink::GrpcAgentLink(tls::Identity identity, int threads,
                             std::chrono::seconds give_up_after)
    : identity_(std::move(identity)),
      credentials_(tls::ChannelCredentials(identity_.ca_pem, &identity_)),
      give_up_after_(give_up_after) {
  threads_.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Worker(); });
}

GrpcAgentLink::~GrpcAgentLink() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void GrpcAgentLink::Enqueue(const std::string& node, const std::string& address, std::string what,
                            Attempt attempt) {
  Task task;
  task.due = Clock::now();
  task.deadline = task.due + give_up_after_;
  task.node = node;
  task.address = address;
  task.what = std::move(what);
  task.attempt = std::move(attempt);
  {
    MutexLock lock(mu_);
    tasks_.push(std::move(task));
  }
  cv_.notify_one();
}

v1::Agent::Stub* GrpcAgentLink::StubFor(const std::string& node, const std::string& address) {
  MutexLock lock(mu_);
  std::unique_ptr<v1::Agent::Stub>& stub = stubs_[{node, address}];
  if (!stub) {
    grpc::ChannelArguments args;
    tls::ExpectServerName(&args, tls::NodeCertName(node));
    stub = v1::Agent::NewStub(grpc::CreateCustomChannel(address, credentials_, args));
  }
  return stub.get();
}

AgentLink::Load GrpcAgentLink::CurrentLoad() const {
  Load load;
  load.active = active_.load();
  load.threads = static_cast<uint32_t>(threads_.size());
  MutexLock lock(mu_);
  load.queued = static_cast<uint32_t>(tasks_.size());
  return load;
}

void GrpcAgentLink::Worker() {
  for (;;) {
    Task task;
    {
      MutexLock lock(mu_);
      for (;;) {
        if (stopping_) return;
        if (!tasks_.empty() && tasks_.top().due <= Clock::now()) break;
        if (tasks_.empty()) {
          cv_.wait(lock);
        } else {
          // A copy: the queue may reallocate while this thread waits without the lock.
          const Clock::time_point due = tasks_.top().due;
          cv_.wait_until(lock, due);
        }
      }
      task = tasks_.top();
      tasks_.pop();
      if (task.address.empty()) {
        std::fprintf(stderr, "gantryd: %s to %s dropped: the node has no address\n",
                     task.what.c_str(), task.node.c_str());
        continue;
      }
      NodeHealth& health = health_[task.node];
      if (health.unreachable && health.in_flight > 0) {
        // One attempt at a time for a node that did not answer: this call waits its turn.
        if (Clock::now() > task.deadline) {
          std::fprintf(stderr,
                       "gantryd: %s to %s (%s) dropped: the node did not answer for %lld s\n",
                       task.what.c_str(), task.node.c_str(), task.address.c_str(),
                       static_cast<long long>(give_up_after_.count()));
          continue;
        }
        task.due = Clock::now() + kUnreachableWait;
        tasks_.push(std::move(task));
        continue;
      }
      ++health.in_flight;
    }
    v1::Agent::Stub* stub = StubFor(task.node, task.address);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    ++active_;
    const grpc::Status status = task.attempt(stub, &context);
    --active_;
    const bool retryable = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                           status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    {
      MutexLock lock(mu_);
      NodeHealth& health = health_[task.node];
      --health.in_flight;
      health.unreachable = retryable;
    }
    if (status.ok()) continue;
    ++task.tries;
    const auto backoff = std::chrono::milliseconds(std::min(5000, 100 << std::min(task.tries, 6)));
    if (!retryable || Clock::now() + backoff > task.deadline) {
      std::fprintf(stderr, "gantryd: %s to %s (%s) failed after %d tries: %s\n", task.what.c_str(),
                   task.node.c_str(), task.address.c_str(), task.tries,
                   status.error_message().c_str());
      continue;
    }
    task.due = Clock::now() + backoff;
    {
      MutexLock lock(mu_);
      tasks_.push(std::move(task));
    }
    cv_.notify_one();
  }
}

void GrpcAgentLink::PrepareJob(const std::string& node, const std::string& address,
                               v1::PrepareJobRequest request) {
  Enqueue(node, address, "PrepareJob " + std::to_string(request.context().job().job_id()),
          [request = std::move(request)](v1::Agent::Stub* stub, grpc::ClientContext* context) {
            v1::AgentReply reply;
            return stub->PrepareJob(context, request, &reply);
          });
}

void GrpcAgentLink::LaunchBatch(const std::string& node, const std::string& address,
                                v1::LaunchBatchRequest request) {
  Enqueue(node, address, "LaunchBatch " + std::to_string(request.context().job().job_id()),
          [request = std::move(request)](v1::Agent::Stub* stub, grpc::ClientContext* context) {
            v1::AgentReply reply;
            return stub->LaunchBatch(context, request, &reply);
          });
}

void GrpcAgentLink::SignalJob(const std::string& node, const std::string& address,
                              v1::SignalJobOnNodeRequest request) {
  Enqueue(node, address, "SignalJob " + std::to_string(request.job_id()),
          [request = std::move(request)](v1::Agent::Stub* stub, grpc::ClientContext* context) {
            v1::AgentReply reply;
            return stub->SignalJob(context, request, &reply);
          });
}

void GrpcAgentLink::LaunchTasks(const std::string& node, const std::string& address,
                                v1::LaunchTasksRequest request) {
  Enqueue(node, address,
          "LaunchTasks " + std::to_string(request.context().job().job_id()) + "." +
              std::to_string(request.step().step_id()),
          [request = std::move(request)](v1::Agent::Stub* stub, grpc::ClientContext* context) {
            v1::AgentReply reply;
            return stub->LaunchTasks(context, request, &reply);
          });
}

void GrpcAgentLink::TerminateJob(const std::string& node, const std::string& address,
                                 v1::TerminateJobRequest request) {
  Enqueue(node, address, "TerminateJob " + std::to_string(request.job_id()),
          [request = std::move(request)](v1::Agent::Stub* stub, grpc::ClientContext* context) {
            v1::AgentReply reply;
            return stub->TerminateJob(context, request, &reply);
          });
}

}  // namespace gantry::ctld
