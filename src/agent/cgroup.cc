#include "agent/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "sys/mountinfo.h"
#include "text/ascii.h"

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
  for (const sys::Mount& m : sys::ParseMountInfo(mountinfo)) {
    if (m.fs_type != "cgroup2") continue;
    if (m.mount_point == "/sys/fs/cgroup") return m.mount_point;
    if (!first) first = m.mount_point;
  }
  return first;
}

std::optional<std::string> FindCgroup2Mount() { return ParseCgroup2Mount(sys::ReadMountInfo()); }

std::optional<std::string> ParseCgroup1Mount(std::string_view mountinfo,
                                             std::string_view controller) {
  for (const sys::Mount& m : sys::ParseMountInfo(mountinfo)) {
    if (m.fs_type != "cgroup") continue;
    for (std::string_view option : text::Split(m.super_options, ',')) {
      if (option == controller) return m.mount_point;
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
