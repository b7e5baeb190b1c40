#include "slurm_view/job_view.h"

#include <sys/wait.h>

#include <algorithm>
#include <vector>

#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/dependency.h"
#include "text/hostlist.h"
#include "text/tres.h"

namespace gantry::slurm {
namespace {

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  size_t pos = 0;
  while ((pos = s->find(from, pos)) != std::string::npos) {
    s->replace(pos, from.size(), to);
    pos += to.size();
  }
}

// scontrol's _fname_format: %A %a %j %u %x, then relative to the work dir.
std::string ExpandPath(const v1::Job& job, const std::string& pattern) {
  std::string out = pattern;
  const std::string id = std::to_string(job.job_id());
  const bool array = job.array_job_id() != 0;
  ReplaceAll(&out, "%A", array ? std::to_string(job.array_job_id()) : id);
  // NO_VAL for a job that is not one array task.
  ReplaceAll(&out, "%a",
             job.has_array_task_id() ? std::to_string(job.array_task_id()) : "4294967294");
  ReplaceAll(&out, "%j", id);
  ReplaceAll(&out, "%u", UserLabel(job));
  ReplaceAll(&out, "%x", job.request().name());
  if (!out.empty() && out[0] == '/') return out;
  return job.request().work_dir() + "/" + out;
}

}  // namespace

model::JobState StateOf(const v1::Job& job) {
  model::JobState state;
  state.base = static_cast<model::JobBaseState>(
      std::min<uint32_t>(job.state(), model::kJobBaseStateCount - 1));
  state.flags = job.state_flags();
  return state;
}

bool IsPendingJob(const v1::Job& job) { return StateOf(job).base == model::JobBaseState::kPending; }

UnixTime StartTimeOf(const v1::Job& job) {
  if (IsPendingJob(job) && job.expected_start_time() != 0) return job.expected_start_time();
  return job.start_time();
}

int64_t TimeUsed(const v1::Job& job, UnixTime now, UnixTime* stale_at) {
  const model::JobState state = StateOf(job);
  if (job.start_time() == 0 || state.base == model::JobBaseState::kPending) return 0;
  if (state.base == model::JobBaseState::kSuspended) return job.pre_suspend_secs();
  UnixTime end = job.end_time();
  if (state.base == model::JobBaseState::kRunning || end == 0) {
    end = now;
    LowerStaleAt(now + 1, stale_at);
  }
  if (job.suspend_time() != 0) return end - job.suspend_time() + job.pre_suspend_secs();
  return end - job.start_time();
}

uint32_t NodeCount(const v1::Job& job) {
  if (job.nodes_size() > 0) return static_cast<uint32_t>(job.nodes_size());
  return std::max<uint32_t>(1, job.request().min_nodes());
}

uint32_t TaskCount(const v1::Job& job) {
  const v1::JobRequest& r = job.request();
  if (r.num_tasks() > 0) return r.num_tasks();
  if (r.ntasks_per_node() > 0) return r.ntasks_per_node() * NodeCount(job);
  return NodeCount(job);
}

uint32_t CpuCount(const v1::Job& job) {
  if (job.num_cpus() > 0) return job.num_cpus();
  return TaskCount(job) * std::max<uint32_t>(1, job.request().cpus_per_task());
}

std::string NodeList(const v1::Job& job) {
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  return text::CompressHostlistSorted(nodes);
}

std::string Reason(const v1::Job& job) {
  if (!job.state_desc().empty()) return job.state_desc();
  if (!job.reason().empty()) return job.reason();
  return "None";
}

std::string UserLabel(const v1::Job& job) {
  return job.user_name().empty() ? std::to_string(job.user_id()) : job.user_name();
}

std::string GroupLabel(const v1::Job& job) {
  return job.group_name().empty() ? std::to_string(job.group_id()) : job.group_name();
}

std::string TimeText(UnixTime t, const TimeZone& tz, std::string_view zero_text) {
  if (t == 0) return std::string(zero_text);
  return text::FormatIsoTime(t, tz);
}

std::string ExitCodeText(int32_t wait_status) {
  if (wait_status < 0) return "0:0";
  int code = 0;
  int signal = 0;
  if (WIFSIGNALED(wait_status)) {
    signal = WTERMSIG(wait_status);
  } else if (WIFEXITED(wait_status)) {
    code = WEXITSTATUS(wait_status);
  }
  return std::to_string(code) + ":" + std::to_string(signal);
}

std::string StdoutPath(const v1::Job& job) {
  if (!job.request().std_out().empty()) return ExpandPath(job, job.request().std_out());
  if (!job.batch_flag()) return "";
  if (job.array_job_id() != 0) return ExpandPath(job, "slurm-%A_%a.out");
  return job.request().work_dir() + "/slurm-" + std::to_string(job.job_id()) + ".out";
}

std::string DependencyText(const v1::Job& job) {
  if (job.has_dependency_status()) {
    return job.dependency_status().empty() ? "(null)" : job.dependency_status();
  }
  if (job.request().dependency().empty()) return "(null)";
  Result<text::Dependency> dep = text::ParseDependency(job.request().dependency());
  if (!dep.ok()) return job.request().dependency();
  std::string out;
  for (const text::DependencyTerm& term : dep->terms) {
    if (!out.empty()) out += dep->any ? "?" : ",";
    out += text::FormatDependencyTerm(term) + "(unfulfilled)";
  }
  return out;
}

std::string ArrayTaskText(const v1::Job& job) {
  if (job.array_job_id() == 0) return "N/A";
  if (job.has_array_task_id()) return std::to_string(job.array_task_id());
  std::string out = text::FormatTaskIds(
      std::vector<uint32_t>(job.array_pending_tasks().begin(), job.array_pending_tasks().end()));
  if (job.array_task_throttle() != 0) out += "%" + std::to_string(job.array_task_throttle());
  return out;
}

std::string JobIdText(const v1::Job& job) {
  if (job.array_job_id() == 0) return std::to_string(job.job_id());
  const std::string array = std::to_string(job.array_job_id());
  if (job.has_array_task_id()) return array + "_" + std::to_string(job.array_task_id());
  return array + "_[" + ArrayTaskText(job) + "]";
}

uint32_t ArrayJobIdOf(const v1::Job& job) {
  return job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
}

std::vector<v1::Job> ExpandArrayTasks(const v1::Job& job) {
  std::vector<v1::Job> out;
  if (job.array_job_id() == 0 || job.has_array_task_id()) {
    out.push_back(job);
    return out;
  }
  for (uint32_t task : job.array_pending_tasks()) {
    v1::Job copy = job;
    copy.clear_array_pending_tasks();
    copy.set_array_task_id(task);
    out.push_back(std::move(copy));
  }
  return out;
}

std::string StderrPath(const v1::Job& job) {
  if (!job.request().std_err().empty()) return ExpandPath(job, job.request().std_err());
  if (!job.batch_flag()) return "";
  return StdoutPath(job);
}

std::string StdinPath(const v1::Job& job) {
  if (!job.request().std_in().empty()) return ExpandPath(job, job.request().std_in());
  if (!job.batch_flag()) return "";
  return "/dev/null";
}

uint64_t GresCount(std::string_view gres) {
  if (gres.empty()) return 0;
  const size_t colon = gres.rfind(':');
  if (colon == std::string_view::npos) return 1;
  uint64_t count = 0;
  for (char c : gres.substr(colon + 1)) {
    if (!text::IsAsciiDigit(c)) return 1;  // "gpu:b200" without a count means 1
    count = count * 10 + static_cast<uint64_t>(c - '0');
  }
  return count;
}

std::string GresName(std::string_view gres) {
  if (gres.substr(0, 5) == "gres:") gres.remove_prefix(5);
  if (gres.substr(0, 5) == "gres/") gres.remove_prefix(5);
  const size_t colon = gres.rfind(':');
  if (colon == std::string_view::npos) return std::string(gres);
  for (char c : gres.substr(colon + 1)) {
    if (!text::IsAsciiDigit(c)) return std::string(gres);
  }
  return std::string(gres.substr(0, colon));
}

int64_t BillingCount(const v1::Job& job) {
  return job.has_billing() ? static_cast<int64_t>(job.billing()) : CpuCount(job);
}

std::string Tres(const v1::Job& job) {
  if (!job.tres().empty()) return job.tres();
  const v1::JobRequest& r = job.request();
  const int64_t cpus = CpuCount(job);
  const int64_t nodes = NodeCount(job);
  int64_t mem = static_cast<int64_t>(job.alloc_mem_mb());
  if (mem == 0 && r.mem_per_cpu_mb() > 0) mem = static_cast<int64_t>(r.mem_per_cpu_mb()) * cpus;
  if (mem == 0 && r.mem_per_node_mb() > 0) mem = static_cast<int64_t>(r.mem_per_node_mb()) * nodes;
  std::vector<text::TresCount> counts = {
      {{"cpu", ""}, cpus},
      {{"mem", ""}, mem},
      {{"node", ""}, nodes},
      {{"billing", ""}, BillingCount(job)},
  };
  if (const uint64_t gres = GresCount(r.gres()); gres > 0) {
    counts.push_back({{"gres", GresName(r.gres())}, static_cast<int64_t>(gres) * nodes});
  }
  return text::FormatTres(std::move(counts), text::TresZeros::kOmit);
}

}  // namespace gantry::slurm
