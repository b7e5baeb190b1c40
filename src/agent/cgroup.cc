#include "agent/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gantry::agent {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  return Unavailable("mkdir(" + path + "): " + ErrnoText(errno));
}

bool WriteText(const std::string& path, std::string_view text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

}  // namespace

std::optional<std::string> ParseCgroup2Mount(std::string_view mountinfo) {
  std::optional<std::string> first;
  size_t pos = 0;
  while (pos < mountinfo.size()) {
    size_t end = mountinfo.find('\n', pos);
    if (end == std::string_view::npos) end = mountinfo.size();
    std::string_view line = mountinfo.substr(pos, end - pos);
    pos = end + 1;
    // "id parent major:minor root mount-point options [optional...] - fstype source super"
    size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    std::string_view after = line.substr(dash + 3);
    if (after.substr(0, after.find(' ')) != "cgroup2") continue;
    std::istringstream fields{std::string(line.substr(0, dash))};
    std::string id;
    std::string parent;
    std::string dev;
    std::string root;
    std::string mount_point;
    if (!(fields >> id >> parent >> dev >> root >> mount_point)) continue;
    if (mount_point == "/sys/fs/cgroup") return mount_point;
    if (!first) first = mount_point;
  }
  return first;
}

std::string ReadMountInfo() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::optional<std::string> FindCgroup2Mount() { return ParseCgroup2Mount(ReadMountInfo()); }

std::optional<std::string> ParseCgroup1Mount(std::string_view mountinfo,
                                             std::string_view controller) {
  std::istringstream lines{std::string(mountinfo)};
  for (std::string line; std::getline(lines, line);) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream before(line.substr(0, dash));
    std::istringstream after(line.substr(dash + 3));
    std::string skip;  // mount id, parent id, device, root
    std::string mount_point;
    before >> skip >> skip >> skip >> skip >> mount_point;
    std::string fstype;
    std::string source;
    std::string options;
    after >> fstype >> source >> options;
    if (fstype != "cgroup") continue;
    std::istringstream opts(options);
    for (std::string opt; std::getline(opts, opt, ',');) {
      if (opt == controller) return mount_point;
    }
  }
  return std::nullopt;
}

Result<CgroupTree> CgroupTree::Open(const std::string& root, const std::string& node) {
  struct stat st {};
  if (stat((root + "/cgroup.procs").c_str(), &st) != 0) {
    return Unavailable(root + " is not a cgroup v2 hierarchy");
  }
  const std::string slice = root + "/gantry.slice";
  GANTRY_RETURN_IF_ERROR(MakeDir(slice));
  const std::string base = slice + "/" + node;
  GANTRY_RETURN_IF_ERROR(MakeDir(base));
  // A probe: creating and removing a job cgroup is all the agent needs.
  const std::string probe = base + "/probe_" + std::to_string(getpid());
  GANTRY_RETURN_IF_ERROR(MakeDir(probe));
  if (access((probe + "/cgroup.procs").c_str(), W_OK) != 0) {
    int err = errno;
    rmdir(probe.c_str());
    return Unavailable(probe + "/cgroup.procs: " + ErrnoText(err));
  }
  if (rmdir(probe.c_str()) != 0) return Unavailable("rmdir(" + probe + "): " + ErrnoText(errno));
  return CgroupTree(base);
}

std::string CgroupTree::JobPath(uint32_t job_id) const {
  return base_ + "/job_" + std::to_string(job_id);
}

Result<std::string> CgroupTree::CreateJob(uint32_t job_id) const {
  std::string path = JobPath(job_id);
  GANTRY_RETURN_IF_ERROR(MakeDir(path));
  return path;
}

std::vector<std::pair<uint32_t, std::string>> CgroupTree::ListJobs() const {
  std::vector<std::pair<uint32_t, std::string>> jobs;
  DIR* dir = opendir(base_.c_str());
  if (dir == nullptr) return jobs;
  while (dirent* entry = readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name.substr(0, 4) != "job_") continue;
    uint32_t id = 0;
    auto [ptr, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), id);
    if (ec != std::errc() || ptr != name.data() + name.size()) continue;
    jobs.emplace_back(id, base_ + "/" + std::string(name));
  }
  closedir(dir);
  return jobs;
}

std::vector<pid_t> CgroupProcs(const std::string& dir) {
  std::vector<pid_t> pids;
  std::ifstream in(dir + "/cgroup.procs");
  pid_t pid = 0;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

bool CgroupKill(const std::string& dir) { return WriteText(dir + "/cgroup.kill", "1"); }

bool CgroupFreeze(const std::string& dir, bool frozen) {
  return WriteText(dir + "/cgroup.freeze", frozen ? "1" : "0");
}

Status RemoveCgroup(const std::string& dir) {
  if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return Unavailable("rmdir(" + dir + "): " + ErrnoText(errno));
}

}  // namespace gantry::agent
