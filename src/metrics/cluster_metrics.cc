#include "metrics/cluster_metrics.h"

#include <map>
#include <string>

#include "model/job_state.h"
#include "model/node_state.h"
#include "slurm_view/job_view.h"

namespace gantry::metrics {
namespace {

using model::JobBaseState;
using model::JobFlag;
using model::NodeBaseState;
using model::NodeFlag;

constexpr double kMiB = 1024.0 * 1024.0;

model::JobState StateOf(const v1::Job& job) {
  return {static_cast<JobBaseState>(job.state()), job.state_flags()};
}

// The base state shown for a node, as scontrol shows it: IDLE, MIXED or ALLOCATED by its CPUs.
NodeBaseState ShownBase(const v1::Node& node) {
  const auto base = static_cast<NodeBaseState>(node.state());
  if (base != NodeBaseState::kIdle && base != NodeBaseState::kAllocated &&
      base != NodeBaseState::kMixed) {
    return base;
  }
  if (node.alloc_cpus() == 0 && node.alloc_mem_mb() == 0) return NodeBaseState::kIdle;
  if (node.alloc_cpus() >= node.cpus()) return NodeBaseState::kAllocated;
  return NodeBaseState::kMixed;
}

bool Has(const v1::Node& node, NodeFlag flag) {
  return (node.state_flags() & static_cast<uint32_t>(flag)) != 0;
}

// Counts of a node set by the words Slurm's metrics use.
struct NodeCounts {
  std::map<std::string, double> by_state;
  double cpus = 0, cpus_alloc = 0, gpus = 0, gpus_alloc = 0;
  double nodes = 0;

  void Add(const v1::Node& node) {
    ++nodes;
    cpus += node.cpus();
    cpus_alloc += node.alloc_cpus();
    gpus += static_cast<double>(slurm::GresCount(node.gres()));
    gpus_alloc += static_cast<double>(slurm::GresCount(node.alloc_gres()));
    const NodeBaseState base = ShownBase(node);
    switch (base) {
      case NodeBaseState::kIdle:
        ++by_state["idle"];
        break;
      case NodeBaseState::kAllocated:
        ++by_state["alloc"];
        break;
      case NodeBaseState::kMixed:
        ++by_state["mixed"];
        break;
      case NodeBaseState::kDown:
        ++by_state["down"];
        break;
      case NodeBaseState::kFuture:
        ++by_state["future"];
        break;
      default:
        ++by_state["unknown"];
    }
    if (Has(node, NodeFlag::kDrain)) {
      ++by_state["drain"];
      const bool busy = base == NodeBaseState::kAllocated || base == NodeBaseState::kMixed ||
                        Has(node, NodeFlag::kCompleting);
      ++by_state[busy ? "draining" : "drained"];
    }
    for (const auto& [flag, word] :
         {std::pair{NodeFlag::kFail, "fail"}, std::pair{NodeFlag::kMaint, "maint"},
          std::pair{NodeFlag::kNoRespond, "noresp"}, std::pair{NodeFlag::kCompleting, "completing"},
          std::pair{NodeFlag::kPlanned, "planned"}, std::pair{NodeFlag::kReserved, "resv"}}) {
      if (Has(node, flag)) ++by_state[word];
    }
  }
};

// The jobs' figures by the words Slurm's metrics use.
struct JobCounts {
  std::map<std::string, double> by_state;
  double jobs = 0, cpus = 0, memory_bytes = 0, nodes = 0;

  void Add(const v1::Job& job) {
    ++jobs;
    const model::JobState state = StateOf(job);
    static const std::map<JobBaseState, const char*> kWord = {
        {JobBaseState::kPending, "pending"},     {JobBaseState::kRunning, "running"},
        {JobBaseState::kSuspended, "suspended"}, {JobBaseState::kCompleted, "completed"},
        {JobBaseState::kCancelled, "cancelled"}, {JobBaseState::kFailed, "failed"},
        {JobBaseState::kTimeout, "timeout"},     {JobBaseState::kNodeFail, "node_failed"},
        {JobBaseState::kPreempted, "preempted"}, {JobBaseState::kBootFail, "bootfail"},
        {JobBaseState::kDeadline, "deadline"},   {JobBaseState::kOutOfMemory, "outofmemory"}};
    if (const auto it = kWord.find(state.base); it != kWord.end()) ++by_state[it->second];
    if (state.Has(JobFlag::kCompleting)) ++by_state["completing"];
    if (state.Has(JobFlag::kConfiguring)) ++by_state["configuring"];
    if (state.Has(JobFlag::kRequeue)) ++by_state["requeued"];
    if (state.base == JobBaseState::kPending && job.priority() == 0) ++by_state["hold"];
    if (model::IsActive(state.base)) {
      cpus += job.num_cpus();
      memory_bytes += static_cast<double>(job.alloc_mem_mb()) * kMiB;
      nodes += job.nodes_size();
    }
  }
};

constexpr const char* kJobStates[] = {"pending",     "running",     "suspended", "completed",
                                      "cancelled",   "failed",      "timeout",   "node_failed",
                                      "outofmemory", "preempted",   "bootfail",  "deadline",
                                      "completing",  "configuring", "requeued",  "hold"};
constexpr const char* kNodeStates[] = {"alloc",      "idle",     "mixed", "down",   "drain",
                                       "drained",    "draining", "fail",  "maint",  "noresp",
                                       "completing", "planned",  "resv",  "future", "unknown"};

double Get(const std::map<std::string, double>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

void JobMetrics(const state::ClusterState& state, MetricsText* out) {
  JobCounts counts;
  std::map<std::string, double> reasons;
  for (const auto& [id, job] : state.jobs) {
    counts.Add(job);
    if (static_cast<JobBaseState>(job.state()) == JobBaseState::kPending) {
      ++reasons[job.reason().empty() ? "None" : job.reason()];
    }
  }
  out->Gauge("slurm_jobs", "Jobs the controller holds.", counts.jobs);
  for (const char* word : kJobStates) {
    const std::string name = std::string("slurm_jobs_") + word;
    out->Gauge(name, std::string("Jobs ") + word + ".", Get(counts.by_state, word));
  }
  out->Gauge("slurm_jobs_cpus_alloc", "CPUs allocated to running and suspended jobs.", counts.cpus);
  out->Gauge("slurm_jobs_memory_alloc", "Memory allocated to running and suspended jobs, bytes.",
             counts.memory_bytes);
  out->Gauge("slurm_jobs_nodes_alloc", "Nodes allocated to running and suspended jobs.",
             counts.nodes);
  out->Gauge("gantry_jobs_pending_reason", "Pending jobs by the reason they wait.");
  for (const auto& [reason, count] : reasons) out->Sample(count, {{"reason", reason}});
}

void NodeMetrics(const state::ClusterState& state, MetricsText* out) {
  NodeCounts counts;
  for (const v1::Node& node : state.nodes) counts.Add(node);
  out->Gauge("slurm_nodes", "Nodes in the cluster.", counts.nodes);
  for (const char* word : kNodeStates) {
    out->Gauge(std::string("slurm_nodes_") + word, std::string("Nodes ") + word + ".",
               Get(counts.by_state, word));
  }
  struct PerNode {
    const char* name;
    const char* help;
    double (*value)(const v1::Node&);
  };
  static const PerNode kPerNode[] = {
      {"slurm_node_cpus", "A node's CPUs.",
       [](const v1::Node& n) { return static_cast<double>(n.cpus()); }},
      {"slurm_node_cpus_effective", "A node's CPUs that jobs may use.",
       [](const v1::Node& n) { return static_cast<double>(n.cpus()); }},
      {"slurm_node_cpus_alloc", "A node's CPUs allocated to jobs.",
       [](const v1::Node& n) { return static_cast<double>(n.alloc_cpus()); }},
      {"slurm_node_cpus_idle", "A node's CPUs not allocated.",
       [](const v1::Node& n) { return static_cast<double>(n.cpus()) - n.alloc_cpus(); }},
      {"slurm_node_memory_bytes", "A node's memory, bytes.",
       [](const v1::Node& n) { return static_cast<double>(n.real_memory_mb()) * kMiB; }},
      {"slurm_node_memory_alloc_bytes", "A node's memory allocated to jobs, bytes.",
       [](const v1::Node& n) { return static_cast<double>(n.alloc_mem_mb()) * kMiB; }},
      {"slurm_node_memory_free_bytes", "A node's free memory as its agent last said, bytes.",
       [](const v1::Node& n) {
         return n.has_free_mem_mb() ? static_cast<double>(n.free_mem_mb()) * kMiB : 0;
       }},
      {"gantry_node_gpus", "A node's GPUs.",
       [](const v1::Node& n) { return static_cast<double>(slurm::GresCount(n.gres())); }},
      {"gantry_node_gpus_alloc", "A node's GPUs allocated to jobs.",
       [](const v1::Node& n) { return static_cast<double>(slurm::GresCount(n.alloc_gres())); }},
  };
  for (const PerNode& metric : kPerNode) {
    out->Gauge(metric.name, metric.help);
    for (const v1::Node& node : state.nodes) {
      out->Sample(metric.value(node), {{"node", node.name()}});
    }
  }
}

void PartitionMetrics(const state::ClusterState& state, MetricsText* out) {
  struct Figures {
    JobCounts jobs;
    NodeCounts nodes;
  };
  std::map<std::string, Figures> by_partition;
  for (size_t p = 0; p < state.partitions.size(); ++p) {
    Figures& f = by_partition[state.partitions[p].name()];
    for (const std::string& name : state.partitions[p].nodes()) {
      if (const v1::Node* node = state.FindNode(name)) f.nodes.Add(*node);
    }
  }
  for (const auto& [id, job] : state.jobs) {
    const auto it = by_partition.find(job.partition());
    if (it != by_partition.end()) it->second.jobs.Add(job);
  }
  out->Gauge("slurm_partitions", "Partitions.", static_cast<double>(by_partition.size()));
  struct PerPartition {
    const char* name;
    const char* help;
    double (*value)(const Figures&);
  };
  static const PerPartition kPer[] = {
      {"slurm_partition_jobs", "Jobs in the partition.",
       [](const Figures& f) { return f.jobs.jobs; }},
      {"slurm_partition_jobs_pending", "Jobs pending in the partition.",
       [](const Figures& f) { return Get(f.jobs.by_state, "pending"); }},
      {"slurm_partition_jobs_running", "Jobs running in the partition.",
       [](const Figures& f) { return Get(f.jobs.by_state, "running"); }},
      {"slurm_partition_jobs_suspended", "Jobs suspended in the partition.",
       [](const Figures& f) { return Get(f.jobs.by_state, "suspended"); }},
      {"slurm_partition_jobs_cpus_alloc", "CPUs allocated to the partition's jobs.",
       [](const Figures& f) { return f.jobs.cpus; }},
      {"slurm_partition_jobs_memory_alloc", "Memory allocated to the partition's jobs, bytes.",
       [](const Figures& f) { return f.jobs.memory_bytes; }},
      {"slurm_partition_nodes", "Nodes in the partition.",
       [](const Figures& f) { return f.nodes.nodes; }},
      {"slurm_partition_cpus", "CPUs of the partition's nodes.",
       [](const Figures& f) { return f.nodes.cpus; }},
      {"slurm_partition_nodes_alloc", "The partition's nodes allocated.",
       [](const Figures& f) { return Get(f.nodes.by_state, "alloc"); }},
      {"slurm_partition_nodes_idle", "The partition's nodes idle.",
       [](const Figures& f) { return Get(f.nodes.by_state, "idle"); }},
      {"slurm_partition_nodes_mixed", "The partition's nodes partly allocated.",
       [](const Figures& f) { return Get(f.nodes.by_state, "mixed"); }},
      {"slurm_partition_nodes_down", "The partition's nodes down.",
       [](const Figures& f) { return Get(f.nodes.by_state, "down"); }},
      {"slurm_partition_nodes_drain", "The partition's nodes draining or drained.",
       [](const Figures& f) { return Get(f.nodes.by_state, "drain"); }},
      {"slurm_partition_nodes_cpus_alloc", "CPUs of the partition's nodes allocated.",
       [](const Figures& f) { return f.nodes.cpus_alloc; }},
      {"slurm_partition_nodes_cpus_idle", "CPUs of the partition's nodes not allocated.",
       [](const Figures& f) { return f.nodes.cpus - f.nodes.cpus_alloc; }},
      {"gantry_partition_gpus", "GPUs of the partition's nodes.",
       [](const Figures& f) { return f.nodes.gpus; }},
      {"gantry_partition_gpus_alloc", "GPUs of the partition's nodes allocated to jobs.",
       [](const Figures& f) { return f.nodes.gpus_alloc; }},
  };
  for (const PerPartition& metric : kPer) {
    out->Gauge(metric.name, metric.help);
    for (const auto& [name, figures] : by_partition) {
      out->Sample(metric.value(figures), {{"partition", name}});
    }
  }
}

void UserAccountMetrics(const state::ClusterState& state, MetricsText* out) {
  std::map<std::string, JobCounts> by_user;
  std::map<std::string, JobCounts> by_account;
  for (const auto& [id, job] : state.jobs) {
    by_user[slurm::UserLabel(job)].Add(job);
    by_account[job.request().account()].Add(job);
  }
  for (const auto& [label, key, counts] :
       {std::tuple{"slurm_user_jobs_", "username", &by_user},
        std::tuple{"slurm_account_jobs_", "account", &by_account}}) {
    for (const char* word : {"pending", "running", "suspended"}) {
      out->Gauge(std::string(label) + word, std::string("Jobs ") + word + ", by " + key + ".");
      for (const auto& [who, c] : *counts) out->Sample(Get(c.by_state, word), {{key, who}});
    }
    out->Gauge(std::string(label) + "cpus_alloc", std::string("CPUs allocated, by ") + key + ".");
    for (const auto& [who, c] : *counts) out->Sample(c.cpus, {{key, who}});
  }
}

}  // namespace gantry::metrics
