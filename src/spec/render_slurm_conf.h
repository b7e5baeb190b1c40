// Renders an effective configuration as slurm.conf (and gres.conf) text that a Slurm 22.05
// slurmctld accepts, so an admin can diff a Gantry cluster against, or migrate it to, a real
// Slurm. Pure; thread-safe.
#ifndef GANTRY_SPEC_RENDER_SLURM_CONF_H_
#define GANTRY_SPEC_RENDER_SLURM_CONF_H_

#include <string>

#include "spec/effective_config.h"
#include "spec/show_config.h"

namespace gantry::spec {

// Site-specific values a cluster spec does not hold.
struct SlurmConfOptions {
  std::string controller_host;  // default "<cluster>-controller"
  std::string controller_addr;  // optional NodeAddr-style address, "(addr)" after the host
  std::string state_dir = "/var/spool/slurmctld";
  std::string spool_dir = "/var/spool/slurmd";
  std::string log_dir = "/var/log/slurm";
  std::string etc_dir = "/etc/slurm";  // where prolog.d/, epilog.d/ and gres.conf live
  std::string slurm_user = "slurm";
  std::string accounting_host = "localhost";  // slurmdbd
};

std::string RenderSlurmConf(const EffectiveConfig& config, const SlurmConfOptions& options);

// The cluster-wide `Key=Value` lines of the slurm.conf, in order: Gantry's base settings
// (cluster name, controller, plugins, accounting, prolog/epilog paths) with the spec's settings
// replacing or following them.
KeyValues ClusterConfLines(const EffectiveConfig& config, const SlurmConfOptions& options);

// What `scontrol show config` renders for the cluster as configured: no controller running,
// so BOOT_TIME and the data time are "(unknown)" and NEXT_JOB_ID is FirstJobId (a running
// controller sets those three).
ShowConfigInput ShowConfigInputForCluster(const EffectiveConfig& config,
                                          const SlurmConfOptions& options);
std::string RenderShowConfigForCluster(const EffectiveConfig& config,
                                       const SlurmConfOptions& options);

// gres.conf lines for GPU pools ("NodeName=... Name=gpu Type=b200 File=/dev/nvidia[0-7]"); empty
// when the cluster has no GPUs.
std::string RenderGresConf(const EffectiveConfig& config);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_RENDER_SLURM_CONF_H_
