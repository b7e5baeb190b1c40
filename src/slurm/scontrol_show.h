// `scontrol show job|node|partition|config` records, byte for byte as Slurm 22.05 prints them
// (src/api/job_info.c slurm_sprint_job_info, node_info.c slurm_sprint_node_table,
// partition_info.c slurm_sprint_partition_info, config_info.c), from the controller's records.
//
// Multi-line records indent continuation lines by three spaces and end with a blank line; with
// one_liner every field is on one line separated by spaces. Times are printed in the given zone
// ("Unknown"/"None"/"N/A" where Slurm prints those for unset times).
//
// What Gantry does not track prints as Slurm prints its defaults: Reboot=0, Deadline=N/A,
// Scheduler=Main, MCS_label=N/A, ReqB:S:C:T=0:0:*:*, DelayBoot=00:00:00, Licenses=(null),
// TmpDisk=0, Weight=1, Owner=N/A, watts "n/a"/0, Boards=1; CPULoad and FreeMem are N/A unless the
// agent reported them; Port= is never printed (each agent has its own port in NodeAddr's place).
// `scontrol show -d job` adds DerivedExitCode= (the per-node CPU_IDs lines are not available).
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SCONTROL_SHOW_H_
#define GANTRY_SLURM_SCONTROL_SHOW_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "model/node_state.h"

namespace gantry::slurm {

struct ShowOptions {
  bool details = false;    // -d
  bool one_liner = false;  // -o
};

std::string FormatJobRecord(const v1::Job& job, UnixTime now, const TimeZone& tz,
                            const ShowOptions& options);

// `user_name` maps Reason's uid to a name (nullopt: the number is printed).
std::string FormatNodeRecord(const v1::Node& node, const TimeZone& tz, const ShowOptions& options,
                             const std::function<std::optional<std::string>(uint32_t)>& user_name);

// `nodes` are all nodes known (for TotalCPUs and TRES of the partition's nodes).
std::string FormatPartitionRecord(const v1::Partition& partition,
                                  const std::vector<const v1::Node*>& nodes,
                                  const ShowOptions& options);

// "Configuration data as of <now>", the entries as "%-23s = %s", a blank line and
// "Slurmctld(primary) at <host> is UP".
std::string FormatConfig(const v1::GetConfigReply& config, UnixTime now, const TimeZone& tz,
                         std::string_view controller_host);

struct NodeTopology {
  uint32_t sockets = 1;
  uint32_t cores = 1;
  uint32_t threads = 1;
};
// The node's sockets/cores/threads; unset ones as slurm.conf derives them from CPUs=.
NodeTopology TopologyOf(const v1::Node& node);

// The node's state as scontrol and sinfo show it (MIXED when partly allocated).
model::NodeState NodeDisplayState(const v1::Node& node);
// "cpu=64,mem=250G,billing=64,gres/gpu=8" and the allocated counterpart.
std::string NodeCfgTres(const v1::Node& node);
std::string NodeAllocTres(const v1::Node& node);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SCONTROL_SHOW_H_
