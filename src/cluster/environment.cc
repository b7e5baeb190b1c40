#include "cluster/environment.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace gantry::cluster {

namespace {

std::string GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

Environment Environment::FromProcess() {
  Environment env;
  env.gantry_home = GetEnv("GANTRY_HOME");
  env.home = GetEnv("HOME");
  env.gantry_state_dir = GetEnv("GANTRY_STATE_DIR");
  env.gantry_bin_dir = GetEnv("GANTRY_BIN_DIR");
  env.path = GetEnv("PATH");
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) env.self_dir = self.parent_path().string();
  return env;
}

Result<std::string> StateRoot(const Environment& env) {
  if (!env.gantry_home.empty()) return NormalizePath(env.gantry_home);
  if (!env.home.empty()) return NormalizePath(env.home + "/.local/share/gantry");
  return FailedPrecondition("neither GANTRY_HOME nor HOME is set; pass --state-dir DIR");
}

Result<std::string> FindBinary(const Environment& env, std::string_view name) {
  std::vector<std::string> dirs;
  std::string looked;
  if (!env.gantry_bin_dir.empty()) {
    dirs.push_back(env.gantry_bin_dir);
    looked += "$GANTRY_BIN_DIR (" + env.gantry_bin_dir + "), ";
  }
  if (!env.self_dir.empty()) {
    dirs.push_back(env.self_dir);
    looked += env.self_dir + ", ";
  }
  size_t start = 0;
  while (start <= env.path.size()) {
    size_t end = env.path.find(':', start);
    if (end == std::string::npos) end = env.path.size();
    const std::string dir = env.path.substr(start, end - start);
    dirs.push_back(dir.empty() ? "." : dir);
    start = end + 1;
  }
  looked += "PATH";
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + std::string(name);
    if (IsExecutableFile(candidate)) return NormalizePath(candidate);
  }
  return NotFound(std::string(name) + " not found (looked in " + looked + ")");
}

std::string NormalizePath(std::string_view path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(std::filesystem::path(path), ec);
  if (ec) p = std::filesystem::path(path);
  std::filesystem::path canonical = std::filesystem::weakly_canonical(p, ec);
  if (ec) canonical = p.lexically_normal();
  std::string s = canonical.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace gantry::cluster
