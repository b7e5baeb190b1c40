#include "slurm/failover_transport.h"

#include <cstdint>
#include <thread>
#include <utility>

#include "model/standby.h"

namespace gantry::slurm {
namespace {

// Whether a failed call did nothing and may go to another controller.
bool Retryable(const Status& status, const ControllerTransport* transport) {
  if (status.ok()) return false;
  if (status.code() == StatusCode::kUnavailable && model::IsStandbyRefusal(status.message())) {
    return true;
  }
  return transport == nullptr || transport->last_call_unsent();
}

}  // namespace

FailoverTransport::FailoverTransport(size_t count, Maker make, std::vector<std::string> targets,
                                     std::chrono::milliseconds window,
                                     std::chrono::milliseconds pause)
    : count_(count),
      make_(std::move(make)),
      targets_(std::move(targets)),
      window_(window),
      pause_(pause) {
  transports_.resize(count_);
}

Status FailoverTransport::Route(
    const std::function<Status(ControllerTransport&, bool* retryable)>& call) {
  const auto deadline = std::chrono::steady_clock::now() + window_;
  Status last = Unavailable("no controller");
  for (;;) {
    constexpr size_t kNone = SIZE_MAX;
    size_t jump = kNone;  // the leader a standby named, tried next
    for (size_t i = 0; i < count_; ++i) {
      const size_t at = jump != kNone ? jump : (current_ + i) % count_;
      jump = kNone;
      if (transports_[at] == nullptr) {
        Result<std::unique_ptr<ControllerTransport>> made = make_(at);
        if (!made.ok()) {
          last = made.status();
          continue;
        }
        transports_[at] = std::move(*made);
      }
      bool retryable = false;
      Status status = call(*transports_[at], &retryable);
      if (!retryable) {
        current_ = at;
        return status;
      }
      last = status;
      const std::string_view leader = model::LeaderAddressIn(status.message());
      for (size_t t = 0; t < targets_.size() && !leader.empty(); ++t) {
        if (targets_[t] == leader && t != at) jump = t;
      }
    }
    if (std::chrono::steady_clock::now() + pause_ >= deadline) return last;
    std::this_thread::sleep_for(pause_);
  }
}

Result<std::string> FailoverTransport::Call(wire::Method method, const std::string& request,
                                            int timeout_seconds) {
  std::string reply;
  Status status = Route([&](ControllerTransport& transport, bool* retryable) {
    Result<std::string> got = transport.Call(method, request, timeout_seconds);
    if (!got.ok()) {
      *retryable = Retryable(got.status(), &transport);
      return got.status();
    }
    reply = std::move(*got);
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return reply;
}

Status FailoverTransport::CallInPieces(
    wire::Method method, const std::string& request, int timeout_seconds,
    const std::function<Status(std::string_view piece)>& on_piece) {
  return Route([&](ControllerTransport& transport, bool* retryable) {
    bool delivered = false;  // once a piece went to the caller, the call is the caller's
    Status status =
        transport.CallInPieces(method, request, timeout_seconds, [&](std::string_view piece) {
          delivered = true;
          return on_piece(piece);
        });
    *retryable = !delivered && Retryable(status, &transport);
    return status;
  });
}

std::unique_ptr<ControllerTransport> FailoverTransport::Another() const {
  auto other = std::make_unique<FailoverTransport>(count_, make_, targets_, window_, pause_);
  other->current_ = current_;
  return other;
}

}  // namespace gantry::slurm
