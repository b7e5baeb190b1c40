#include "cli/lifecycle_commands.h"

#include <unistd.h>

#include <algorithm>
#include <ostream>

#include "cli/cluster_flags.h"
#include "cluster/cluster_files.h"
#include "cluster/environment.h"
#include "cluster/lifecycle.h"
#include "cluster/replicas.h"
#include "cluster/state_dir.h"
#include "spec/spec_json.h"
#include "tls/cluster_tls.h"

namespace gantry::cli {

namespace {

constexpr char kLifecycleUsage[] =
    "usage: gantry up [--spec FILE] [--state-dir DIR] [--controllers N]\n"
    "       gantry down [--state-dir DIR]\n"
    "       gantry status [--state-dir DIR]\n"
    "       gantry env [--unset] [--state-dir DIR]\n";

// Exit status of `gantry status` when something is not running (systemctl's "not running").
constexpr int kNotRunning = 3;

// A word the shell reads back as is: single-quoted unless it is made of safe characters.
std::string ShellQuote(const std::string& s) {
  const bool safe = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
  });
  if (safe) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The cluster for up: from --spec (created when its state dir holds none) or the resolved dir.
std::optional<cluster::Cluster> ClusterForUp(const ClusterFlags& flags,
                                             const cluster::Environment& env, std::ostream& out,
                                             std::ostream& err) {
  if (!flags.spec) {
    Result<cluster::StateDir> dir = cluster::ResolveStateDir(flags.state_dir, env);
    if (!dir.ok()) {
      PrintError(dir.status(), err);
      return std::nullopt;
    }
    Result<cluster::Cluster> c = cluster::LoadCluster(*dir);
    if (!c.ok()) {
      PrintSpecError(c.status(), err);
      return std::nullopt;
    }
    return std::move(c).value();
  }
  Result<spec::ClusterSpec> spec = cluster::ReadSpecFile(*flags.spec);
  if (!spec.ok()) {
    PrintSpecError(spec.status(), err);
    return std::nullopt;
  }
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*spec);
  if (!config.ok()) {
    PrintError(config.status(), err);
    return std::nullopt;
  }
  std::string dir_path;
  if (flags.state_dir) {
    dir_path = *flags.state_dir;
  } else {
    Result<std::string> root = cluster::StateRoot(env);
    if (!root.ok()) {
      PrintError(root.status(), err);
      return std::nullopt;
    }
    dir_path = *root + "/" + config->cluster_name;
  }
  const cluster::StateDir dir(dir_path);
  if (dir.HoldsCluster()) {
    Result<cluster::Cluster> c = cluster::LoadCluster(dir);
    if (!c.ok()) {
      PrintSpecError(c.status(), err);
      return std::nullopt;
    }
    if (spec::SpecToJsonText(c->spec) != spec::SpecToJsonText(*spec)) {
      err << "gantry: " << dir.dir() << " holds cluster " << c->config.cluster_name
          << " with a different spec; change it with: gantry cluster update --spec " << *flags.spec
          << " --state-dir " << dir.dir() << "\n";
      return std::nullopt;
    }
    return std::move(c).value();
  }
  Result<cluster::Cluster> created = cluster::CreateClusterFiles(*spec, dir);
  if (!created.ok()) {
    PrintError(created.status(), err);
    return std::nullopt;
  }
  out << "created cluster " << created->config.cluster_name << " in " << dir.dir() << "\n";
  return std::move(created).value();
}

// --controllers N: a replicated cluster (replicas.h) is made once, on a cluster whose state
// has never been kept (it would stay in state.db, out of the replicas' reach); after that the
// cluster keeps its form and the flag may only repeat it.
Status ApplyControllers(const cluster::Cluster& c, const std::string& text, std::ostream& out) {
  int count = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 2) {
    return InvalidArgument("--controllers \"" + text + "\": expected a number of controllers");
  }
  count = std::stoi(text);
  GANTRY_ASSIGN_OR_RETURN(const std::optional<cluster::Replicas> existing,
                          cluster::LoadReplicas(c.dir));
  const int now = existing ? static_cast<int>(existing->controllers.size()) : 1;
  if (count == now) return Status::Ok();
  if (existing || access((c.dir.dir() + "/state.db").c_str(), F_OK) == 0) {
    return FailedPrecondition("--controllers " + text + ": cluster " + c.config.cluster_name +
                              " runs " + std::to_string(now) + " controller" +
                              (now == 1 ? "" : "s") +
                              " and has kept state that way; the form "
                              "is chosen when a cluster is first brought up (gantry cluster "
                              "delete, then gantry up --spec FILE --controllers " +
                              text + ")");
  }
  GANTRY_ASSIGN_OR_RETURN(const cluster::Replicas replicas, cluster::NewLocalReplicas(count));
  GANTRY_RETURN_IF_ERROR(cluster::SaveReplicas(c.dir, replicas));
  out << "cluster " << c.config.cluster_name << ": " << count
      << " replicated controllers and etcd members (" << cluster::ReplicasPath(c.dir) << ")\n";
  return Status::Ok();
}

int Up(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--spec", "--state-dir", "--controllers"}, kLifecycleUsage, &flags,
                         err)) {
    return 2;
  }
  const cluster::Environment env = cluster::Environment::FromProcess();
  const std::optional<cluster::Cluster> c = ClusterForUp(flags, env, out, err);
  if (!c) return 1;
  if (flags.controllers) {
    if (Status s = ApplyControllers(*c, *flags.controllers, out); !s.ok()) {
      PrintError(s, err);
      return s.code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
  }
  if (Status s = cluster::Up(*c, env, cluster::LifecycleOptions(), out); !s.ok()) {
    PrintError(s, err);
    return 1;
  }
  out << "cluster " << c->config.cluster_name << " is up ("
      << cluster::ComputeNodes(c->config).size() << " nodes); for sbatch, squeue, sinfo: eval \"$("
      << "gantry env --state-dir " << ShellQuote(c->dir.dir()) << ")\"\n";
  return 0;
}

std::optional<cluster::StateDir> TargetDir(const ClusterFlags& flags, std::ostream& err) {
  Result<cluster::StateDir> dir =
      cluster::ResolveStateDir(flags.state_dir, cluster::Environment::FromProcess());
  if (!dir.ok()) {
    PrintError(dir.status(), err);
    return std::nullopt;
  }
  return *dir;
}

int Down(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--state-dir"}, kLifecycleUsage, &flags, err)) return 2;
  const std::optional<cluster::StateDir> dir = TargetDir(flags, err);
  if (!dir) return 1;
  const std::vector<std::string> nodes = dir->NodesWithPidFiles();
  const bool running = cluster::LiveGantryd(*dir).has_value() ||
                       std::any_of(nodes.begin(), nodes.end(), [&](const std::string& n) {
                         return cluster::LiveAgent(*dir, n).has_value();
                       });
  if (Status s = cluster::Down(*dir, cluster::LifecycleOptions(), out); !s.ok()) {
    PrintError(s, err);
    return 1;
  }
  out << (running ? "cluster stopped; its state stays in " : "nothing was running in ")
      << dir->dir() << "\n";
  return 0;
}

int StatusCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--state-dir"}, kLifecycleUsage, &flags, err)) return 2;
  const std::optional<cluster::StateDir> dir = TargetDir(flags, err);
  if (!dir) return 1;
  Result<cluster::Cluster> c = cluster::LoadCluster(*dir);
  if (!c.ok()) {
    PrintSpecError(c.status(), err);
    return 1;
  }
  const cluster::LifecycleOptions options;
  const cluster::ClusterStatus s =
      cluster::InspectCluster(*c, /*ask_controller=*/true, options.rpc_timeout);
  size_t width = std::string("gantry-restd").size();
  for (const cluster::AgentStatus& a : s.agents) width = std::max(width, 6 + a.node.size());
  size_t pid_width = 0;
  auto pid_text = [](pid_t pid) { return pid ? "pid " + std::to_string(pid) : std::string(); };
  pid_width = std::max(pid_width, pid_text(s.gantryd_pid).size());
  pid_width = std::max(pid_width, pid_text(s.restd_pid).size());
  for (const cluster::AgentStatus& a : s.agents) {
    pid_width = std::max(pid_width, pid_text(a.pid).size());
  }
  for (const cluster::ReplicaStatus& r : s.replicas) {
    pid_width = std::max(pid_width, pid_text(r.pid).size());
  }
  for (const cluster::ReplicaStatus& m : s.etcd) {
    pid_width = std::max(pid_width, pid_text(m.pid).size());
  }
  auto line = [&](const std::string& name, pid_t pid, const std::string& detail) {
    std::string text = name + std::string(width - name.size() + 2, ' ') +
                       (pid ? "running  " : "stopped  ") + pid_text(pid);
    if (!detail.empty()) {
      text += std::string(pid_width - pid_text(pid).size() + 2, ' ') + detail;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  std::string gantryd_detail = s.gantryd_address;
  if (s.gantryd_pid && !s.ping.ok()) {
    gantryd_detail += (gantryd_detail.empty() ? "" : "  ") + std::string("(not answering: ") +
                      s.ping.message() + ")";
  }
  if (s.replicas.empty()) {
    line("gantryd", s.gantryd_pid, gantryd_detail);
  } else {
    // Replicated controllers: each one, the leader marked; then their etcd members.
    for (const cluster::ReplicaStatus& r : s.replicas) {
      std::string detail = r.address;
      if (!r.role.empty()) detail += "  " + r.role;
      line("gantryd " + r.name, r.pid, detail);
    }
    for (const cluster::ReplicaStatus& m : s.etcd) line("etcd " + m.name, m.pid, m.address);
  }
  for (const cluster::AgentStatus& a : s.agents) {
    std::string detail = a.controller_state;
    if (!a.expected) detail += (detail.empty() ? "" : "  ") + std::string("(not in the spec)");
    line("agent " + a.node, a.pid, detail);
  }
  line("gantry-restd", s.restd_pid, s.rest_url);
  if (s.ping.ok() && !s.nodes.ok()) {
    err << "gantry: node states unavailable: " << s.nodes.message() << "\n";
  }
  return s.AllRunning() ? 0 : kNotRunning;
}

int Env(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--state-dir", "--unset"}, kLifecycleUsage, &flags, err)) {
    return 2;
  }
  const cluster::Environment env = cluster::Environment::FromProcess();
  const std::string& bin = env.self_dir;
  const std::string first_in_path = env.path.substr(0, env.path.find(':'));
  if (flags.unset) {
    out << "unset GANTRY_CONF GANTRY_STATE_DIR GANTRY_REST_URL GANTRY_REST_CA GANTRY_METRICS_URL\n";
    if (!bin.empty() && first_in_path == bin) {
      const size_t colon = env.path.find(':');
      out << "export PATH="
          << ShellQuote(colon == std::string::npos ? "" : env.path.substr(colon + 1)) << "\n";
    }
    return 0;
  }
  const std::optional<cluster::StateDir> dir = TargetDir(flags, err);
  if (!dir) return 1;
  out << "export GANTRY_CONF=" << ShellQuote(dir->conf()) << "\n";
  if (!bin.empty() && first_in_path != bin) {
    out << "export PATH=" << ShellQuote(bin) << ":\"$PATH\"\n";
  }
  out << "export GANTRY_STATE_DIR=" << ShellQuote(dir->dir()) << "\n";
  // gantry-restd, once it runs: its URL and the CA that signed its certificate (curl --cacert).
  if (const std::optional<std::string> url = cluster::ReadRestUrl(*dir)) {
    out << "export GANTRY_REST_URL=" << ShellQuote(*url) << "\n";
    out << "export GANTRY_REST_CA=" << ShellQuote(tls::TlsPaths{dir->tls()}.ca_cert()) << "\n";
  }
  // gantryd's metrics (OpenMetrics over HTTP on loopback), once it runs.
  if (const std::optional<std::string> metrics = cluster::ReadMetricsUrl(*dir)) {
    out << "export GANTRY_METRICS_URL=" << ShellQuote(*metrics + "/metrics") << "\n";
  }
  return 0;
}

}  // namespace

bool IsLifecycleCommand(const std::string& command) {
  return command == "up" || command == "down" || command == "status" || command == "env";
}

int RunLifecycleCommand(const std::string& command, const std::vector<std::string>& args,
                        std::ostream& out, std::ostream& err) {
  if (command == "up") return Up(args, out, err);
  if (command == "down") return Down(args, out, err);
  if (command == "status") return StatusCommand(args, out, err);
  if (command == "env") return Env(args, out, err);
  err << "gantry: unknown command \"" << command << "\"\n" << kLifecycleUsage;
  return 2;
}

}  // namespace gantry::cli
