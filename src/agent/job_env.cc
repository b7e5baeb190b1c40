#include "agent/job_env.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "model/task_layout.h"
#include "text/array_spec.h"
#include "text/gres.h"
#include "text/hostlist.h"

namespace gantry::agent {
namespace {

// Slurm 22.05's SLURM_PROTOCOL_VERSION and select/cons_tres plugin id, as SLURM_WORKING_CLUSTER
// carries them.
constexpr char kWorkingClusterSuffix[] = ":9728:109";

// A "K=V" list where setting a name again replaces its value in place.
class EnvList {
 public:
  void Set(std::string_view name, std::string_view value) {
    std::string entry = std::string(name) + "=" + std::string(value);
    auto it = index_.find(std::string(name));
    if (it != index_.end()) {
      entries_[it->second] = std::move(entry);
      return;
    }
    index_.emplace(std::string(name), entries_.size());
    entries_.push_back(std::move(entry));
  }
  void SetIfAbsent(std::string_view name, std::string_view value) {
    if (!Has(name)) Set(name, value);
  }
  // A "K=V" entry; one without a name before '=' is ignored.
  void SetEntry(const std::string& entry) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) return;
    const std::string_view view = entry;
    Set(view.substr(0, eq), view.substr(eq + 1));
  }
  bool Has(std::string_view name) const { return index_.contains(std::string(name)); }
  std::vector<std::string> Take() { return std::move(entries_); }

 private:
  std::vector<std::string> entries_;
  std::map<std::string, size_t> index_;
};

std::string Str(uint64_t v) { return std::to_string(v); }

uint32_t GpuCount(const std::string& gres) {
  auto parsed = text::ParseGres(gres, text::GresSyntax::kJobRequest);
  if (!parsed.ok()) return 0;
  int64_t n = 0;
  for (const text::GresSpec& g : *parsed) {
    if (g.name == "gpu") n += g.count;
  }
  return static_cast<uint32_t>(std::clamp<int64_t>(n, 0, 1024));
}

void SetClusterValues(const NodeEnv& node, EnvList* env) {
  if (!node.cluster_name.empty()) env->Set("SLURM_CLUSTER_NAME", node.cluster_name);
  if (!node.conf_path.empty()) {
    env->Set("SLURM_CONF", node.conf_path);
    env->Set("GANTRY_CONF", node.conf_path);
  }
}

// SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID of an array task; with whole_shape also the
// array's SLURM_ARRAY_TASK_{COUNT,MAX,MIN,STEP} (the batch step has them, prolog/epilog not).
void SetArrayValues(const gantry::v1::Job& job, bool whole_shape, EnvList* env) {
  if (job.array_job_id() == 0 || !job.has_array_task_id()) return;
  env->Set("SLURM_ARRAY_JOB_ID", Str(job.array_job_id()));
  env->Set("SLURM_ARRAY_TASK_ID", Str(job.array_task_id()));
  if (!whole_shape) return;
  Result<text::ArraySpec> spec = text::ParseArraySpec(job.request().array(), UINT32_MAX);
  if (!spec.ok()) return;
  const text::ArrayShape shape = text::ShapeOf(spec->tasks);
  env->Set("SLURM_ARRAY_TASK_COUNT", Str(shape.count));
  env->Set("SLURM_ARRAY_TASK_MAX", Str(shape.max));
  env->Set("SLURM_ARRAY_TASK_MIN", Str(shape.min));
  env->Set("SLURM_ARRAY_TASK_STEP", Str(shape.step));
}

std::string JoinIndexes(const std::vector<uint32_t>& ids) {
  std::string out;
  for (uint32_t i : ids) out += (out.empty() ? "" : ",") + Str(i);
  return out;
}

// The job's GPUs on this node: SLURM_GPUS_ON_NODE, SLURM_JOB_GPUS (and SLURM_STEP_GPUS for a
// step), and CUDA_VISIBLE_DEVICES/GPU_DEVICE_ORDINAL: all of them, or with `per_task` > 0 the
// task's own (local id L: the L*per_task-th to the (L+1)*per_task-1-th).
void SetGpuValues(const std::vector<uint32_t>& gpus, bool step, uint32_t per_task,
                  uint32_t local_id, EnvList* env) {
  if (gpus.empty()) return;
  const std::string ids = JoinIndexes(gpus);
  env->Set("SLURM_GPUS_ON_NODE", Str(gpus.size()));
  env->Set("SLURM_JOB_GPUS", ids);
  if (step) env->Set("SLURM_STEP_GPUS", ids);
  std::vector<uint32_t> visible = gpus;
  if (per_task > 0) {
    visible.clear();
    for (uint64_t k = uint64_t{local_id} * per_task; k < (uint64_t{local_id} + 1) * per_task; ++k) {
      if (k < gpus.size()) visible.push_back(gpus[k]);
    }
  }
  env->Set("CUDA_VISIBLE_DEVICES", JoinIndexes(visible));
  env->Set("GPU_DEVICE_ORDINAL", JoinIndexes(visible));
}

// MASTER_ADDR and MASTER_PORT unless the user's environment has them (MasterPortOf).
void SetMasterValues(const gantry::v1::JobContext& context, EnvList* env) {
  const gantry::v1::Job& job = context.job();
  const std::string& host = !context.first_node_host().empty() ? context.first_node_host()
                            : job.nodes_size() > 0             ? job.nodes(0)
                                                               : std::string();
  if (!host.empty()) env->SetIfAbsent("MASTER_ADDR", host);
  env->SetIfAbsent("MASTER_PORT", Str(MasterPortOf(job.job_id())));
}

}  // namespace

uint32_t MasterPortOf(uint32_t job_id) { return 12000 + job_id % 20000; }

std::vector<uint32_t> JobGpusOnNode(const gantry::v1::Job& job, uint32_t node_index) {
  if (job.node_gpus_size() > 0) {
    if (node_index >= static_cast<uint32_t>(job.node_gpus_size())) return {};
    const auto& idx = job.node_gpus(static_cast<int>(node_index)).idx();
    return {idx.begin(), idx.end()};
  }
  std::vector<uint32_t> first;  // a record from before GPU indexes: the node's first ones
  for (uint32_t i = 0; i < GpuCount(job.request().gres()); ++i) first.push_back(i);
  return first;
}

std::vector<std::string> BuildBatchEnvironment(const gantry::v1::JobContext& context,
                                               const gantry::v1::JobPayload& payload,
                                               const NodeEnv& node, const UserEnv& user) {
  const gantry::v1::Job& job = context.job();
  const gantry::v1::JobRequest& req = job.request();
  EnvList env;
  for (const std::string& entry : payload.environment()) env.SetEntry(entry);

  if (!user.home.empty()) env.SetIfAbsent("HOME", user.home);
  if (!user.name.empty()) {
    env.SetIfAbsent("USER", user.name);
    env.SetIfAbsent("LOGNAME", user.name);
  }
  if (!user.shell.empty()) env.SetIfAbsent("SHELL", user.shell);

  SetClusterValues(node, &env);
  if (!node.controller_address.empty()) {
    env.Set("SLURM_WORKING_CLUSTER",
            node.cluster_name + ":" + node.controller_address + kWorkingClusterSuffix);
  }

  const uint32_t nnodes = std::max(job.nodes_size(), 1);
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  const std::string nodelist = text::CompressHostlistSorted(nodes);
  const uint32_t cpus_on_node = std::max<uint32_t>(job.num_cpus() / nnodes, 1);
  const std::vector<uint32_t> cpus(nnodes, cpus_on_node);
  const uint32_t cpus_per_task = req.cpus_per_task() > 0 ? req.cpus_per_task() : 1;
  uint32_t num_tasks = req.num_tasks();
  if (num_tasks == 0 && req.ntasks_per_node() > 0) num_tasks = req.ntasks_per_node() * nnodes;
  const uint32_t layout_tasks =
      num_tasks > 0 ? num_tasks : std::max<uint32_t>(cpus_on_node * nnodes / cpus_per_task, 1);

  const std::string job_id = Str(job.job_id());
  env.Set("SLURM_JOB_ID", job_id);
  env.Set("SLURM_JOB_NUM_NODES", Str(nnodes));
  env.Set("SLURM_JOB_NODELIST", nodelist);
  env.Set("SLURM_JOB_PARTITION", job.partition());
  env.Set("SLURM_NODE_ALIASES", "(null)");
  env.Set("SLURM_JOB_CPUS_PER_NODE", model::FormatCountsPerNode(cpus));
  env.Set("ENVIRONMENT", "BATCH");
  env.Set("HOSTNAME", node.node_name);
  env.Set("SLURM_JOBID", job_id);
  env.Set("SLURM_NNODES", Str(nnodes));
  env.Set("SLURM_NODELIST", nodelist);
  if (req.cpus_per_task() > 0) env.Set("SLURM_CPUS_PER_TASK", Str(req.cpus_per_task()));
  if (num_tasks > 0) {
    env.Set("SLURM_NTASKS", Str(num_tasks));
    env.Set("SLURM_NPROCS", Str(num_tasks));
  }
  if (req.ntasks_per_node() > 0) env.Set("SLURM_NTASKS_PER_NODE", Str(req.ntasks_per_node()));
  env.Set("SLURM_TASKS_PER_NODE",
          model::FormatCountsPerNode(model::BlockTaskLayout(layout_tasks, cpus, cpus_per_task)));
  if (req.mem_per_cpu_mb() > 0) {
    env.Set("SLURM_MEM_PER_CPU", Str(req.mem_per_cpu_mb()));
  } else if (req.mem_per_node_mb() > 0) {
    env.Set("SLURM_MEM_PER_NODE", Str(req.mem_per_node_mb()));
  }
  if (!req.account().empty()) env.Set("SLURM_JOB_ACCOUNT", req.account());
  if (!req.qos().empty()) env.Set("SLURM_JOB_QOS", req.qos());
  // Only for a job that ran before (requeued), as slurmd does.
  if (job.restarts() > 0) env.Set("SLURM_RESTART_COUNT", Str(job.restarts()));
  SetArrayValues(job, /*whole_shape=*/true, &env);

  // What sbatch puts in the job's environment itself.
  env.Set("SLURM_JOB_NAME", req.name());
  const std::string& submit_dir = req.submit_dir().empty() ? req.work_dir() : req.submit_dir();
  if (!submit_dir.empty()) env.Set("SLURM_SUBMIT_DIR", submit_dir);
  if (!req.submit_host().empty()) env.Set("SLURM_SUBMIT_HOST", req.submit_host());
  env.SetIfAbsent("SLURM_PRIO_PROCESS", "0");

  // What slurmstepd adds for the batch step.
  env.Set("SLURM_JOB_UID", Str(job.user_id()));
  env.Set("SLURM_JOB_GID", Str(job.group_id()));
  env.Set("SLURM_JOB_USER", job.user_name().empty() ? user.name : job.user_name());
  env.Set("SLURMD_NODENAME", node.node_name);
  env.Set("SLURM_CPUS_ON_NODE", Str(cpus_on_node));
  env.Set("SLURM_NODEID", Str(context.node_index()));
  env.Set("SLURM_PROCID", "0");
  env.Set("SLURM_LOCALID", "0");
  env.Set("SLURM_GTIDS", "0");
  env.Set("SLURM_TOPOLOGY_ADDR", node.node_name);
  env.Set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  SetGpuValues(JobGpusOnNode(job, context.node_index()), /*step=*/false, 0, 0, &env);
  SetMasterValues(context, &env);

  for (const std::string& entry : context.extra_env()) env.SetEntry(entry);
  return env.Take();
}

std::vector<std::string> BuildStepEnvironment(const gantry::v1::LaunchTasksRequest& request,
                                              uint32_t rank, uint32_t local_id,
                                              const NodeEnv& node) {
  const gantry::v1::JobContext& context = request.context();
  const gantry::v1::Job& job = context.job();
  const gantry::v1::JobStep& step = request.step();
  const gantry::v1::StepLaunch& launch = request.launch();
  EnvList env;
  for (const std::string& entry : launch.environment()) env.SetEntry(entry);

  const std::string job_id = Str(job.job_id());
  std::vector<std::string> job_nodes(job.nodes().begin(), job.nodes().end());
  env.Set("SLURM_JOB_ID", job_id);
  env.Set("SLURM_JOBID", job_id);
  env.Set("SLURM_JOB_NODELIST", text::CompressHostlistSorted(job_nodes));
  env.Set("SLURM_JOB_NUM_NODES", Str(job_nodes.size()));
  env.Set("SLURM_JOB_PARTITION", job.partition());
  env.Set("SLURM_JOB_UID", Str(job.user_id()));
  env.Set("SLURM_JOB_GID", Str(job.group_id()));
  if (!job.user_name().empty()) env.Set("SLURM_JOB_USER", job.user_name());
  if (!job.request().account().empty()) env.Set("SLURM_JOB_ACCOUNT", job.request().account());
  if (!job.request().qos().empty()) env.Set("SLURM_JOB_QOS", job.request().qos());
  env.SetIfAbsent("SLURM_JOB_NAME", job.request().name());
  SetClusterValues(node, &env);
  for (const std::string& entry : context.extra_env()) env.SetEntry(entry);

  std::vector<std::string> step_nodes(step.nodes().begin(), step.nodes().end());
  const std::vector<uint32_t> counts(step.tasks_per_node().begin(), step.tasks_per_node().end());
  uint32_t num_tasks = 0;
  for (uint32_t c : counts) num_tasks += c;
  const std::string step_nodelist = text::CompressHostlistSorted(step_nodes);
  const std::string step_id = Str(step.step_id());
  const std::string tasks_per_node = model::FormatCountsPerNode(counts);
  env.Set("SLURM_STEP_ID", step_id);
  env.Set("SLURM_STEPID", step_id);
  env.Set("SLURM_STEP_NODELIST", step_nodelist);
  env.Set("SLURM_STEP_NUM_NODES", Str(step_nodes.size()));
  env.Set("SLURM_STEP_NUM_TASKS", Str(num_tasks));
  env.Set("SLURM_STEP_TASKS_PER_NODE", tasks_per_node);
  env.Set("SLURM_NTASKS", Str(num_tasks));
  env.Set("SLURM_NPROCS", Str(num_tasks));
  env.Set("SLURM_NNODES", Str(step_nodes.size()));
  env.Set("SLURM_NODELIST", step_nodelist);
  env.Set("SLURM_TASKS_PER_NODE", tasks_per_node);
  const model::Distribution distribution =
      model::ParseDistribution(step.distribution()).value_or(model::Distribution{});
  if (distribution.kind == model::TaskDistribution::kPlane) {
    env.Set("SLURM_DISTRIBUTION", "plane");
    env.Set("SLURM_DIST_PLANESIZE", Str(distribution.plane_size));
  } else {
    env.Set("SLURM_DISTRIBUTION", distribution.ToString());
  }
  if (step.cpus_per_task() > 0) env.Set("SLURM_CPUS_PER_TASK", Str(step.cpus_per_task()));
  env.Set("SLURM_SRUN_COMM_HOST", launch.io_host());
  env.Set("SLURM_SRUN_COMM_PORT", Str(launch.io_port()));
  env.Set("SLURM_STEP_LAUNCHER_PORT", Str(launch.io_port()));
  env.Set("SLURM_LAUNCH_NODE_IPADDR", launch.io_host());
  if (!launch.cpu_bind().empty()) env.Set("SLURM_CPU_BIND", launch.cpu_bind());

  const uint32_t nnodes = std::max(job.nodes_size(), 1);
  env.Set("SLURMD_NODENAME", node.node_name);
  env.Set("SLURM_TOPOLOGY_ADDR", node.node_name);
  env.Set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  env.Set("SLURM_CPUS_ON_NODE", Str(std::max<uint32_t>(job.num_cpus() / nnodes, 1)));
  env.Set("SLURM_NODEID", Str(request.step_node_index()));
  const std::vector<uint32_t> here(request.task_ids().begin(), request.task_ids().end());
  env.Set("SLURM_GTIDS", JoinIndexes(here));
  env.Set("SLURM_PROCID", Str(rank));
  env.Set("SLURM_LOCALID", Str(local_id));

  SetGpuValues(JobGpusOnNode(job, context.node_index()), /*step=*/true, launch.gpus_per_task(),
               local_id, &env);
  SetMasterValues(context, &env);
  return env.Take();
}

std::vector<std::string> BuildScriptEnvironment(ScriptKind kind, uint32_t job_id,
                                                const gantry::v1::JobContext& context,
                                                const NodeEnv& node) {
  const gantry::v1::Job& job = context.job();
  const gantry::v1::JobRequest& req = job.request();
  const bool known = job.job_id() == job_id;
  EnvList env;
  env.Set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  env.Set("SLURM_SCRIPT_CONTEXT", kind == ScriptKind::kProlog ? "prolog_slurmd" : "epilog_slurmd");
  SetClusterValues(node, &env);
  env.Set("SLURMD_NODENAME", node.node_name);
  env.Set("SLURM_JOB_ID", Str(job_id));
  env.Set("SLURM_JOBID", Str(job_id));
  if (known) {
    env.Set("SLURM_JOB_UID", Str(job.user_id()));
    env.Set("SLURM_JOB_GID", Str(job.group_id()));
    if (!job.user_name().empty()) env.Set("SLURM_JOB_USER", job.user_name());
    if (!req.name().empty()) env.Set("SLURM_JOB_NAME", req.name());
    std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
    if (!nodes.empty()) env.Set("SLURM_JOB_NODELIST", text::CompressHostlistSorted(nodes));
    if (!job.partition().empty()) env.Set("SLURM_JOB_PARTITION", job.partition());
    if (!req.account().empty()) env.Set("SLURM_JOB_ACCOUNT", req.account());
    if (!req.features().empty()) env.Set("SLURM_JOB_CONSTRAINTS", req.features());
    if (!req.work_dir().empty()) env.Set("SLURM_JOB_WORK_DIR", req.work_dir());
    SetArrayValues(job, /*whole_shape=*/false, &env);
    for (const std::string& entry : context.extra_env()) env.SetEntry(entry);
  }
  return env.Take();
}

std::optional<std::string> EnvValue(const std::vector<std::string>& env, std::string_view name) {
  std::optional<std::string> value;
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      value = entry.substr(name.size() + 1);
    }
  }
  return value;
}

}  // namespace gantry::agent
