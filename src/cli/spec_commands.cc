#include "cli/spec_commands.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "spec/effective_config.h"
#include "spec/render_slurm_conf.h"
#include "spec/show_config.h"
#include "spec/spec_json.h"
#include "spec/spec_update.h"
#include "spec/validate.h"

namespace gantry::cli {

namespace {

constexpr char kSpecUsage[] =
    "usage: gantry spec validate FILE...\n"
    "       gantry spec render FILE [--format slurm.conf|gres.conf|json|show-config]\n"
    "                               [--controller-host HOST] [--state-dir DIR] [--etc-dir DIR]\n"
    "                               [--slurm-user USER]\n"
    "       gantry spec diff OLD NEW [--allow-config-changes]\n";

bool ReadFile(const std::string& path, std::string* text, std::ostream& err) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    err << "gantry: cannot read " << path << ": is a directory\n";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << "gantry: cannot read " << path << "\n";
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// Reads, parses and validates one spec; prints "FILE: problem" lines on failure.
std::optional<spec::ClusterSpec> LoadSpec(const std::string& path, std::ostream& err) {
  std::string text;
  if (!ReadFile(path, &text, err)) return std::nullopt;
  spec::CheckedSpec checked = spec::CheckSpecText(text);
  const spec::Diagnostics& d = checked.diagnostics;
  if (!checked.ok()) {
    for (const spec::Diagnostic& x : d.items()) err << path << ": " << x.ToString() << "\n";
    err << path << ": " << d.size() << (d.size() == 1 ? " problem" : " problems") << "\n";
    return std::nullopt;
  }
  return std::move(checked.spec);
}

int Validate(const std::vector<std::string>& files, std::ostream& out, std::ostream& err) {
  if (files.empty()) {
    err << kSpecUsage;
    return 2;
  }
  int rc = 0;
  for (const std::string& f : files) {
    if (LoadSpec(f, err)) {
      out << f << ": valid\n";
    } else {
      rc = 1;
    }
  }
  return rc;
}

int Render(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string file;
  std::string format = "slurm.conf";
  spec::SlurmConfOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* dst) {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        *dst = a.substr(eq + 1);
        return true;
      }
      if (i + 1 >= args.size()) {
        err << "gantry: " << a << " needs a value\n";
        return false;
      }
      *dst = args[++i];
      return true;
    };
    if (a.starts_with("--format")) {
      if (!value(&format)) return 2;
    } else if (a.starts_with("--controller-host")) {
      if (!value(&options.controller_host)) return 2;
    } else if (a.starts_with("--state-dir")) {
      if (!value(&options.state_dir)) return 2;
    } else if (a.starts_with("--etc-dir")) {
      if (!value(&options.etc_dir)) return 2;
    } else if (a.starts_with("--slurm-user")) {
      if (!value(&options.slurm_user)) return 2;
    } else if (a.starts_with("-")) {
      err << "gantry: unknown option " << a << "\n" << kSpecUsage;
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      err << "gantry: render takes one FILE\n" << kSpecUsage;
      return 2;
    }
  }
  if (file.empty()) {
    err << kSpecUsage;
    return 2;
  }
  if (format != "slurm.conf" && format != "gres.conf" && format != "json" &&
      format != "show-config") {
    err << "gantry: --format: unknown format \"" << format
        << "\" (known: slurm.conf, gres.conf, json, show-config)\n";
    return 2;
  }
  std::optional<spec::ClusterSpec> s = LoadSpec(file, err);
  if (!s) return 1;
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*s);
  if (!config.ok()) {
    err << file << ": " << config.status().message() << "\n";
    return 1;
  }
  if (format == "slurm.conf") {
    out << spec::RenderSlurmConf(*config, options);
  } else if (format == "gres.conf") {
    out << spec::RenderGresConf(*config);
  } else if (format == "json") {
    out << spec::EffectiveConfigToJsonText(*s, *config);
  } else {
    out << spec::RenderShowConfigForCluster(*config, options);
  }
  return 0;
}

int Diff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  spec::UpdatePolicy policy;
  for (const std::string& a : args) {
    if (a == "--allow-config-changes") {
      policy.allow_config_changes = true;
    } else if (a.starts_with("-")) {
      err << "gantry: unknown option " << a << "\n" << kSpecUsage;
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2) {
    err << kSpecUsage;
    return 2;
  }
  std::optional<spec::ClusterSpec> before = LoadSpec(files[0], err);
  std::optional<spec::ClusterSpec> after = LoadSpec(files[1], err);
  if (!before || !after) return 1;
  const std::vector<spec::SpecChange> changes = spec::DiffSpecs(*before, *after, policy);
  size_t refused = 0;
  for (const spec::SpecChange& c : changes) {
    out << c.ToString() << "\n";
    if (!c.allowed) ++refused;
  }
  out << changes.size() << (changes.size() == 1 ? " change" : " changes") << ", " << refused
      << " refused\n";
  return refused == 0 ? 0 : 1;
}

}  // namespace

int RunSpecCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kSpecUsage;
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "validate") return Validate(rest, out, err);
  if (args[0] == "render") return Render(rest, out, err);
  if (args[0] == "diff") return Diff(rest, out, err);
  err << "gantry: unknown spec command \"" << args[0] << "\"\n" << kSpecUsage;
  return 2;
}

}  // namespace gantry::cli
