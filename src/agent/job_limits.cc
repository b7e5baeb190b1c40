#include "agent/job_limits.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "agent/cgroup.h"
#include "sys/files.h"

namespace gantry::agent {
namespace {

constexpr const char* kControllers[] = {"memory", "cpu", "pids", "cpuset"};
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

// The file's text without its trailing newline; empty when unreadable.
std::string ReadFile(const std::string& path) {
  Result<std::string> text = sys::ReadText(path);
  if (!text.ok()) return "";
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return *text;
}

// A v1 cpuset directory takes no task until it has CPUs and memory nodes: its parent's.
bool InheritCpuset(const std::string& dir) {
  for (const char* file : {"/cpuset.cpus", "/cpuset.mems"}) {
    if (!ReadFile(dir + file).empty()) continue;
    if (!WriteFile(dir + file, ReadFile(Parent(dir) + file)).ok()) return false;
  }
  return true;
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

std::optional<std::vector<uint32_t>> ParseCpuList(std::string_view text) {
  std::vector<uint32_t> cpus;
  if (text.empty()) return cpus;
  constexpr uint32_t kMaxCpu = 1 << 16;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    const size_t dash = item.find('-');
    uint32_t first = 0;
    uint32_t last = 0;
    auto number = [](std::string_view digits, uint32_t* out) {
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
      return !digits.empty() && ec == std::errc() && ptr == digits.data() + digits.size();
    };
    if (!number(item.substr(0, dash), &first) ||
        !number(dash == std::string_view::npos ? item : item.substr(dash + 1), &last) ||
        last < first || last >= kMaxCpu) {
      return std::nullopt;
    }
    for (uint32_t cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    pos = end + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<uint32_t>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<uint32_t> PickCpus(const std::vector<uint32_t>& node_cpus,
                               const std::vector<uint32_t>& used, uint32_t count) {
  if (count == 0 || count >= node_cpus.size()) return node_cpus;
  std::vector<uint32_t> picked;
  for (uint32_t cpu : node_cpus) {
    if (picked.size() == count) break;
    if (std::find(used.begin(), used.end(), cpu) == used.end()) picked.push_back(cpu);
  }
  return picked.size() == count ? picked : node_cpus;
}

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
        (mkdir(base.c_str(), 0755) == 0 || errno == EEXIST) &&
        (std::string_view(c) != "cpuset" || (InheritCpuset(slice) && InheritCpuset(base)))) {
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
    } else if (c.name == "cpuset") {
      GANTRY_RETURN_IF_ERROR(PinCpus(c, dir, v1 ? c.base : Parent(dir), limits.cpus));
    }
  }
  return join;
}

Status JobLimiter::PinCpus(const Controller& c, const std::string& dir, const std::string& node_dir,
                           uint32_t count) const {
  const bool v1 = !c.base.empty();
  const std::string effective =
      ReadFile(node_dir + (v1 ? "/cpuset.effective_cpus" : "/cpuset.cpus.effective"));
  const std::optional<std::vector<uint32_t>> node = ParseCpuList(effective);
  if (!node || node->empty()) {
    return Unavailable(node_dir + ": no CPUs in its cpuset (\"" + effective + "\")");
  }
  // One choice at a time: two jobs starting together must not take the same CPUs.
  static std::mutex choosing;
  std::lock_guard<std::mutex> lock(choosing);
  std::vector<uint32_t> used;
  const std::string self = dir.substr(dir.rfind('/') + 1);
  if (DIR* jobs = opendir(node_dir.c_str()); jobs != nullptr) {
    while (const dirent* entry = readdir(jobs)) {
      const std::string name = entry->d_name;
      if (!name.starts_with("job_") || name == self) continue;
      if (auto cpus = ParseCpuList(ReadFile(node_dir + "/" + name + "/cpuset.cpus"))) {
        used.insert(used.end(), cpus->begin(), cpus->end());
      }
    }
    closedir(jobs);
  }
  if (v1)
    GANTRY_RETURN_IF_ERROR(WriteFile(dir + "/cpuset.mems", ReadFile(node_dir + "/cpuset.mems")));
  return WriteFile(dir + "/cpuset.cpus", FormatCpuList(PickCpus(*node, used, count)));
}

std::vector<uint32_t> JobLimiter::JobCpus(uint32_t job_id, const std::string& v2_job_dir) const {
  for (const Controller& c : controllers_) {
    if (c.name != "cpuset") continue;
    const std::string dir = JobDir(c, job_id, v2_job_dir);
    if (dir.empty()) return {};
    return ParseCpuList(ReadFile(dir + "/cpuset.cpus")).value_or(std::vector<uint32_t>{});
  }
  return {};
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
