#include "cluster/state_dir.h"

#include <sys/un.h>

#include <algorithm>
#include <filesystem>

namespace gantry::cluster {

namespace fs = std::filesystem;

StateDir::StateDir(std::string_view dir) : dir_(NormalizePath(dir)) {}

std::string StateDir::agent_pid(std::string_view node) const {
  return run() + "/agent-" + std::string(node) + ".pid";
}

std::string StateDir::agent_log(std::string_view node) const {
  return logs() + "/agent-" + std::string(node) + ".log";
}

std::string StateDir::agent_spool(std::string_view node) const {
  return spool() + "/" + std::string(node);
}

Status StateDir::Secure() const {
  auto set_mode = [](const std::string& path, fs::perms mode) -> Status {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::Ok();
    fs::permissions(path, mode, fs::perm_options::replace, ec);
    if (ec) return Unavailable("cannot set the mode of " + path + ": " + ec.message());
    return Status::Ok();
  };
  constexpr fs::perms kPrivateFile = fs::perms::owner_read | fs::perms::owner_write;
  constexpr fs::perms kPrivateDir = fs::perms::owner_all;
  constexpr fs::perms kPublicDir = fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec;
  constexpr fs::perms kTraverseOnly =
      fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;
  for (const std::string& d : {dir_, run(), logs(), spool(), home()}) {
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) return Unavailable("cannot create " + d + ": " + ec.message());
  }
  GANTRY_RETURN_IF_ERROR(set_mode(dir_, kTraverseOnly));
  GANTRY_RETURN_IF_ERROR(set_mode(run(), kPublicDir));
  GANTRY_RETURN_IF_ERROR(set_mode(spool(), kTraverseOnly));
  GANTRY_RETURN_IF_ERROR(set_mode(home(), kPublicDir));
  GANTRY_RETURN_IF_ERROR(set_mode(logs(), kPrivateDir));
  for (const std::string& f : {spec(), key(), dir_ + "/state.db", dir_ + "/state.db-wal",
                               dir_ + "/state.db-shm", dir_ + "/state.db-journal"}) {
    GANTRY_RETURN_IF_ERROR(set_mode(f, kPrivateFile));
  }
  std::error_code ec;
  for (fs::directory_iterator it(logs(), ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) GANTRY_RETURN_IF_ERROR(set_mode(it->path(), kPrivateFile));
  }
  for (const char* old : {"/gantryd.sock", "/commands.sock", "/gantryd.addr"}) {
    fs::remove(dir_ + old, ec);
  }
  return Status::Ok();
}

Status StateDir::CheckSocketPath() const {
  constexpr size_t kMax = sizeof(sockaddr_un{}.sun_path) - 1;
  // The command socket's name is the longer one.
  if (command_socket().size() <= kMax) return Status::Ok();
  return InvalidArgument("the state dir " + dir_ + " is too long: its command socket " +
                         command_socket() + " would exceed the " + std::to_string(kMax) +
                         "-byte limit of unix socket paths; use a shorter --state-dir");
}

bool StateDir::HoldsCluster() const {
  std::error_code ec;
  return fs::is_regular_file(spec(), ec);
}

std::vector<std::string> StateDir::NodesWithPidFiles() const {
  std::vector<std::string> nodes;
  std::error_code ec;
  for (fs::directory_iterator it(run(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("agent-") && name.ends_with(".pid") && name.size() > 10) {
      nodes.push_back(name.substr(6, name.size() - 10));
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<std::string> ListClusterDirs(const std::string& root) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_directory(ec2)) continue;
    const StateDir d(it->path().string());
    if (d.HoldsCluster()) dirs.push_back(d.dir());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

Result<StateDir> ResolveStateDir(const std::optional<std::string>& flag, const Environment& env) {
  auto checked = [](const std::string& dir, const std::string& from) -> Result<StateDir> {
    StateDir d(dir);
    if (!d.HoldsCluster()) {
      return FailedPrecondition(d.dir() + " (" + from + ") holds no cluster (no spec.json); " +
                                "create one with: gantry cluster create --spec FILE");
    }
    return d;
  };
  if (flag) return checked(*flag, "--state-dir");
  if (!env.gantry_state_dir.empty()) return checked(env.gantry_state_dir, "$GANTRY_STATE_DIR");
  GANTRY_ASSIGN_OR_RETURN(const std::string root, StateRoot(env));
  const std::vector<std::string> dirs = ListClusterDirs(root);
  if (dirs.size() == 1) return StateDir(dirs[0]);
  if (dirs.empty()) {
    return FailedPrecondition("no cluster under " + root +
                              "; create one with: gantry cluster create --spec FILE "
                              "(or pass --state-dir DIR)");
  }
  std::string list;
  for (const std::string& d : dirs) list += "\n  " + d;
  return FailedPrecondition("several clusters under " + root + "; pick one with --state-dir DIR" +
                            " (or set GANTRY_STATE_DIR):" + list);
}

}  // namespace gantry::cluster
