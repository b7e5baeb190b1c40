#include "ctld/config.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "spec/render_slurm_conf.h"
#include "text/ascii.h"

namespace gantry::ctld {
namespace {

// A libpq connection setting's value, quoted ('...' with \\ and \' escaped).
std::string ConninfoValue(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\\' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

// JobAcctGatherFrequency: "N" or "task=N[,energy=...]" (the task interval, seconds).
Result<uint32_t> TaskSampling(const spec::EffectiveConfig& config) {
  const std::string value = config.Get("JobAcctGatherFrequency");
  if (value.empty()) return 30;
  for (std::string_view item : text::Split(value, ',')) {
    std::string_view number = item;
    if (item.find('=') != std::string_view::npos) {
      if (!item.starts_with("task=")) continue;
      number = item.substr(5);
    }
    uint32_t out = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), out);
    if (ec != std::errc() || ptr != number.data() + number.size()) {
      return InvalidArgument("JobAcctGatherFrequency=" + value +
                             ": the task interval is not a number of seconds");
    }
    return out;
  }
  return 30;
}

// A server on this host: a unix socket directory or a loopback name.
bool IsLocalHost(std::string_view host) {
  return host.starts_with("/") || host == "localhost" || host == "127.0.0.1" || host == "::1";
}

std::string PostgresConninfo(const spec::EffectiveConfig& config) {
  std::string dbname = "gantry_" + config.cluster_name;
  std::string host = config.Get("AccountingStorageHost");
  if (host.empty()) host = "localhost";
  // The password and every job's script cross the link: a server on another host must prove
  // itself with a certificate the system trusts, unless the spec says otherwise (review M8).
  std::string sslmode = IsLocalHost(host) ? "prefer" : "verify-full";
  std::string sslrootcert;
  const std::string parameters = config.Get("AccountingStorageParameters");
  for (std::string_view item : text::Split(parameters, ',')) {
    if (item.starts_with("dbname=")) dbname = item.substr(7);
    if (item.starts_with("sslmode=")) sslmode = item.substr(8);
    if (item.starts_with("sslrootcert=")) sslrootcert = item.substr(12);
  }
  const std::string port = config.Get("AccountingStoragePort");
  std::string out = "host=" + ConninfoValue(host) +
                    " port=" + ConninfoValue(port.empty() || port == "0" ? "5432" : port) +
                    " dbname=" + ConninfoValue(dbname) + " sslmode=" + ConninfoValue(sslmode);
  if (!sslrootcert.empty()) out += " sslrootcert=" + ConninfoValue(sslrootcert);
  if (const std::string user = config.Get("AccountingStorageUser"); !user.empty()) {
    out += " user=" + ConninfoValue(user);
  }
  if (const std::string pass = config.Get("AccountingStoragePass"); !pass.empty()) {
    out += " password=" + ConninfoValue(pass);
  }
  return out;
}

}  // namespace

Result<ControllerConfig> ControllerConfigFromSpec(const spec::EffectiveConfig& config) {
  ControllerConfig out;
  out.cluster_name = config.cluster_name;
  GANTRY_ASSIGN_OR_RETURN(out.core, core::ConfigFromSpec(config));
  GANTRY_ASSIGN_OR_RETURN(out.min_job_age_sec, spec::UintSetting(config, "MinJobAge", 300));
  GANTRY_ASSIGN_OR_RETURN(uint32_t requeue, spec::UintSetting(config, "JobRequeue", 1));
  out.job_requeue = requeue != 0;
  GANTRY_ASSIGN_OR_RETURN(out.prolog_epilog_timeout_sec,
                          spec::UintSetting(config, "PrologEpilogTimeout", 300));
  if (out.prolog_epilog_timeout_sec == 0 || out.prolog_epilog_timeout_sec >= 65534) {
    out.prolog_epilog_timeout_sec = 0;  // no limit
  }
  out.admit = state::AdmitOptionsFromConfig(config);
  GANTRY_ASSIGN_OR_RETURN(out.acct_gather_frequency_sec, TaskSampling(config));
  if (config.Get("AccountingStorageType") == "accounting_storage/postgresql") {
    out.store_conninfo = PostgresConninfo(config);
  }
  out.prolog = config.prolog_scripts;
  out.epilog = config.epilog_scripts;
  out.slurm_user_uid = getuid();
  out.show_config = spec::ShowConfigInputForCluster(config, spec::SlurmConfOptions());
  out.show_config.slurm_user_id = out.slurm_user_uid;
  out.show_config.slurmd_user_id = 0;  // agents run as root
  for (spec::ShowConfigController& controller : out.show_config.controllers) controller.up = true;
  return out;
}

}  // namespace gantry::ctld
