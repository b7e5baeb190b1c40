// `scontrol show config` as Slurm 22.05 prints it, rendered from a cluster's slurm.conf values.
//
// The listing is what slurm_print_ctl_conf() writes: a "Configuration data as of <time>" line,
// one "%-23s = %s" line per parameter in Slurm's fixed order (names longer than 23 characters
// are followed directly by " = "), then a blank line and the controller ping status. Values use
// Slurm's display conventions, not the slurm.conf spelling: timers as "30 sec", PreemptMode
// normalised ("SUSPEND,GANG" prints "GANG,SUSPEND"), SelectTypeParameters upper-cased,
// durations as "7-00:00:00", unset strings as "(null)", AccountingStorageTRES with the built-in
// TRES first, and so on. Parameters that are absent take Slurm 22.05's built-in default.
//
// Values that depend on the machine or the moment (times, NEXT_JOB_ID, plugin directory, user
// ids, node count) are passed in. Values are expected to have passed ValidateSlurmValue();
// anything unreadable is shown as written rather than failing.
// Pure functions; thread-safe.
#ifndef GANTRY_SPEC_SHOW_CONFIG_H_
#define GANTRY_SPEC_SHOW_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::spec {

struct ShowConfigController {
  std::string host;     // SlurmctldHost name ("vm")
  std::string address;  // SlurmctldHost address ("127.0.0.1"); empty = same as host
  bool up = true;       // the ping result shown at the end
};

struct ShowConfigInput {
  // Cluster-level slurm.conf parameters, keyed by name in any spelling (normalized as the
  // catalog does), value as written in slurm.conf.
  std::map<std::string, std::string> values;

  std::string data_time;  // "Configuration data as of <data_time>" ("2026-12-02T11:46:49")
  std::string boot_time;  // BOOT_TIME
  uint32_t next_job_id = 1;
  std::string cluster_name;  // overrides values["ClusterName"] when set (Slurm lower-cases it)
  std::vector<ShowConfigController> controllers;     // empty: from values["SlurmctldHost"], up
  std::string slurm_conf = "/etc/slurm/slurm.conf";  // SLURM_CONF
  std::string slurm_version = "22.05.8";             // SLURM_VERSION
  std::string plugin_dir = "/usr/lib/x86_64-linux-gnu/slurm-wlm";  // PluginDir when unset
  std::string mail_prog = "/bin/mail";  // MailProg when unset (Slurm probes the file system)
  uint32_t slurm_user_id = 0;           // uid of SlurmUser, shown as "slurm(64030)"
  uint32_t slurmd_user_id = 0;          // uid of SlurmdUser
  int64_t node_count = 0;               // nodes in the cluster (MaxNodeCount, MaxDBDMsgs)
  bool multiple_slurmd = false;         // built with --enable-multiple-slurmd: MULTIPLE_SLURMD
  bool hash_match = true;               // HASH_VAL = Match (else the line is left out)
};

// The whole listing, newline-terminated, byte for byte as scontrol prints it.
std::string RenderShowConfig(const ShowConfigInput& input);
// Its "Name = value" lines, in order, without the header and the controllers' status.
std::vector<std::pair<std::string, std::string>> ShowConfigEntries(const ShowConfigInput& input);

// The slurm.conf parameter names the 22.05 listing can show, in listing order (both spellings
// of the alternatives DefMemPerCPU/DefMemPerNode and MaxMemPerCPU/MaxMemPerNode; without the
// derived lines BOOT_TIME, HASH_VAL, JobDefaults, MULTIPLE_SLURMD, NEXT_JOB_ID, SLURM_CONF,
// SLURM_VERSION and the SlurmctldHost[i] index).
std::vector<std::string_view> ShowConfigParameterNames();

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SHOW_CONFIG_H_
