// The controller's run-time settings, read from the cluster's effective configuration
// (slurm.conf keys as the spec sets them, Slurm's defaults otherwise).
#ifndef GANTRY_CTLD_CONFIG_H_
#define GANTRY_CTLD_CONFIG_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/context.h"
#include "rpc/user_token.h"
#include "spec/effective_config.h"
#include "spec/show_config.h"
#include "state/admission.h"
#include "sys/disk_reserve.h"

namespace gantry::ctld {

struct ControllerConfig {
  std::string cluster_name;
  // What the core's decisions read (KillWait, SlurmdTimeout, AuthInfo cred_expire, the
  // scheduler's and priority's settings, ReturnToService, PriorityDecayHalfLife...).
  core::Config core;
  uint32_t acct_gather_frequency_sec = 30;  // JobAcctGatherFrequency (task=); 0 = no sampling
  uint32_t min_job_age_sec = 300;           // MinJobAge: finished jobs kept in memory this long
  bool job_requeue = true;                  // JobRequeue
  state::AdmitOptions admit;
  // Where gantryd keeps its state and job history: "" = SQLite in the state dir; else libpq
  // settings for AccountingStorageType=accounting_storage/postgresql, from AccountingStorageHost
  // (default localhost), AccountingStoragePort (5432), AccountingStorageUser, AccountingStoragePass
  // and AccountingStorageParameters=dbname=NAME (default gantry_<cluster name>).
  std::string store_conninfo;
  uint32_t prolog_epilog_timeout_sec = 300;
  // New work (submissions, steps) is refused while the store's disk has less free than this:
  // what is left serves the commits of work already accepted (job ends, requeues).
  uint64_t store_min_free_bytes = sys::kStoreMinFreeBytes;
  std::vector<std::string> prolog;
  std::vector<std::string> epilog;
  uint32_t snapshot_every = 20000;  // events between snapshots
  uid_t slurm_user_uid = 0;         // the controller's own uid: an operator, like root
  std::string conf_path;            // GANTRY_CONF value the jobs see
  std::string store_path;           // the SQLite store's file ("" for PostgreSQL), for /metrics
  // The key user tokens are signed with (from the cluster key); none: `scontrol token` and
  // calls carrying a token are refused.
  std::optional<rpc::TokenKey> token_key;
  // scontrol show config, less what only the running controller knows (GetConfig adds it).
  spec::ShowConfigInput show_config;
};

// Reads the settings above from `config`; errors name the key and value that do not parse.
Result<ControllerConfig> ControllerConfigFromSpec(const spec::EffectiveConfig& config);

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_CONFIG_H_
