// The controller's scontrol suspend/resume and scontrol update PartitionName=, with Slurm
// 22.05's texts (checked against the reference cluster):
//   suspend/resume: unknown id "Unexpected message received" (Slurm's reply for a job it does not
//   know); not an operator "Access/permission denied"; pending "Job is pending execution";
//   finished "Job/step already completing or completed"; resume of a job not suspended "Job is
//   not suspended"; suspending a suspended job succeeds and changes nothing.
//   update PartitionName=: not an operator "Invalid user id"; unknown partition "Invalid
//   partition name specified".
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <string_view>

#include "core/job_actions.h"
#include "ctld/controller.h"
#include "ctld/log.h"
#include "model/job_state.h"
#include "state/partition_settings.h"
#include "text/ascii.h"

namespace gantry::ctld {
namespace {

using model::JobBaseState;

constexpr int kNotFound = 5;
constexpr int kPermissionDenied = 7;
constexpr int kFailedPrecondition = 9;
constexpr int kInternal = 13;

std::optional<uint32_t> ParseId(std::string_view text) {
  uint32_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || n == 0) return std::nullopt;
  return n;
}

}  // namespace

void Controller::SignalOnNodesLocked(const v1::Job& job, int sig, v1::SignalScope scope,
                                     AfterCommit* after, const std::string& only_node) {
  core::Effects effects;
  core::SignalOnNodes(CoreLocked(), job, sig, scope, &effects, only_node);
  CarryOutLocked(std::move(effects), nullptr, after);
}

std::optional<Controller::JobRefusal> Controller::SuspendOneJobLocked(
    const Caller& caller, bool suspend, const std::string& text, std::vector<v1::Event>* events,
    AfterCommit* after) {
  const v1::Job* job = nullptr;
  if (const size_t underscore = text.find('_'); underscore != std::string::npos) {
    // An array task, "<array id>_<task id>".
    const std::optional<uint32_t> array = ParseId(text.substr(0, underscore));
    uint32_t task = 0;
    const std::string_view rest = std::string_view(text).substr(underscore + 1);
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), task);
    const auto records = array ? state_.arrays.find(*array) : state_.arrays.end();
    if (ec == std::errc() && ptr == rest.data() + rest.size() && records != state_.arrays.end()) {
      for (uint32_t id : records->second) {
        const v1::Job* record = state_.FindJob(id);
        if (record != nullptr && record->has_array_task_id() && record->array_task_id() == task) {
          job = record;
        }
      }
    }
    if (job == nullptr) return JobRefusal{"Invalid job id specified", kNotFound};
  } else {
    const std::optional<uint32_t> id = ParseId(text);
    job = id ? state_.FindJob(*id) : nullptr;
    if (job == nullptr) return JobRefusal{"Unexpected message received", kInternal};
  }
  if (!IsOperator(caller)) return JobRefusal{"Access/permission denied", kPermissionDenied};
  const auto base = static_cast<JobBaseState>(job->state());
  if (base == JobBaseState::kPending) {
    return JobRefusal{"Job is pending execution", kFailedPrecondition};
  }
  if (model::IsFinished(base)) {
    return JobRefusal{"Job/step already completing or completed", kFailedPrecondition};
  }
  if (suspend && base == JobBaseState::kSuspended) return std::nullopt;  // as Slurm: no error
  if (!suspend && base != JobBaseState::kSuspended) {
    return JobRefusal{"Job is not suspended", kFailedPrecondition};
  }
  v1::Event event = NewEvent();
  if (suspend) {
    event.mutable_job_suspended()->set_job_id(job->job_id());
  } else {
    event.mutable_job_resumed()->set_job_id(job->job_id());
  }
  events->push_back(std::move(event));
  Log("job " + std::to_string(job->job_id()) + (suspend ? " suspended" : " resumed") + " by uid " +
      std::to_string(caller.uid));
  SignalOnNodesLocked(*job, suspend ? SIGSTOP : SIGCONT, v1::SIGNAL_SUSPEND, after);
  return std::nullopt;
}

Status Controller::UpdatePartition(const Caller& caller,
                                   const v1::UpdatePartitionRequest& request) {
  if (!IsOperator(caller)) return PermissionDenied("Invalid user id");
  if (request.settings().empty()) return InvalidArgument("No changes specified");
  v1::PartitionUpdated update;
  update.set_name(request.name());
  for (const auto& [key, value] : request.settings()) {
    GANTRY_ASSIGN_OR_RETURN(std::string canonical, state::CheckPartitionSetting(key, value));
    (*update.mutable_settings())[canonical] = value;
  }

  WriterLock lock(mu_);
  if (state_.FindPartition(request.name()) == nullptr) {
    return NotFound("Invalid partition name specified");
  }
  if (auto nodes = update.settings().find("Nodes");
      nodes != update.settings().end() && !state_.NodeIndexesOf(nodes->second)) {
    return InvalidArgument("Invalid node name specified");
  }
  v1::Event event = NewEvent();
  *event.mutable_partition_updated() = std::move(update);
  std::unique_ptr<store::PendingWrite> pending = CommitLocked(OneEvent(std::move(event)));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), {}));
  Log("partition " + request.name() + " updated by uid " + std::to_string(caller.uid));
  Kick();
  return Status::Ok();
}

}  // namespace gantry::ctld
