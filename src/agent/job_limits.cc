#include "agent/job_limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "agent/cgroup.h"
#include "sys/files.h"

namespace gantry::agent {
namespace {

constexpr const char* kControllers[] = {"memory", "cpu", "pids"};
constexpr uint64_t kCpuPeriodUsec = 100000;

std::string Parent(const std::string& path) { return path.substr(0, path.rfind('/')); }

Status WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("open(" + path + "): " + std::strerror(errno));
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  close(fd);
  if (!ok) return Unavailable("write(" + path + ", " + text + "): " + std::strerror(err));
  return Status::Ok();
}

std::string ReadFile(const std::string& path) {
  Result<std::string> text = sys::ReadText(path);
  return text.ok() ? *text : "";
}

bool HasWord(std::string_view list, std::string_view word, char separator) {
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(separator, pos);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(pos, end - pos) == word) return true;
    pos = end + 1;
  }
  return false;
}

// A value of "key N" lines (memory.events, memory.oom_control); 0 when absent.
uint64_t KeyedValue(const std::string& text, std::string_view key) {
  std::istringstream lines(text);
  std::string k;
  uint64_t v = 0;
  while (lines >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

}  // namespace

JobLimits LimitsOf(const v1::Job& job) {
  const uint64_t nodes = std::max<uint64_t>(1, static_cast<uint64_t>(job.nodes_size()));
  JobLimits limits;
  limits.memory_bytes = job.alloc_mem_mb() / nodes * (uint64_t{1} << 20);
  limits.cpus = static_cast<uint32_t>(job.num_cpus() / nodes);
  limits.pids = kJobPidsMax;
  return limits;
}

JobLimiter JobLimiter::Open(const std::string& v2_base, const std::string& name,
                            std::string_view mountinfo) {
  JobLimiter limiter;
  // cgroup v2 first: every controller enabled from the root down to the agent's directory.
  if (!v2_base.empty()) {
    const std::string slice = Parent(v2_base);
    const std::string root = Parent(slice);
    const std::string available = ReadFile(root + "/cgroup.controllers");
    for (const char* c : kControllers) {
      if (!HasWord(available.substr(0, available.find('\n')), c, ' ')) continue;
      const std::string enable = std::string("+") + c;
      if (WriteFile(root + "/cgroup.subtree_control", enable).ok() &&
          WriteFile(slice + "/cgroup.subtree_control", enable).ok() &&
          WriteFile(v2_base + "/cgroup.subtree_control", enable).ok()) {
        limiter.controllers_.push_back({c, ""});
        limiter.v2_ = true;
      }
    }
  }
  // Hybrid hosts: the controllers are v1 hierarchies of their own.
  for (const char* c : kControllers) {
    if (std::any_of(limiter.controllers_.begin(), limiter.controllers_.end(),
                    [&](const Controller& have) { return have.name == c; })) {
      continue;
    }
    const std::optional<std::string> mount = ParseCgroup1Mount(mountinfo, c);
    if (!mount) continue;
    const std::string slice = *mount + "/gantry.slice";
    const std::string base = slice + "/" + name;
    if ((mkdir(slice.c_str(), 0755) == 0 || errno == EEXIST) &&
        (mkdir(base.c_str(), 0755) == 0 || errno == EEXIST)) {
      limiter.controllers_.push_back({c, base});
    }
  }
  return limiter;
}

std::string JobLimiter::Describe() const {
  if (controllers_.empty()) return "none";
  std::string text;
  bool v1 = false;
  for (const Controller& c : controllers_) {
    text += (text.empty() ? "" : ", ") + c.name;
    v1 = v1 || !c.base.empty();
  }
  return text + (v1 ? (v2_ ? " (cgroup v2 and v1)" : " (cgroup v1)") : " (cgroup v2)");
}

std::string JobLimiter::JobDir(const Controller& c, uint32_t job_id,
                               const std::string& v2_job_dir) {
  return c.base.empty() ? v2_job_dir : c.base + "/job_" + std::to_string(job_id);
}

Result<std::vector<std::string>> JobLimiter::Apply(uint32_t job_id, const std::string& v2_job_dir,
                                                   const JobLimits& limits) const {
  std::vector<std::string> join;
  for (const Controller& c : controllers_) {
    const std::string dir = JobDir(c, job_id, v2_job_dir);
    if (dir.empty()) continue;  // v2 controller, but the job has no v2 cgroup
    const bool v1 = !c.base.empty();
    if (v1) {
      if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        return Unavailable("mkdir(" + dir + "): " + std::strerror(errno));
      }
      join.push_back(dir);
    }
    if (c.name == "memory" && limits.memory_bytes > 0) {
      GANTRY_RETURN_IF_ERROR(WriteFile(dir + (v1 ? "/memory.limit_in_bytes" : "/memory.max"),
                                       std::to_string(limits.memory_bytes)));
    } else if (c.name == "cpu" && limits.cpus > 0) {
      const std::string quota = std::to_string(uint64_t{limits.cpus} * kCpuPeriodUsec);
      if (v1) {
        GANTRY_RETURN_IF_ERROR(
            WriteFile(dir + "/cpu.cfs_period_us", std::to_string(kCpuPeriodUsec)));
        GANTRY_RETURN_IF_ERROR(WriteFile(dir + "/cpu.cfs_quota_us", quota));
      } else {
        GANTRY_RETURN_IF_ERROR(
            WriteFile(dir + "/cpu.max", quota + " " + std::to_string(kCpuPeriodUsec)));
      }
    } else if (c.name == "pids" && limits.pids > 0) {
      GANTRY_RETURN_IF_ERROR(WriteFile(dir + "/pids.max", std::to_string(limits.pids)));
    }
  }
  return join;
}

bool JobLimiter::OomKilled(uint32_t job_id, const std::string& v2_job_dir) const {
  for (const Controller& c : controllers_) {
    if (c.name != "memory") continue;
    const std::string dir = JobDir(c, job_id, v2_job_dir);
    if (dir.empty()) return false;
    const std::string file = dir + (c.base.empty() ? "/memory.events" : "/memory.oom_control");
    return KeyedValue(ReadFile(file), "oom_kill") > 0;
  }
  return false;
}

void JobLimiter::Remove(uint32_t job_id) const {
  for (const Controller& c : controllers_) {
    if (!c.base.empty()) rmdir(JobDir(c, job_id, "").c_str());
  }
}

}  // namespace gantry::agent
