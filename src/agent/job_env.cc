#include "agent/job_env.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

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

}  // namespace

std::string FormatCountsPerNode(const std::vector<uint32_t>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ',';
    out += Str(counts[i]);
    if (j - i > 1) out += "(x" + Str(j - i) + ")";
    i = j;
  }
  return out;
}

std::vector<uint32_t> BlockTaskLayout(uint32_t num_tasks, const std::vector<uint32_t>& cpus,
                                      uint32_t cpus_per_task) {
  std::vector<uint32_t> tasks(cpus.size(), 0);
  if (cpus.empty()) return tasks;
  if (cpus_per_task == 0) cpus_per_task = 1;
  std::vector<uint32_t> capacity;
  capacity.reserve(cpus.size());
  for (uint32_t c : cpus) capacity.push_back(c / cpus_per_task);
  uint32_t placed = 0;
  bool over_subscribe = false;
  for (uint32_t round = 0; placed < num_tasks; ++round) {
    bool space_remaining = false;
    for (size_t i = 0; i < cpus.size() && placed < num_tasks; ++i) {
      if (round < capacity[i] || over_subscribe) {
        ++tasks[i];
        ++placed;
        if (round + 1 < capacity[i]) space_remaining = true;
      }
    }
    if (!space_remaining) over_subscribe = true;
  }
  return tasks;
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
  env.Set("SLURM_JOB_CPUS_PER_NODE", FormatCountsPerNode(cpus));
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
          FormatCountsPerNode(BlockTaskLayout(layout_tasks, cpus, cpus_per_task)));
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
  // Whole nodes: the job's GPUs are the node's first ones.
  if (uint32_t gpus = GpuCount(req.gres()); gpus > 0) {
    std::string ids;
    for (uint32_t i = 0; i < gpus; ++i) ids += (i ? "," : "") + Str(i);
    env.Set("SLURM_GPUS_ON_NODE", Str(gpus));
    env.Set("SLURM_JOB_GPUS", ids);
    env.Set("CUDA_VISIBLE_DEVICES", ids);
    env.Set("GPU_DEVICE_ORDINAL", ids);
  }

  for (const std::string& entry : context.extra_env()) env.SetEntry(entry);
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
