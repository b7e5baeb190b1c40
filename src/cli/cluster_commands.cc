#include "cli/cluster_commands.h"

#include <algorithm>
#include <filesystem>
#include <istream>
#include <ostream>

#include "cli/cluster_flags.h"
#include "cluster/cluster_files.h"
#include "cluster/environment.h"
#include "cluster/lifecycle.h"
#include "cluster/state_dir.h"
#include "spec/spec_json.h"
#include "spec/spec_update.h"
#include "text/ascii.h"

namespace gantry::cli {

namespace {

constexpr char kClusterUsage[] =
    "usage: gantry cluster create --spec FILE [--state-dir DIR]\n"
    "       gantry cluster get [--state-dir DIR] [--format text|json]\n"
    "       gantry cluster list\n"
    "       gantry cluster update --spec FILE [--allow-config-changes] [--state-dir DIR]\n"
    "       gantry cluster delete [--yes] [--state-dir DIR]\n";

// Where `create` puts a cluster: --state-dir, else <state root>/<cluster name>.
Result<cluster::StateDir> NewClusterDir(const ClusterFlags& flags, const std::string& name,
                                        const cluster::Environment& env) {
  if (flags.state_dir) return cluster::StateDir(*flags.state_dir);
  GANTRY_ASSIGN_OR_RETURN(const std::string root, cluster::StateRoot(env));
  return cluster::StateDir(root + "/" + name);
}

int Create(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--spec", "--state-dir"}, kClusterUsage, &flags, err)) return 2;
  if (!flags.spec) {
    err << "gantry: cluster create needs --spec FILE\n" << kClusterUsage;
    return 2;
  }
  Result<spec::ClusterSpec> spec = cluster::ReadSpecFile(*flags.spec);
  if (!spec.ok()) {
    PrintSpecError(spec.status(), err);
    return 1;
  }
  const cluster::Environment env = cluster::Environment::FromProcess();
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*spec);
  if (!config.ok()) {
    PrintError(config.status(), err);
    return 1;
  }
  Result<cluster::StateDir> dir = NewClusterDir(flags, config->cluster_name, env);
  if (!dir.ok()) {
    PrintError(dir.status(), err);
    return 1;
  }
  Result<cluster::Cluster> created = cluster::CreateClusterFiles(*spec, *dir);
  if (!created.ok()) {
    PrintError(created.status(), err);
    return 1;
  }
  out << "created cluster " << created->config.cluster_name << " in " << dir->dir() << "\n";
  PrintField(out, "  spec.json", "the spec (canonical JSON)");
  PrintField(out, "  gantry.conf", "for the commands (GANTRY_CONF)");
  PrintField(out, "  cluster.key", "the cluster's secret key (mode 0600)");
  PrintField(out, "  run/ logs/", "pid files and daemon logs");
  PrintField(out, "  spool/ home/", "agent spools and the shared home directory");
  PrintSpecSummary(created->config, out);
  out << "start it with: gantry up --state-dir " << dir->dir() << "\n";
  return 0;
}

// The cluster a command acts on (--state-dir, $GANTRY_STATE_DIR, or the only one).
std::optional<cluster::Cluster> LoadTarget(const ClusterFlags& flags, std::ostream& err) {
  Result<cluster::StateDir> dir =
      cluster::ResolveStateDir(flags.state_dir, cluster::Environment::FromProcess());
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

int Get(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--state-dir", "--format"}, kClusterUsage, &flags, err)) return 2;
  const std::string format = flags.format.value_or("text");
  if (format != "text" && format != "json") {
    err << "gantry: --format: unknown format \"" << format << "\" (known: text, json)\n";
    return 2;
  }
  const std::optional<cluster::Cluster> c = LoadTarget(flags, err);
  if (!c) return 1;
  if (format == "json") {
    out << spec::SpecToJsonText(c->spec);
    return 0;
  }
  const cluster::ClusterStatus status =
      cluster::InspectCluster(*c, /*ask_controller=*/false, std::chrono::seconds(2));
  std::string state = RunStateWord(status);
  if (!status.NoneRunning()) {
    state += " (gantryd ";
    state += status.gantryd_pid ? "pid " + std::to_string(status.gantryd_pid) : "stopped";
    if (!status.gantryd_address.empty()) state += " at " + status.gantryd_address;
    state += ", " + std::to_string(status.RunningAgents()) + "/" +
             std::to_string(status.ExpectedAgents()) + " agents)";
  }
  PrintField(out, "cluster", c->config.cluster_name);
  PrintField(out, "state dir", c->dir.dir());
  PrintField(out, "status", state);
  PrintSpecSummary(c->config, out);
  return 0;
}

int List(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {}, kClusterUsage, &flags, err)) return 2;
  Result<std::string> root = cluster::StateRoot(cluster::Environment::FromProcess());
  if (!root.ok()) {
    PrintError(root.status(), err);
    return 1;
  }
  const std::vector<std::string> dirs = cluster::ListClusterDirs(*root);
  if (dirs.empty()) {
    out << "no clusters under " << *root << "\n";
    return 0;
  }
  struct Row {
    std::string name, state, nodes, dir;
  };
  std::vector<Row> rows = {{"NAME", "STATUS", "NODES", "STATE DIR"}};
  for (const std::string& d : dirs) {
    Result<cluster::Cluster> c = cluster::LoadCluster(cluster::StateDir(d));
    if (!c.ok()) {
      rows.push_back({std::filesystem::path(d).filename().string(), "invalid spec", "-", d});
      continue;
    }
    const cluster::ClusterStatus s =
        cluster::InspectCluster(*c, /*ask_controller=*/false, std::chrono::seconds(2));
    rows.push_back(
        {c->config.cluster_name, RunStateWord(s), std::to_string(c->config.ComputeNodeCount()), d});
  }
  size_t w_name = 0;
  size_t w_state = 0;
  size_t w_nodes = 0;
  for (const Row& r : rows) {
    w_name = std::max(w_name, r.name.size());
    w_state = std::max(w_state, r.state.size());
    w_nodes = std::max(w_nodes, r.nodes.size());
  }
  for (const Row& r : rows) {
    out << r.name << std::string(w_name - r.name.size() + 2, ' ') << r.state
        << std::string(w_state - r.state.size() + 2, ' ') << r.nodes
        << std::string(w_nodes - r.nodes.size() + 2, ' ') << r.dir << "\n";
  }
  return 0;
}

int Update(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--spec", "--state-dir", "--allow-config-changes"}, kClusterUsage,
                         &flags, err)) {
    return 2;
  }
  if (!flags.spec) {
    err << "gantry: cluster update needs --spec FILE\n" << kClusterUsage;
    return 2;
  }
  const std::optional<cluster::Cluster> before = LoadTarget(flags, err);
  if (!before) return 1;
  Result<spec::ClusterSpec> spec = cluster::ReadSpecFile(*flags.spec);
  if (!spec.ok()) {
    PrintSpecError(spec.status(), err);
    return 1;
  }
  spec::UpdatePolicy policy;
  policy.allow_config_changes = flags.allow_config_changes;
  const std::vector<spec::SpecChange> changes = spec::DiffSpecs(before->spec, *spec, policy);
  size_t refused = 0;
  for (const spec::SpecChange& c : changes) {
    out << c.ToString() << "\n";
    if (!c.allowed) ++refused;
  }
  if (changes.empty()) {
    out << "no changes\n";
    return 0;
  }
  if (refused > 0) {
    err << "gantry: " << refused << " of " << changes.size()
        << (changes.size() == 1 ? " change" : " changes") << " refused; the cluster is unchanged\n";
    return 1;
  }
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*spec);
  if (!config.ok()) {
    PrintError(config.status(), err);
    return 1;
  }
  if (Status s = cluster::WriteSpecFile(before->dir, *spec); !s.ok()) {
    PrintError(s, err);
    return 1;
  }
  out << "updated " << before->dir.spec() << " (" << changes.size()
      << (changes.size() == 1 ? " change" : " changes") << ")\n";
  const cluster::Cluster after{before->dir, std::move(spec).value(), std::move(config).value()};
  if (Status s = cluster::RestartForUpdate(*before, after, cluster::Environment::FromProcess(),
                                           cluster::LifecycleOptions(), out);
      !s.ok()) {
    PrintError(s, err);
    return 1;
  }
  return 0;
}

int Delete(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
           std::ostream& err) {
  ClusterFlags flags;
  if (!ParseClusterFlags(args, {"--state-dir", "--yes"}, kClusterUsage, &flags, err)) return 2;
  const std::optional<cluster::Cluster> c = LoadTarget(flags, err);
  if (!c) return 1;
  if (!flags.yes) {
    err << "Delete cluster " << c->config.cluster_name << " and all its state in " << c->dir.dir()
        << "? [y/N] " << std::flush;
    std::string answer;
    std::getline(in, answer);
    while (!answer.empty() && text::IsAsciiSpace(answer.back())) answer.pop_back();
    while (!answer.empty() && text::IsAsciiSpace(answer.front())) answer.erase(0, 1);
    if (!text::EqualsIgnoreCase(answer, "y") && !text::EqualsIgnoreCase(answer, "yes")) {
      err << "not deleted\n";
      return 1;
    }
  }
  if (Status s = cluster::DeleteCluster(c->dir, cluster::LifecycleOptions(), out); !s.ok()) {
    PrintError(s, err);
    return 1;
  }
  out << "deleted cluster " << c->config.cluster_name << " (" << c->dir.dir() << ")\n";
  return 0;
}

}  // namespace

int RunClusterCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                      std::ostream& err) {
  if (args.empty()) {
    err << kClusterUsage;
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "create") return Create(rest, out, err);
  if (args[0] == "get") return Get(rest, out, err);
  if (args[0] == "list") return List(rest, out, err);
  if (args[0] == "update") return Update(rest, out, err);
  if (args[0] == "delete") return Delete(rest, in, out, err);
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    out << kClusterUsage;
    return 0;
  }
  err << "gantry: unknown cluster command \"" << args[0] << "\"\n" << kClusterUsage;
  return 2;
}

}  // namespace gantry::cli
