#include "rest/job_json.h"

#include <sys/wait.h>

#include <csignal>
#include <cstring>
#include <string>

#include "model/gpu_text.h"
#include "model/job_state.h"
#include "slurm_view/job_view.h"

namespace gantry::rest {
namespace {

using slurm::kInfiniteMinutes;

// A time member: unset when 0.
void Time(JsonOut& out, std::string_view name, int64_t t) { out.MemberNoVal(name, t, t != 0); }

// A time limit in minutes: infinite for UNLIMITED, unset for 0.
void Minutes(JsonOut& out, std::string_view name, uint32_t minutes) {
  out.Key(name);
  if (minutes == kInfiniteMinutes) {
    out.NoValInfinite();
  } else if (minutes == 0) {
    out.NoValUnset();
  } else {
    out.NoValNumber(minutes);
  }
}

// "gres:gpu:4" / "gpu:4" as a TRES-per-node string, "gres/gpu:4".
std::string TresPerNode(std::string_view gres) {
  if (gres.empty()) return "";
  std::string out;
  size_t start = 0;
  while (start <= gres.size()) {
    const size_t comma = gres.find(',', start);
    std::string_view one = gres.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (one.starts_with("gres:") || one.starts_with("gres/")) one.remove_prefix(5);
    if (!out.empty()) out += ',';
    out += "gres/";
    out += one;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

void WriteExitCode(int32_t wait_status, bool ended, JsonOut& out) {
  out.BeginObject();
  out.Key("status").BeginArray();
  if (!ended || wait_status < 0) {
    out.String("PENDING").EndArray();
    out.Key("return_code").NoValUnset();
    out.Key("signal").BeginObject().Key("id").NoValUnset().Member("name", "").EndObject();
    out.EndObject();
    return;
  }
  if (WIFSIGNALED(wait_status)) {
    out.String("SIGNALED");
    if (WCOREDUMP(wait_status)) out.String("CORE_DUMPED");
    out.EndArray();
    out.Key("return_code").NoValUnset();
    const int signal = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(signal);
    out.Key("signal")
        .BeginObject()
        .Key("id")
        .NoValNumber(signal)
        .Member("name", abbrev != nullptr ? abbrev : "")
        .EndObject();
  } else {
    const int code = WEXITSTATUS(wait_status);
    out.String(code == 0 ? "SUCCESS" : "ERROR").EndArray();
    out.Key("return_code").NoValNumber(code);
    out.Key("signal").BeginObject().Key("id").NoValUnset().Member("name", "").EndObject();
  }
  out.EndObject();
}

void WriteJobStateArray(const v1::Job& job, JsonOut& out) {
  const std::string states = model::JobStateComplete(slurm::StateOf(job));
  out.MemberCsvArray("job_state", states);
}

void WriteJobInfo(const v1::Job& job, std::string_view cluster, JsonOut& out) {
  const v1::JobRequest& r = job.request();
  const model::JobState state = slurm::StateOf(job);
  const bool started = job.start_time() != 0 && !model::IsPending(state.base);
  const bool ended = model::IsFinished(state.base);
  const bool array_task = job.has_array_task_id();
  out.BeginObject();
  out.Member("account", r.account());
  Time(out, "accrue_time", job.accrue_time());
  out.Member("admin_comment", "");
  out.Member("allocating_node", r.submit_host());
  out.MemberNoVal("array_job_id", job.array_job_id());
  out.MemberNoVal("array_task_id", array_task ? job.array_task_id() : 0, array_task);
  out.MemberNoVal("array_max_tasks", job.array_task_throttle());
  out.Member("array_task_string",
             job.array_job_id() != 0 && !array_task ? slurm::ArrayTaskText(job) : "");
  out.MemberInt("association_id", 0);
  out.Member("batch_features", "");
  out.MemberBool("batch_flag", job.batch_flag());
  out.Member("batch_host", started && job.nodes_size() > 0 ? job.nodes(0) : "");
  out.Key("flags").BeginArray().EndArray();
  out.Member("burst_buffer", "").Member("burst_buffer_state", "");
  out.Member("cluster", cluster);
  out.Member("cluster_features", "");
  out.Member("command", r.command());
  out.Member("comment", r.comment());
  out.Member("container", "").Member("container_id", "");
  out.MemberBool("contiguous", false);
  out.MemberInt("core_spec", 0).MemberInt("thread_spec", 0);
  out.Key("cores_per_socket").NoValUnset();
  out.Key("billable_tres");
  if (job.has_billing()) {
    out.NoValDouble(job.billing());
  } else {
    out.NoValUnset();
  }
  out.MemberNoVal("cpus_per_task", r.cpus_per_task() == 0 ? 1 : r.cpus_per_task());
  out.Key("cpu_frequency_minimum").NoValUnset();
  out.Key("cpu_frequency_maximum").NoValUnset();
  out.Key("cpu_frequency_governor").NoValUnset();
  out.Member("cpus_per_tres", "").Member("cron", "");
  out.MemberNoVal("deadline", 0);
  out.MemberNoVal("delay_boot", 0);
  const std::string dependency = slurm::DependencyText(job);
  out.Member("dependency", dependency == "(null)" ? "" : dependency);
  out.Key("derived_exit_code");
  WriteExitCode(job.derived_exit_status(), ended, out);
  Time(out, "eligible_time", job.eligible_time());
  Time(out, "end_time", job.end_time());
  out.Member("excluded_nodes", r.exc_nodes());
  out.Key("exit_code");
  WriteExitCode(job.exit_status(), ended, out);
  out.Member("extra", "").Member("failed_node", "");
  out.Member("features", r.features());
  out.Member("federation_origin", "")
      .Member("federation_siblings_active", "")
      .Member("federation_siblings_viable", "");
  out.Key("gres_detail").BeginArray();
  for (const v1::NodeGpus& gpus : job.node_gpus()) {
    out.String(model::FormatGresWithIndexes(gpus));  // one per node, in the job's node order
  }
  out.EndArray();
  out.MemberInt("group_id", job.group_id());
  out.Member("group_name", slurm::GroupLabel(job));
  out.MemberNoVal("het_job_id", 0);
  out.Member("het_job_id_set", "");
  out.MemberNoVal("het_job_offset", 0);
  out.MemberInt("job_id", job.job_id());
  out.Key("job_size_str").BeginArray().EndArray();
  WriteJobStateArray(job, out);
  Time(out, "last_sched_evaluation", job.last_sched_eval());
  out.Member("licenses", "");
  out.MemberCsvArray("mail_type", r.mail_type() == "NONE" ? "" : r.mail_type());
  out.Member("mail_user", r.mail_user());
  out.MemberNoVal("max_cpus", 0);
  out.MemberNoVal("max_nodes", r.max_nodes());
  out.Member("mcs_label", "").Member("memory_per_tres", "");
  out.Member("name", r.name());
  out.Member("network", "");
  out.Member("nodes", started ? slurm::NodeList(job) : "");
  out.MemberInt("nice", r.nice());
  out.Key("tasks_per_core").NoValUnset();
  out.Key("tasks_per_tres").NoValUnset();
  out.MemberNoVal("tasks_per_node", r.ntasks_per_node(), r.ntasks_per_node() != 0);
  out.Key("tasks_per_socket").NoValUnset();
  out.Key("tasks_per_board").NoValUnset();
  out.MemberNoVal("cpus", slurm::CpuCount(job));
  out.MemberNoVal("node_count", slurm::NodeCount(job));
  out.MemberNoVal("tasks", slurm::TaskCount(job));
  out.Member("partition", job.partition());
  out.Member("prefer", "");
  out.MemberNoVal("memory_per_cpu", r.mem_per_cpu_mb(), r.mem_per_cpu_mb() != 0);
  out.MemberNoVal("memory_per_node", r.mem_per_node_mb(), r.mem_per_node_mb() != 0);
  out.MemberNoVal("minimum_cpus_per_node", r.cpus_per_task() == 0 ? 1 : r.cpus_per_task());
  out.MemberNoVal("minimum_tmp_disk_per_node", 0);
  out.Key("power").BeginObject().Key("flags").BeginArray().EndArray().EndObject();
  Time(out, "preempt_time", job.preempt_time());
  Time(out, "preemptable_time", job.preempt_eligible_time());
  out.MemberNoVal("pre_sus_time", job.pre_suspend_secs());
  out.MemberBool("hold", job.priority() == 0 && model::IsPending(state.base));
  out.MemberNoVal("priority", job.priority());
  out.Key("priority_by_partition").BeginArray().EndArray();
  out.Key("profile").BeginArray().String("NOT_SET").EndArray();
  out.Member("qos", r.qos());
  out.MemberBool("reboot", false);
  out.Member("required_nodes", r.req_nodes());
  out.MemberInt("required_switches", 0);
  out.MemberBool("requeue", job.requeue());
  out.MemberNoVal("resize_time", 0);
  out.MemberInt("restart_cnt", job.restarts());
  out.Member("resv_name", "");
  out.Member("scheduled_nodes", "");
  out.Member("selinux_context", "");
  out.Key("shared").BeginArray();
  if (r.exclusive()) out.String("none");
  out.EndArray();
  out.MemberInt("sockets_per_board", 0);
  out.Key("sockets_per_node").NoValUnset();
  Time(out, "start_time", slurm::StartTimeOf(job));
  out.Member("state_description", job.state_desc());
  out.Member("state_reason", job.reason().empty() ? "None" : job.reason());
  out.Member("standard_error", slurm::StderrPath(job));
  out.Member("standard_input", slurm::StdinPath(job));
  out.Member("standard_output", slurm::StdoutPath(job));
  Time(out, "submit_time", job.submit_time());
  Time(out, "suspend_time", job.suspend_time());
  out.Member("system_comment", "");
  Minutes(out, "time_limit", job.time_limit_min());
  Minutes(out, "time_minimum", r.time_min_min());
  out.Key("threads_per_core").NoValUnset();
  out.Member("tres_bind", "").Member("tres_freq", "").Member("tres_per_job", "");
  out.Member("tres_per_node", TresPerNode(r.gres()));
  out.Member("tres_per_socket", "").Member("tres_per_task", "");
  const std::string tres = slurm::Tres(job);
  out.Member("tres_req_str", tres);
  out.Member("tres_alloc_str", started ? tres : "");
  out.MemberInt("user_id", job.user_id());
  out.Member("user_name", slurm::UserLabel(job));
  out.MemberInt("maximum_switch_wait_time", 0);
  out.Member("wckey", "");
  out.Member("current_working_directory", r.work_dir());
  out.EndObject();
}

}  // namespace gantry::rest
