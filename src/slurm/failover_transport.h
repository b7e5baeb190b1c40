// Replicated controllers (decision 0017) seen from a command: one transport per controller,
// made when first needed. A call goes to the controller that answered last. When it is refused
// by a standby (model/standby.h) or could not be sent (no connection), it did nothing: it goes
// to the leader the standby named when that is one of `targets`, else to the next controller, and
// after a round with no leader, round again every `pause` until `window` has passed (a failover
// takes seconds). Any other answer, errors included, is the call's: a connection lost during a call
// is not retried, so a submission is never made twice. Thread-compatible, like every transport.
#ifndef GANTRY_SLURM_FAILOVER_TRANSPORT_H_
#define GANTRY_SLURM_FAILOVER_TRANSPORT_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "slurm/controller_client.h"

namespace gantry::slurm {

class FailoverTransport final : public ControllerTransport {
 public:
  // Makes controller i's transport; an error counts as a call not sent.
  using Maker = std::function<Result<std::unique_ptr<ControllerTransport>>(size_t i)>;

  // `targets`: each controller's address as a standby names the leader (host:port), for the
  // jump; may be shorter or empty (no jumps).
  FailoverTransport(size_t count, Maker make, std::vector<std::string> targets = {},
                    std::chrono::milliseconds window = std::chrono::seconds(20),
                    std::chrono::milliseconds pause = std::chrono::milliseconds(100));

  Result<std::string> Call(wire::Method method, const std::string& request,
                           int timeout_seconds) override;
  Status CallInPieces(wire::Method method, const std::string& request, int timeout_seconds,
                      const std::function<Status(std::string_view piece)>& on_piece) override;
  std::unique_ptr<ControllerTransport> Another() const override;

  // The controller calls go to now (the last that answered).
  size_t current() const { return current_; }

 private:
  // Runs `call` on each controller in turn as described above.
  Status Route(const std::function<Status(ControllerTransport&, bool* retryable)>& call);

  size_t count_;
  Maker make_;
  std::vector<std::string> targets_;
  std::chrono::milliseconds window_;
  std::chrono::milliseconds pause_;
  std::vector<std::unique_ptr<ControllerTransport>> transports_;
  size_t current_ = 0;
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_FAILOVER_TRANSPORT_H_
