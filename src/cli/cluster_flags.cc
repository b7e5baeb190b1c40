#include "cli/cluster_flags.h"

#include <algorithm>
#include <ostream>

namespace gantry::cli {

namespace {

constexpr size_t kLabelWidth = 19;

void Label(std::ostream& out, std::string_view label) {
  out << label << std::string(label.size() < kLabelWidth ? kLabelWidth - label.size() : 1, ' ');
}

}  // namespace

void PrintField(std::ostream& out, std::string_view label, std::string_view value) {
  Label(out, label);
  out << value << "\n";
}

bool ParseClusterFlags(const std::vector<std::string>& args,
                       std::initializer_list<std::string_view> allowed, std::string_view usage,
                       ClusterFlags* flags, std::ostream& err) {
  auto is_allowed = [&](std::string_view name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const size_t eq = a.find('=');
    const std::string name = a.starts_with("--") ? a.substr(0, eq) : a;
    if (!is_allowed(name == "-y" ? "--yes" : name)) {
      if (a.starts_with("-")) {
        err << "gantry: unknown option " << a << "\n" << usage;
      } else {
        err << "gantry: unexpected argument \"" << a << "\"\n" << usage;
      }
      return false;
    }
    auto value = [&](std::optional<std::string>* dst) {
      if (eq != std::string::npos) {
        *dst = a.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        *dst = args[++i];
      } else {
        err << "gantry: " << a << " needs a value\n" << usage;
        return false;
      }
      if (dst->value().empty()) {
        err << "gantry: " << name << " needs a non-empty value\n" << usage;
        return false;
      }
      return true;
    };
    auto boolean = [&](bool* dst) {
      if (eq != std::string::npos) {
        err << "gantry: " << name << " takes no value\n" << usage;
        return false;
      }
      *dst = true;
      return true;
    };
    bool ok = true;
    if (name == "--state-dir") {
      ok = value(&flags->state_dir);
    } else if (name == "--spec") {
      ok = value(&flags->spec);
    } else if (name == "--format") {
      ok = value(&flags->format);
    } else if (name == "--controllers") {
      ok = value(&flags->controllers);
    } else if (name == "--yes" || name == "-y") {
      ok = boolean(&flags->yes);
    } else if (name == "--allow-config-changes") {
      ok = boolean(&flags->allow_config_changes);
    } else if (name == "--unset") {
      ok = boolean(&flags->unset);
    }
    if (!ok) return false;
  }
  return true;
}

std::string RunStateWord(const cluster::ClusterStatus& status) {
  if (status.NoneRunning()) return "stopped";
  bool all = status.gantryd_pid != 0;
  for (const cluster::AgentStatus& a : status.agents) all = all && (!a.expected || a.pid > 0);
  return all ? "running" : "partly running";
}

void PrintSpecSummary(const spec::EffectiveConfig& config, std::ostream& out) {
  for (const spec::EffectivePool& p : config.pools) {
    if (p.login) {
      Label(out, "login pool");
      out << p.id << ": " << p.hostlist << " (" << p.machine_type << ")\n";
      continue;
    }
    Label(out, "pool " + p.id);
    out << p.hostlist << ": " << p.node_names.size()
        << (p.node_names.size() == 1 ? " node, " : " nodes, ") << p.machine_type << ", " << p.cpus
        << " CPUs, " << p.real_memory_mib << " MiB";
    if (p.gpus > 0) {
      out << ", " << p.gpus << (p.gpu_type.empty() ? "" : " " + p.gpu_type) << " GPUs";
    }
    out << "\n";
  }
  for (const spec::EffectivePartition& p : config.partitions) {
    Label(out, "partition " + p.name);
    out << p.hostlist << " (pools: ";
    for (size_t i = 0; i < p.pool_ids.size(); ++i) out << (i ? ", " : "") << p.pool_ids[i];
    out << ")\n";
  }
  if (const spec::EffectivePartition* d = config.DefaultPartition()) {
    Label(out, "default partition");
    out << d->name << "\n";
  }
}

void PrintError(const Status& status, std::ostream& err) {
  err << "gantry: " << status.message() << "\n";
}

void PrintSpecError(const Status& status, std::ostream& err) {
  if (status.code() == StatusCode::kInvalidArgument) {
    err << status.message() << "\n";
  } else {
    PrintError(status, err);
  }
}

}  // namespace gantry::cli
