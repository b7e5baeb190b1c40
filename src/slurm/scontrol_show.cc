#include "slurm/scontrol_show.h"

#include <algorithm>
#include <cstdio>

#include "model/billing.h"
#include "model/gpu_text.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/hostlist.h"
#include "text/memory.h"
#include "text/tres.h"

namespace gantry::slurm {
namespace {

constexpr char kNull[] = "(null)";

std::string ScontrolShowOrNull(const std::string& s) { return s.empty() ? std::string(kNull) : s; }

// Builds a record: fields joined, lines separated by "\n   " (or " " on one line).
class Record {
 public:
  explicit Record(bool one_liner) : line_end_(one_liner ? " " : "\n   ") {}
  Record& operator<<(std::string_view s) {
    out_ += s;
    return *this;
  }
  void EndLine() { out_ += line_end_; }
  std::string Finish(bool one_liner) { return out_ + (one_liner ? "\n" : "\n\n"); }

 private:
  std::string line_end_;
  std::string out_;
};

std::string LimitMinutes(uint32_t minutes) {
  if (minutes == kInfiniteMinutes) return "UNLIMITED";
  return text::FormatDurationMinutes(minutes);
}

std::string YesNo(bool b) { return b ? "YES" : "NO"; }

std::string NoSpaces(std::string s) {
  for (char& c : s) {
    if (text::IsAsciiSpace(c)) c = '_';
  }
  return s;
}

std::string AddrHost(const v1::Node& node) {
  std::string host = node.address();
  const size_t colon = host.rfind(':');
  if (colon != std::string::npos) host.resize(colon);
  return host.empty() ? node.name() : host;
}

void AddGres(std::vector<text::TresCount>* counts, const std::string& gres, int64_t times) {
  const uint64_t n = GresCount(gres);
  if (n == 0) return;
  counts->push_back({{"gres", GresName(gres)}, static_cast<int64_t>(n) * times});
}

}  // namespace

std::string FormatJobRecord(const v1::Job& job, UnixTime now, const TimeZone& tz,
                            const ShowOptions& options) {
  const v1::JobRequest& r = job.request();
  const model::JobState state = StateOf(job);
  const bool pending = state.base == model::JobBaseState::kPending;
  Record out(options.one_liner);

  out << "JobId=" << std::to_string(job.job_id());
  if (job.array_job_id() != 0) {
    out << " ArrayJobId=" << std::to_string(job.array_job_id())
        << " ArrayTaskId=" << ArrayTaskText(job);
    if (job.array_task_throttle() != 0) {
      out << " ArrayTaskThrottle=" << std::to_string(job.array_task_throttle());
    }
  }
  out << " JobName=" << r.name();
  out.EndLine();
  out << "UserId=" << UserLabel(job) << "(" << std::to_string(job.user_id())
      << ") GroupId=" << GroupLabel(job) << "(" << std::to_string(job.group_id())
      << ") MCS_label=N/A";
  out.EndLine();
  out << "Priority=" << std::to_string(job.priority()) << " Nice=" << std::to_string(r.nice())
      << " Account=" << ScontrolShowOrNull(r.account()) << " QOS=" << ScontrolShowOrNull(r.qos());
  out.EndLine();
  out << "JobState=" << model::JobStateName(state) << " Reason=" << NoSpaces(Reason(job))
      << " Dependency=" << DependencyText(job);
  out.EndLine();
  out << "Requeue=" << (job.requeue() ? "1" : "0") << " Restarts=" << std::to_string(job.restarts())
      << " BatchFlag=" << (job.batch_flag() ? "1" : "0")
      << " Reboot=0 ExitCode=" << ExitCodeText(job.exit_status());
  out.EndLine();
  if (options.details) {
    out << "DerivedExitCode=" << ExitCodeText(job.derived_exit_status());
    out.EndLine();
  }
  out << "RunTime=" << text::FormatDurationSeconds(TimeUsed(job, now)) << " TimeLimit="
      << (job.time_limit_min() == 0 ? std::string("Partition_Limit")
                                    : LimitMinutes(job.time_limit_min()))
      << " TimeMin="
      << (r.time_min_min() == 0 ? std::string("N/A") : LimitMinutes(r.time_min_min()));
  out.EndLine();
  out << "SubmitTime=" << TimeText(job.submit_time(), tz, "Unknown")
      << " EligibleTime=" << TimeText(job.eligible_time(), tz, "Unknown");
  out.EndLine();
  out << "AccrueTime=" << TimeText(job.accrue_time(), tz, "Unknown");
  out.EndLine();
  const bool end_unknown = job.time_limit_min() == kInfiniteMinutes && job.end_time() > now;
  out << "StartTime=" << TimeText(StartTimeOf(job), tz, "Unknown") << " EndTime="
      << (end_unknown ? std::string("Unknown") : TimeText(job.end_time(), tz, "Unknown"))
      << " Deadline=N/A";
  out.EndLine();
  if (job.preempt_eligible_time() != 0) {
    out << "PreemptEligibleTime=" << TimeText(job.preempt_eligible_time(), tz, "Unknown")
        << " PreemptTime=" << TimeText(job.preempt_time(), tz, "None");
    out.EndLine();
  }
  out << "SuspendTime=" << TimeText(job.suspend_time(), tz, "None")
      << " SecsPreSuspend=" << std::to_string(job.pre_suspend_secs())
      << " LastSchedEval=" << TimeText(job.last_sched_eval(), tz, "Unknown") << " Scheduler=Main";
  out.EndLine();
  out << "Partition=" << ScontrolShowOrNull(job.partition())
      << " AllocNode:Sid=" << ScontrolShowOrNull(r.submit_host()) << ":"
      << std::to_string(r.alloc_sid());
  out.EndLine();
  out << "ReqNodeList=" << ScontrolShowOrNull(r.req_nodes())
      << " ExcNodeList=" << ScontrolShowOrNull(r.exc_nodes());
  out.EndLine();
  out << "NodeList=" << NodeList(job);
  out.EndLine();
  if (job.nodes_size() > 0) {
    out << "BatchHost=" << job.nodes(0);
    out.EndLine();
  }
  std::string num_nodes;
  if (pending) {
    uint32_t min_nodes = NodeCount(job);
    const uint32_t max_nodes = r.max_nodes();
    if (max_nodes != 0 && max_nodes < min_nodes) min_nodes = max_nodes;
    num_nodes = std::to_string(min_nodes);
    if (max_nodes != 0) num_nodes += "-" + std::to_string(max_nodes);
  } else {
    num_nodes = std::to_string(NodeCount(job));
  }
  out << "NumNodes=" << num_nodes << " NumCPUs=" << std::to_string(CpuCount(job))
      << " NumTasks=" << std::to_string(TaskCount(job))
      << " CPUs/Task=" << std::to_string(std::max<uint32_t>(1, r.cpus_per_task()))
      << " ReqB:S:C:T=0:0:*:*";
  out.EndLine();
  out << "TRES=" << Tres(job);
  out.EndLine();
  out << "Socks/Node=* NtasksPerN:B:S:C=" << std::to_string(r.ntasks_per_node())
      << ":0:*:* CoreSpec=*";
  out.EndLine();
  if (options.details && !pending && job.nodes_size() > 0) {
    // Each node's share, nodes with the same share as one hostlist. Gantry does not bind CPUs,
    // so Slurm's CPU_IDs= is left out.
    const std::string total = model::JobGresTotal(job);
    out << "JOB_GRES=" << (total.empty() ? std::string("(null)") : total);
    out.EndLine();
    const uint64_t mem = job.alloc_mem_mb() / static_cast<uint64_t>(job.nodes_size());
    for (int i = 0; i < job.nodes_size();) {
      auto share = [&](int k) {
        return k < job.node_gpus_size() ? model::FormatGresWithIndexes(job.node_gpus(k))
                                        : std::string();
      };
      std::vector<std::string> group = {job.nodes(i)};
      int k = i + 1;
      while (k < job.nodes_size() && share(k) == share(i)) group.push_back(job.nodes(k++));
      out << "  Nodes=" << text::CompressHostlist(group) << " Mem=" << std::to_string(mem)
          << " GRES=" << share(i);
      out.EndLine();
      i = k;
    }
  }
  std::string min_memory = "MinMemoryNode=0";
  if (r.mem_per_cpu_mb() > 0) {
    min_memory = "MinMemoryCPU=" + text::FormatMemoryMiB(static_cast<int64_t>(r.mem_per_cpu_mb()));
  } else if (r.mem_per_node_mb() > 0) {
    min_memory =
        "MinMemoryNode=" + text::FormatMemoryMiB(static_cast<int64_t>(r.mem_per_node_mb()));
  }
  const uint32_t min_cpus =
      std::max<uint32_t>(1, r.cpus_per_task()) * std::max<uint32_t>(1, r.ntasks_per_node());
  out << "MinCPUsNode=" << std::to_string(min_cpus) << " " << min_memory << " MinTmpDiskNode=0";
  out.EndLine();
  out << "Features=" << ScontrolShowOrNull(r.features()) << " DelayBoot=00:00:00";
  out.EndLine();
  out << "OverSubscribe=" << (r.exclusive() ? "NO" : "OK")
      << " Contiguous=0 Licenses=(null) Network=(null)";
  out.EndLine();
  out << "Command=" << ScontrolShowOrNull(r.command());
  out.EndLine();
  out << "WorkDir=" << r.work_dir();
  if (!r.comment().empty()) {
    out.EndLine();
    out << "Comment=" << r.comment() << " ";
  }
  if (job.batch_flag()) {
    out.EndLine();
    out << "StdErr=" << StderrPath(job);
    out.EndLine();
    out << "StdIn=" << StdinPath(job);
    out.EndLine();
    out << "StdOut=" << StdoutPath(job);
  }
  out.EndLine();
  out << "Power=";
  if (!r.gres().empty()) {
    out.EndLine();
    out << "TresPerNode=" << r.gres();
  }
  if (!r.mail_type().empty() && !r.mail_user().empty()) {
    out.EndLine();
    out << "MailUser=" << r.mail_user() << " MailType=" << r.mail_type();
  }
  out.EndLine();
  return out.Finish(options.one_liner);
}

NodeTopology TopologyOf(const v1::Node& node) {
  NodeTopology t;
  t.threads = std::max<uint32_t>(1, node.threads_per_core());
  t.cores = std::max<uint32_t>(1, node.cores_per_socket());
  t.sockets = node.sockets() > 0 ? node.sockets()
                                 : std::max<uint32_t>(1, node.cpus() / (t.cores * t.threads));
  return t;
}

model::NodeState NodeDisplayState(const v1::Node& node) {
  model::NodeState state;
  state.base = static_cast<model::NodeBaseState>(
      std::min<uint32_t>(node.state(), model::kNodeBaseStateCount - 1));
  state.flags = node.state_flags();
  const bool alloc_tres = node.alloc_mem_mb() > 0 || GresCount(node.alloc_gres()) > 0;
  return model::WithMixed(state, node.alloc_cpus(), node.cpus(), alloc_tres);
}

std::string NodeCfgTres(const v1::Node& node) {
  std::vector<text::TresCount> counts = {
      {{"cpu", ""}, node.cpus()},
      {{"mem", ""}, static_cast<int64_t>(node.real_memory_mb())},
      {{"billing", ""}, node.cpus()},
  };
  AddGres(&counts, node.gres(), 1);
  return text::FormatTres(std::move(counts), text::TresZeros::kOmit);
}

std::string NodeAllocTres(const v1::Node& node) {
  std::vector<text::TresCount> counts = {
      {{"cpu", ""}, node.alloc_cpus()},
      {{"mem", ""}, static_cast<int64_t>(node.alloc_mem_mb())},
  };
  AddGres(&counts, node.alloc_gres(), 1);
  return text::FormatTres(std::move(counts), text::TresZeros::kOmit);
}

std::string FormatNodeRecord(const v1::Node& node, const TimeZone& tz, const ShowOptions& options,
                             const std::function<std::optional<std::string>(uint32_t)>& user_name) {
  Record out(options.one_liner);
  out << "NodeName=" << node.name() << " ";
  if (!node.arch().empty()) out << "Arch=" << node.arch() << " ";
  const NodeTopology topo = TopologyOf(node);
  out << "CoresPerSocket=" << std::to_string(topo.cores) << " ";
  out.EndLine();
  std::string load = "N/A";
  if (node.has_cpu_load()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(node.cpu_load()) / 100.0);
    load = buf;
  }
  out << "CPUAlloc=" << std::to_string(node.alloc_cpus())
      << " CPUEfctv=" << std::to_string(node.cpus()) << " CPUTot=" << std::to_string(node.cpus())
      << " CPULoad=" << load;
  out.EndLine();
  out << "AvailableFeatures=" << ScontrolShowOrNull(node.features());
  out.EndLine();
  out << "ActiveFeatures=" << ScontrolShowOrNull(node.features());
  out.EndLine();
  out << "Gres=" << ScontrolShowOrNull(node.gres());
  out.EndLine();
  out << "NodeAddr=" << AddrHost(node)
      << " NodeHostName=" << (node.hostname().empty() ? node.name() : node.hostname()) << " ";
  if (!node.version().empty()) out << "Version=" << node.version();
  out.EndLine();
  if (!node.os().empty()) {
    out << "OS=" << node.os() << " ";
    out.EndLine();
  }
  out << "RealMemory=" << std::to_string(node.real_memory_mb())
      << " AllocMem=" << std::to_string(node.alloc_mem_mb()) << " FreeMem="
      << (node.has_free_mem_mb() ? std::to_string(node.free_mem_mb()) : std::string("N/A"))
      << " Sockets=" << std::to_string(topo.sockets) << " Boards=1";
  out.EndLine();
  out << "State=" << model::NodeStateComplete(NodeDisplayState(node))
      << " ThreadsPerCore=" << std::to_string(topo.threads)
      << " TmpDisk=0 Weight=" << std::to_string(std::max<uint32_t>(node.weight(), 1))
      << " Owner=N/A MCS_label=N/A";
  out.EndLine();
  if (node.partitions_size() > 0) {
    std::string parts;
    for (const std::string& p : node.partitions()) parts += (parts.empty() ? "" : ",") + p;
    out << "Partitions=" << parts << " ";
    out.EndLine();
  }
  out << "BootTime=" << TimeText(node.host_boot_time(), tz, "None")
      << " SlurmdStartTime=" << TimeText(node.boot_time(), tz, "None");
  out.EndLine();
  out << "LastBusyTime=" << TimeText(node.last_busy_time(), tz, "Unknown");
  out.EndLine();
  out << "CfgTRES=" << NodeCfgTres(node);
  out.EndLine();
  out << "AllocTRES=" << NodeAllocTres(node);
  out.EndLine();
  out << "CapWatts=n/a";
  out.EndLine();
  out << "CurrentWatts=0 AveWatts=0";
  out.EndLine();
  out << "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s";
  if (!node.reason().empty()) {
    bool first = true;
    for (std::string_view line : text::Split(node.reason(), '\n')) {
      if (line.empty()) continue;
      out.EndLine();
      out << (first ? "Reason=" : "       ") << line;
      if (first && node.reason_time() != 0) {
        std::optional<std::string> name = user_name ? user_name(node.reason_uid()) : std::nullopt;
        out << " [" << (name ? *name : std::to_string(node.reason_uid())) << "@"
            << TimeText(node.reason_time(), tz, "Unknown") << "]";
      }
      first = false;
    }
  }
  return out.Finish(options.one_liner);
}

std::string FormatPartitionRecord(const v1::Partition& partition,
                                  const std::vector<const v1::Node*>& nodes,
                                  const ShowOptions& options) {
  auto extra = [&](const char* key, const char* fallback) -> std::string {
    auto it = partition.extra().find(key);
    return it == partition.extra().end() ? std::string(fallback) : it->second;
  };
  auto all_or = [](const std::string& s) { return s.empty() ? std::string("ALL") : s; };
  auto count_or_unlimited = [](uint32_t n) {
    return (n == 0 || n == kInfiniteMinutes) ? std::string("UNLIMITED") : std::to_string(n);
  };

  int64_t total_cpus = 0;
  int64_t total_mem = 0;
  int64_t total_gres = 0;
  std::string gres_name;
  for (const v1::Node* n : nodes) {
    total_cpus += n->cpus();
    total_mem += static_cast<int64_t>(n->real_memory_mb());
    if (const uint64_t g = GresCount(n->gres()); g > 0) {
      total_gres += static_cast<int64_t>(g);
      gres_name = GresName(n->gres());
    }
  }
  std::vector<std::string> names(partition.nodes().begin(), partition.nodes().end());

  Record out(options.one_liner);
  out << "PartitionName=" << partition.name();
  out.EndLine();
  out << "AllowGroups=" << all_or(partition.allow_groups())
      << " AllowAccounts=" << all_or(partition.allow_accounts())
      << " AllowQos=" << all_or(partition.allow_qos());
  out.EndLine();
  out << "AllocNodes=" << extra("AllocNodes", "ALL") << " Default=" << YesNo(partition.is_default())
      << " QoS=" << extra("QOS", "N/A");
  out.EndLine();
  std::string default_time = "NONE";
  if (partition.default_time_min() != 0) default_time = LimitMinutes(partition.default_time_min());
  out << "DefaultTime=" << default_time << " DisableRootJobs=" << extra("DisableRootJobs", "NO")
      << " ExclusiveUser=" << YesNo(partition.exclusive_user())
      << " GraceTime=" << std::to_string(partition.grace_time_sec())
      << " Hidden=" << YesNo(partition.hidden());
  out.EndLine();
  out << "MaxNodes=" << count_or_unlimited(partition.max_nodes()) << " MaxTime="
      << (partition.max_time_min() == 0 ? std::string("UNLIMITED")
                                        : LimitMinutes(partition.max_time_min()))
      << " MinNodes=" << std::to_string(partition.min_nodes()) << " LLN=" << extra("LLN", "NO")
      << " MaxCPUsPerNode=" << extra("MaxCPUsPerNode", "UNLIMITED");
  out.EndLine();
  out << "Nodes=" << ScontrolShowOrNull(text::CompressHostlistSorted(names));
  out.EndLine();
  out << "PriorityJobFactor=" << std::to_string(partition.priority_job_factor())
      << " PriorityTier=" << std::to_string(partition.priority_tier())
      << " RootOnly=" << YesNo(partition.root_only()) << " ReqResv=" << extra("ReqResv", "NO")
      << " OverSubscribe="
      << (partition.oversubscribe().empty() ? std::string("NO") : partition.oversubscribe());
  out.EndLine();
  out << "OverTimeLimit=" << extra("OverTimeLimit", "NONE") << " PreemptMode="
      << (partition.preempt_mode().empty() ? std::string("OFF") : partition.preempt_mode());
  out.EndLine();
  out << "State=" << (partition.state().empty() ? std::string("UP") : partition.state())
      << " TotalCPUs=" << std::to_string(total_cpus)
      << " TotalNodes=" << std::to_string(nodes.size())
      << " SelectTypeParameters=" << extra("SelectTypeParameters", "NONE");
  out.EndLine();
  out << "JobDefaults=" << extra("JobDefaults", kNull);
  out.EndLine();
  std::string def_mem = "DefMemPerNode=UNLIMITED";
  if (partition.def_mem_per_cpu_mb() > 0) {
    def_mem = "DefMemPerCPU=" + std::to_string(partition.def_mem_per_cpu_mb());
  } else if (partition.def_mem_per_node_mb() > 0) {
    def_mem = "DefMemPerNode=" + std::to_string(partition.def_mem_per_node_mb());
  }
  std::string max_mem = "MaxMemPerNode=UNLIMITED";
  if (partition.max_mem_per_cpu_mb() > 0) {
    max_mem = "MaxMemPerCPU=" + std::to_string(partition.max_mem_per_cpu_mb());
  } else if (partition.max_mem_per_node_mb() > 0) {
    max_mem = "MaxMemPerNode=" + std::to_string(partition.max_mem_per_node_mb());
  }
  out << def_mem << " " << max_mem;
  out.EndLine();
  int64_t billing = total_cpus;
  if (const std::vector<text::TresWeight>& weights =
          model::BillingWeightsOf(partition.tres_billing_weights());
      !weights.empty()) {
    billing = static_cast<int64_t>(
        model::WeightedTres(weights, /*max_tres=*/false, [&](std::string_view tres) -> double {
          if (tres == "cpu") return static_cast<double>(total_cpus);
          if (tres == "mem") return static_cast<double>(total_mem);
          if (tres == "node") return static_cast<double>(nodes.size());
          if (tres.starts_with("gres/") && GresName(tres.substr(5)) == gres_name) {
            return static_cast<double>(total_gres);
          }
          return 0;
        }));
  }
  std::vector<text::TresCount> tres = {
      {{"cpu", ""}, total_cpus},
      {{"mem", ""}, total_mem},
      {{"node", ""}, static_cast<int64_t>(nodes.size())},
      {{"billing", ""}, billing},
  };
  if (total_gres > 0) tres.push_back({{"gres", gres_name}, total_gres});
  out << "TRES=" << text::FormatTres(std::move(tres), text::TresZeros::kOmit);
  if (!partition.tres_billing_weights().empty()) {
    out.EndLine();
    out << "TRESBillingWeights=" << partition.tres_billing_weights();
  }
  return out.Finish(options.one_liner);
}

std::string FormatConfig(const v1::GetConfigReply& config, UnixTime now, const TimeZone& tz,
                         std::string_view controller_host) {
  std::string out = "Configuration data as of " + TimeText(now, tz, "Unknown") + "\n";
  for (const v1::ConfigEntry& e : config.entries()) {
    char key[64];
    std::snprintf(key, sizeof(key), "%-23s", e.key().c_str());
    out += key;
    out += " = " + e.value() + "\n";
  }
  out += "\nSlurmctld(primary) at " + std::string(controller_host) + " is UP\n";
  return out;
}

}  // namespace gantry::slurm
