#include "agent/request_check.h"

#include <csignal>
#include <string>
#include <vector>

#include "text/hostlist.h"

namespace gantry::agent {
namespace {

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text.substr(0, 80)) {
    if (c == '\0') {
      out += "\\0";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  if (text.size() > 80) out += "...";
  return out + "\"";
}

std::string Field(std::string_view prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : std::string(prefix) + "." + std::string(name);
}

Status CheckEnvList(const google::protobuf::RepeatedPtrField<std::string>& env,
                    const std::string& field) {
  for (int i = 0; i < env.size(); ++i) {
    const std::string& entry = env[i];
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || entry.find('\0') != std::string::npos) {
      return InvalidArgument(field + "[" + std::to_string(i) + "]: " + Quote(entry) +
                             " is not NAME=VALUE (a name, '=', no NUL byte)");
    }
  }
  return Status::Ok();
}

Status CheckNoNul(const std::string& value, const std::string& field) {
  if (value.find('\0') != std::string::npos) {
    return InvalidArgument(field + ": " + Quote(value) + " contains a NUL byte");
  }
  return Status::Ok();
}

}  // namespace

Status CheckJobContext(const gantry::v1::JobContext& context, std::string_view node,
                       std::string_view field) {
  const gantry::v1::Job& job = context.job();
  if (job.job_id() == 0) return InvalidArgument(Field(field, "job.job_id") + ": missing (0)");
  if (job.nodes_size() == 0) return InvalidArgument(Field(field, "job.nodes") + ": empty");
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  bool here = false;
  for (const std::string& name : nodes) here = here || name == node;
  if (!here) {
    return InvalidArgument(Field(field, "job.nodes") + ": this node (" + std::string(node) +
                           ") is not among the job's nodes (" + text::CompressHostlist(nodes) +
                           ")");
  }
  if (context.node_index() >= nodes.size()) {
    return InvalidArgument(Field(field, "node_index") + ": " +
                           std::to_string(context.node_index()) + " is out of range for " +
                           std::to_string(nodes.size()) + " nodes");
  }
  if (nodes[context.node_index()] != node) {
    return InvalidArgument(
        Field(field, "node_index") + ": " + std::to_string(context.node_index()) + " names node " +
        nodes[context.node_index()] + ", not this node (" + std::string(node) + ")");
  }
  return CheckEnvList(context.extra_env(), Field(field, "extra_env"));
}

Status CheckPrepareJob(const gantry::v1::PrepareJobRequest& request, std::string_view node) {
  if (!request.has_context()) return InvalidArgument("context: missing");
  return CheckJobContext(request.context(), node, "context");
}

Status CheckLaunchBatch(const gantry::v1::LaunchBatchRequest& request, std::string_view node) {
  if (!request.has_context()) return InvalidArgument("context: missing");
  GANTRY_RETURN_IF_ERROR(CheckJobContext(request.context(), node, "context"));
  const gantry::v1::Job& job = request.context().job();
  if (job.nodes(0) != node) {
    return InvalidArgument("context.job.nodes: the batch script runs on the job's first node (" +
                           job.nodes(0) + "), not on this node (" + std::string(node) + ")");
  }
  if (request.payload().script().empty()) return InvalidArgument("payload.script: empty");
  GANTRY_RETURN_IF_ERROR(CheckEnvList(request.payload().environment(), "payload.environment"));
  for (int i = 0; i < request.payload().argv_size(); ++i) {
    GANTRY_RETURN_IF_ERROR(
        CheckNoNul(request.payload().argv(i), "payload.argv[" + std::to_string(i) + "]"));
  }
  const gantry::v1::JobRequest& req = job.request();
  if (req.work_dir().empty() || req.work_dir()[0] != '/') {
    return InvalidArgument("context.job.request.work_dir: " + Quote(req.work_dir()) +
                           " is not an absolute path");
  }
  GANTRY_RETURN_IF_ERROR(CheckNoNul(req.work_dir(), "context.job.request.work_dir"));
  GANTRY_RETURN_IF_ERROR(CheckNoNul(req.std_in(), "context.job.request.std_in"));
  GANTRY_RETURN_IF_ERROR(CheckNoNul(req.std_out(), "context.job.request.std_out"));
  GANTRY_RETURN_IF_ERROR(CheckNoNul(req.std_err(), "context.job.request.std_err"));
  return Status::Ok();
}

Status CheckLaunchTasks(const gantry::v1::LaunchTasksRequest& request, std::string_view node) {
  GANTRY_RETURN_IF_ERROR(CheckJobContext(request.context(), node, "context"));
  const gantry::v1::StepLaunch& launch = request.launch();
  if (launch.argv().empty() || launch.argv(0).empty()) {
    return InvalidArgument("launch.argv: empty (no command to run)");
  }
  for (int i = 0; i < launch.argv_size(); ++i) {
    GANTRY_RETURN_IF_ERROR(CheckNoNul(launch.argv(i), "launch.argv[" + std::to_string(i) + "]"));
  }
  GANTRY_RETURN_IF_ERROR(CheckEnvList(launch.environment(), "launch.environment"));
  GANTRY_RETURN_IF_ERROR(CheckNoNul(launch.work_dir(), "launch.work_dir"));
  if (launch.io_host().empty() || launch.io_port() == 0 || launch.io_port() > 65535) {
    return InvalidArgument("launch.io_host/io_port: " + Quote(launch.io_host()) + ":" +
                           std::to_string(launch.io_port()) + " is not a host and a port 1-65535");
  }
  if (launch.io_key().empty()) return InvalidArgument("launch.io_key: empty");
  const gantry::v1::JobStep& step = request.step();
  const uint32_t index = request.step_node_index();
  if (index >= static_cast<uint32_t>(step.nodes_size()) || step.nodes(index) != node) {
    return InvalidArgument("step_node_index: " + std::to_string(index) +
                           " does not name this node (" + std::string(node) + ") in step.nodes");
  }
  if (step.tasks_per_node_size() != step.nodes_size() || request.task_ids().empty() ||
      step.tasks_per_node(index) != static_cast<uint32_t>(request.task_ids_size())) {
    return InvalidArgument("task_ids: " + std::to_string(request.task_ids_size()) +
                           " tasks, but step.tasks_per_node gives this node another count");
  }
  return Status::Ok();
}

Status CheckSignalJob(const gantry::v1::SignalJobOnNodeRequest& request) {
  if (request.job_id() == 0) return InvalidArgument("job_id: missing (0)");
  if (request.signal() < 1 || request.signal() > SIGRTMAX) {
    return InvalidArgument("signal: " + std::to_string(request.signal()) +
                           " is not a signal number (1-" + std::to_string(SIGRTMAX) + ")");
  }
  if (!gantry::v1::SignalScope_IsValid(request.scope())) {
    return InvalidArgument("scope: " + std::to_string(request.scope()) + " is not a SignalScope");
  }
  if (request.scope() == gantry::v1::SIGNAL_SUSPEND && request.signal() != SIGSTOP &&
      request.signal() != SIGCONT) {
    return InvalidArgument("scope: SIGNAL_SUSPEND takes SIGSTOP or SIGCONT, not signal " +
                           std::to_string(request.signal()));
  }
  return Status::Ok();
}

Status CheckTerminateJob(const gantry::v1::TerminateJobRequest& request) {
  if (request.job_id() == 0) return InvalidArgument("job_id: missing (0)");
  if (request.kill_wait_sec() > kMaxKillWaitSec) {
    return InvalidArgument("kill_wait_sec: " + std::to_string(request.kill_wait_sec()) +
                           " is more than " + std::to_string(kMaxKillWaitSec));
  }
  if (request.has_context() && request.context().has_job()) {
    const gantry::v1::JobContext& context = request.context();
    if (context.job().job_id() != request.job_id()) {
      return InvalidArgument("context.job.job_id: " + std::to_string(context.job().job_id()) +
                             " differs from job_id " + std::to_string(request.job_id()));
    }
    GANTRY_RETURN_IF_ERROR(CheckEnvList(context.extra_env(), "context.extra_env"));
  }
  return Status::Ok();
}

}  // namespace gantry::agent
