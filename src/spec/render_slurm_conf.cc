#include "spec/render_slurm_conf.h"

#include <algorithm>

#include "spec/show_config.h"
#include "spec/slurm_keys.h"
#include "text/hostlist.h"

namespace gantry::spec {

namespace {

bool HasGpus(const EffectiveConfig& c) {
  return std::ranges::any_of(c.pools,
                             [](const EffectivePool& p) { return !p.login && p.gpus > 0; });
}

std::string Line(const KeyValues& kv) {
  std::string out;
  for (const auto& [k, v] : kv) {
    if (!out.empty()) out += ' ';
    // A value with spaces would split the line; Slurm reads "quoted values" whole.
    out += k + "=" + (v.find(' ') == std::string::npos ? v : "\"" + v + "\"");
  }
  return out;
}

KeyValues NodeLine(const EffectivePool& p) {
  KeyValues kv = {{"NodeName", p.hostlist},
                  {"CPUs", std::to_string(p.cpus)},
                  {"RealMemory", std::to_string(p.real_memory_mib)}};
  if (p.gpus > 0) {
    kv.emplace_back("Gres",
                    "gpu:" + (p.gpu_type.empty() ? "" : p.gpu_type + ":") + std::to_string(p.gpus));
  }
  for (const auto& [k, v] : p.node_config) SetKey(&kv, k, v);
  if (!HasKey(kv, "State")) kv.emplace_back("State", "UNKNOWN");
  return kv;
}

KeyValues PartitionLine(const EffectivePartition& p) {
  KeyValues kv = {
      {"PartitionName", p.name}, {"Nodes", p.hostlist}, {"Default", p.is_default ? "YES" : "NO"}};
  for (const auto& [k, v] : p.config) SetKey(&kv, k, v);
  if (!HasKey(kv, "State")) kv.emplace_back("State", "UP");
  return kv;
}

std::string ControllerHost(const EffectiveConfig& c, const SlurmConfOptions& o) {
  return o.controller_host.empty() ? c.cluster_name + "-controller" : o.controller_host;
}

}  // namespace

KeyValues ClusterConfLines(const EffectiveConfig& c, const SlurmConfOptions& o) {
  const std::string host = ControllerHost(c, o);
  KeyValues kv = {
      {"ClusterName", c.cluster_name},
      {"SlurmctldHost", o.controller_addr.empty() ? host : host + "(" + o.controller_addr + ")"},
      {"SlurmUser", o.slurm_user},
      {"AuthType", "auth/munge"},
      {"CredType", "cred/munge"},
      {"StateSaveLocation", o.state_dir},
      {"SlurmdSpoolDir", o.spool_dir},
      {"SlurmctldLogFile", o.log_dir + "/slurmctld.log"},
      {"SlurmdLogFile", o.log_dir + "/slurmd-%n.log"},
      {"SlurmctldPidFile", o.state_dir + "/slurmctld.pid"},
      {"SlurmdPidFile", o.spool_dir + "/slurmd-%n.pid"},
      {"ProctrackType", "proctrack/cgroup"},
      {"TaskPlugin", "task/cgroup,task/affinity"},
      {"ReturnToService", "2"},
      {"SchedulerType", "sched/backfill"},
      {"SelectType", "select/cons_tres"},
      {"SelectTypeParameters", "CR_Core_Memory"},
      {"AccountingStorageType", "accounting_storage/slurmdbd"},
      {"AccountingStorageHost", o.accounting_host},
      {"JobAcctGatherType", "jobacct_gather/cgroup"},
  };
  if (HasGpus(c)) {
    kv.emplace_back("GresTypes", "gpu");
    kv.emplace_back("AccountingStorageTRES", "gres/gpu");
  }
  if (!c.prolog_scripts.empty()) kv.emplace_back("Prolog", o.etc_dir + "/prolog.d/*");
  if (!c.epilog_scripts.empty()) kv.emplace_back("Epilog", o.etc_dir + "/epilog.d/*");
  for (const auto& [k, v] : c.settings) SetKey(&kv, k, v);
  return kv;
}

std::string RenderSlurmConf(const EffectiveConfig& c, const SlurmConfOptions& o) {
  std::string out = "# slurm.conf rendered by gantry from cluster spec \"" + c.cluster_name +
                    "\" (Slurm 22.05 syntax)\n";
  for (const auto& [k, v] : ClusterConfLines(c, o)) out += Line({{k, v}}) + "\n";
  out += "\n# nodes: one line per compute node pool\n";
  for (const EffectivePool& p : c.pools) {
    if (p.login) {
      out += "# login pool \"" + p.id + "\": " + p.hostlist + " (not compute nodes)\n";
    } else {
      out += Line(NodeLine(p)) + "\n";
    }
  }
  out += "\n# partitions: the default one is marked Default=YES\n";
  for (const EffectivePartition& p : c.partitions) out += Line(PartitionLine(p)) + "\n";
  return out;
}

std::string RenderGresConf(const EffectiveConfig& c) {
  std::string out;
  for (const EffectivePool& p : c.pools) {
    if (p.login || p.gpus <= 0) continue;
    const std::string last = std::to_string(p.gpus - 1);
    out += "NodeName=" + p.hostlist + " Name=gpu";
    if (!p.gpu_type.empty()) out += " Type=" + p.gpu_type;
    out += " File=/dev/nvidia" + (p.gpus == 1 ? std::string("0") : "[0-" + last + "]") + "\n";
  }
  return out;
}

std::string RenderShowConfigForCluster(const EffectiveConfig& c, const SlurmConfOptions& o) {
  return RenderShowConfig(ShowConfigInputForCluster(c, o));
}

ShowConfigInput ShowConfigInputForCluster(const EffectiveConfig& c, const SlurmConfOptions& o) {
  ShowConfigInput in;
  for (const auto& [k, v] : ClusterConfLines(c, o)) in.values[k] = v;
  in.cluster_name = c.cluster_name;
  in.data_time = "(unknown)";
  in.boot_time = "(unknown)";
  const std::string first = c.Get("FirstJobId");
  in.next_job_id = static_cast<uint32_t>(std::stoul(first.empty() ? "1" : first));
  in.controllers.push_back({ControllerHost(c, o), o.controller_addr, false});
  in.slurm_conf = o.etc_dir + "/slurm.conf";
  in.node_count = c.ComputeNodeCount();
  in.multiple_slurmd = true;  // Debian's Slurm build, and Gantry's agents, share hosts
  return in;
}

}  // namespace gantry::spec
