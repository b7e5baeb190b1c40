#include "agent/gpu_devices.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gantry::agent {
namespace {

constexpr unsigned kNvidiaMajor = 195;

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  return Unavailable("mkdir(" + path + "): " + strerror(errno));
}

}  // namespace

std::vector<uint32_t> FindNvidiaGpus(const std::string& dev_dir) {
  std::vector<uint32_t> minors;
  DIR* dir = opendir(dev_dir.c_str());
  if (dir == nullptr) return minors;
  while (dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.size() <= 6 || name.substr(0, 6) != "nvidia" ||
        !std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    struct stat st {};
    const std::string path = dev_dir + "/" + std::string(name);
    if (stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == kNvidiaMajor) {
      minors.push_back(minor(st.st_rdev));
    }
  }
  closedir(dir);
  std::sort(minors.begin(), minors.end());
  return minors;
}

std::optional<std::string> ParseDevicesMount(std::string_view mountinfo) {
  std::istringstream lines{std::string(mountinfo)};
  for (std::string line; std::getline(lines, line);) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream before(line.substr(0, dash));
    std::istringstream after(line.substr(dash + 3));
    std::string id, parent, dev, root, mount_point, fstype, source, options;
    before >> id >> parent >> dev >> root >> mount_point;
    after >> fstype >> source >> options;
    if (fstype != "cgroup") continue;
    std::istringstream opts(options);
    for (std::string opt; std::getline(opts, opt, ',');) {
      if (opt == "devices") return mount_point;
    }
  }
  return std::nullopt;
}

Result<GpuFence> GpuFence::Open(const std::string& name, std::vector<uint32_t> gpus,
                                const std::string& mount) {
  std::string root = mount;
  if (root.empty()) {
    std::ifstream in("/proc/self/mountinfo");
    std::stringstream text;
    text << in.rdbuf();
    std::optional<std::string> found = ParseDevicesMount(text.str());
    if (!found) return Unavailable("no cgroup v1 devices controller is mounted");
    root = *found;
  }
  const std::string slice = root + "/gantry.slice";
  GANTRY_RETURN_IF_ERROR(MakeDir(slice));
  const std::string base = slice + "/" + name;
  GANTRY_RETURN_IF_ERROR(MakeDir(base));
  if (access((base + "/devices.deny").c_str(), W_OK) != 0) {
    return Unavailable(base + "/devices.deny: " + strerror(errno));
  }
  return GpuFence(base, std::move(gpus));
}

std::string GpuFence::JobPath(uint32_t job_id) const {
  return base_ + "/job_" + std::to_string(job_id);
}

Result<std::string> GpuFence::CreateJob(uint32_t job_id,
                                        const std::vector<uint32_t>& allowed) const {
  const std::string path = JobPath(job_id);
  GANTRY_RETURN_IF_ERROR(MakeDir(path));
  for (uint32_t gpu : gpus_) {
    if (std::find(allowed.begin(), allowed.end(), gpu) != allowed.end()) continue;
    std::ofstream deny(path + "/devices.deny");
    deny << "c " << kNvidiaMajor << ":" << gpu << " rwm\n";
    deny.flush();
    if (!deny) return Unavailable(path + "/devices.deny: cannot deny GPU " + std::to_string(gpu));
  }
  return path;
}

void GpuFence::RemoveJob(uint32_t job_id) const { rmdir(JobPath(job_id).c_str()); }

}  // namespace gantry::agent
