#include "health/checks.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <utility>

#include "sys/child_process.h"
#include "sys/files.h"
#include "sys/mountinfo.h"
#include "sys/nvidia_devices.h"
#include "text/ascii.h"

namespace gantry::health {
namespace {

using SteadyClock = std::chrono::steady_clock;

v1::HealthCheck Outcome(std::string name, bool ok, std::string message) {
  v1::HealthCheck check;
  check.set_name(std::move(name));
  check.set_ok(ok);
  check.set_message(std::move(message));
  return check;
}

std::string Errno(int err) { return std::strerror(err); }

std::string Names(const std::vector<uint32_t>& minors) {
  std::string out;
  for (uint32_t m : minors) out += (out.empty() ? "nvidia" : ", nvidia") + std::to_string(m);
  return out;
}

// The executable `name` in one of `path`'s directories; "" when none.
std::string FindTool(const std::string& path, const std::string& name) {
  if (path.empty()) return "";
  for (std::string_view dir : text::Split(path, ':')) {
    if (dir.empty()) continue;
    std::string candidate = std::string(dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

struct Run {
  bool started = false;
  std::string error;  // why it did not start
  bool timed_out = false;
  int status = 0;  // raw wait status
  std::string output;
};

// Runs argv[0] (a path) as this process's user, in its own process group, with `env`, stdin
// /dev/null, stdout and stderr kept in memory; kills its group after `timeout`.
Run RunTool(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            std::chrono::milliseconds timeout) {
  Run run;
  const int out = static_cast<int>(syscall(SYS_memfd_create, "health-output", MFD_CLOEXEC));
  if (out < 0) {
    run.error = "memfd_create: " + Errno(errno);
    return run;
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    run.error = "fork: " + Errno(errno);
    close(out);
    return run;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(args[0], args.data(), envp.data());
    // Only async-signal-safe calls between fork and exec (the agent has other threads).
    constexpr char kFailed[] = "execve failed\n";
    (void)!write(2, kFailed, sizeof(kFailed) - 1);
    _exit(127);
  }
  run.started = true;
  setpgid(pid, pid);
  run.timed_out = !sys::WaitChildExit(pid, timeout);
  kill(-pid, SIGKILL);  // what it left in its group goes with it
  run.status = sys::ReapChild(pid);
  char buffer[4096];
  ssize_t n = 0;
  off_t offset = 0;
  while ((n = pread(out, buffer, sizeof(buffer), offset)) > 0 && run.output.size() < 65536) {
    run.output.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
  close(out);
  return run;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

// One filesystem's free space: "" when it has room, else what is wrong.
std::string SpaceProblem(const std::string& what, const std::string& path, std::string* found) {
  struct statvfs st {};
  if (statvfs(path.c_str(), &st) != 0) return what + " " + path + ": " + Errno(errno);
  const uint64_t unit = st.f_frsize != 0 ? st.f_frsize : st.f_bsize;
  const uint64_t avail = uint64_t{st.f_bavail} * unit;
  const uint64_t total = uint64_t{st.f_blocks} * unit;
  const std::string free = Bytes(avail) + " free of " + Bytes(total);
  if (IsFull(avail, total, st.f_favail, st.f_files)) {
    return what + " " + path + ": " + (st.f_files > 0 && st.f_favail == 0 ? "no inode free" : free);
  }
  *found += (found->empty() ? "" : ", ") + what + " " + free;
  return "";
}

// What nvidia-smi's exit statuses mean (nvidia-smi(1)); "" for the others.
std::string_view NvidiaSmiMeaning(int status) {
  switch (status) {
    case 4:
      return "permission denied";
    case 8:
      return "a power cable is not attached";
    case 9:
      return "the NVIDIA driver is not loaded";
    case 10:
      return "an interrupt issue with a GPU";
    case 12:
      return "the NVML library could not be loaded";
    case 14:
      return "the infoROM is corrupted";
    case 15:
      return "a GPU has fallen off the bus";
    default:
      return "";
  }
}

bool IsNfs(const std::string& fs_type) { return fs_type == "nfs" || fs_type == "nfs4"; }

}  // namespace

bool IsFull(uint64_t avail, uint64_t total, uint64_t free_inodes, uint64_t inodes) {
  if (inodes > 0 && free_inodes == 0) return true;
  const uint64_t floor = std::min<uint64_t>(total / 100, uint64_t{100} << 20);
  return avail < floor || (total > 0 && avail == 0);
}

std::string Bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

std::optional<MemInfo> ParseMeminfo(std::string_view text) {
  std::optional<uint64_t> total;
  std::optional<uint64_t> available;
  for (std::string_view line : text::Split(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    if (key != "MemTotal" && key != "MemAvailable") continue;
    uint64_t kib = 0;
    bool digits = false;
    for (char c : line.substr(colon + 1)) {
      if (c >= '0' && c <= '9') {
        kib = kib * 10 + static_cast<uint64_t>(c - '0');
        digits = true;
      } else if (digits) {
        break;
      }
    }
    if (!digits) continue;
    (key == "MemTotal" ? total : available) = kib;
  }
  if (!total || !available) return std::nullopt;
  return MemInfo{*total, *available};
}

std::string FirstLine(std::string_view output) {
  for (std::string_view line : text::Split(output, '\n')) {
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) continue;
    const size_t end = line.find_last_not_of(" \t\r");
    return std::string(line.substr(start, end - start + 1));
  }
  return "";
}

v1::HealthCheck CheckGpus(HealthHost& host, uint32_t declared) {
  const std::vector<uint32_t> minors = sys::FindNvidiaGpus(host.dev_dir);
  const std::set<uint32_t> present(minors.begin(), minors.end());
  std::set<uint32_t> expected;
  if (host.emulated) {
    if (!host.gpu_baseline) host.gpu_baseline = present;
    expected = *host.gpu_baseline;
    if (expected.empty()) {
      return Outcome("gpu", true,
                     std::to_string(declared) + " GPUs declared, emulated (no NVIDIA device in " +
                         host.dev_dir + " to watch)");
    }
  } else {
    for (uint32_t i = 0; i < declared; ++i) expected.insert(i);
  }
  std::vector<uint32_t> missing;
  for (uint32_t m : expected) {
    if (!present.contains(m)) missing.push_back(m);
  }
  const std::string count = std::to_string(expected.size() - missing.size()) + " of " +
                            std::to_string(expected.size()) + " GPUs present";
  if (!missing.empty()) {
    return Outcome("gpu", false,
                   count + " (" + Names(missing) + " missing in " + host.dev_dir + ")");
  }
  std::string found = count;
  if (host.emulated) return Outcome("gpu", true, found + " (emulated: those found at the start)");
  // The driver's own view, where its tools are installed.
  if (const std::string smi = FindTool(host.tool_path, "nvidia-smi"); !smi.empty()) {
    const Run run = RunTool({smi, "-L"}, {"PATH=/usr/bin:/bin"}, std::chrono::seconds(30));
    size_t listed = 0;
    for (std::string_view line : text::Split(run.output, '\n')) listed += line.starts_with("GPU ");
    if (!run.started || run.timed_out || run.status != 0) {
      const std::string line = FirstLine(run.output);
      const std::string_view meaning =
          WIFEXITED(run.status) ? NvidiaSmiMeaning(WEXITSTATUS(run.status)) : "";
      return Outcome(
          "gpu", false,
          "nvidia-smi -L: " +
              (run.timed_out ? std::string("timed out after 30 s") : DescribeStatus(run.status)) +
              (meaning.empty() ? "" : " (" + std::string(meaning) + ")") +
              (line.empty() ? "" : ": " + line));
    }
    if (listed < declared) {
      return Outcome("gpu", false,
                     "nvidia-smi lists " + std::to_string(listed) + " of " +
                         std::to_string(declared) + " GPUs");
    }
    found += ", nvidia-smi lists " + std::to_string(listed);
  }
  if (const std::string dcgmi = FindTool(host.tool_path, "dcgmi"); !dcgmi.empty()) {
    const Run run =
        RunTool({dcgmi, "diag", "-r", "1"}, {"PATH=/usr/bin:/bin"}, std::chrono::seconds(120));
    if (!run.started || run.timed_out || run.status != 0) {
      return Outcome("gpu", false,
                     "dcgmi diag -r 1: " + (run.timed_out ? std::string("timed out after 120 s")
                                                          : DescribeStatus(run.status)));
    }
    found += ", dcgmi diag -r 1 passed";
  }
  return Outcome("gpu", true, found);
}

v1::HealthCheck CheckDisk(const HealthHost& host, const std::string& tmp_fs) {
  std::string found;
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"spool", host.spool},
                                   {"TmpFS", tmp_fs.empty() ? "/tmp" : tmp_fs}}) {
    if (path.empty()) continue;
    if (std::string problem = SpaceProblem(what, path, &found); !problem.empty()) {
      return Outcome("disk", false, problem);
    }
  }
  return Outcome("disk", true, found);
}

v1::HealthCheck CheckMemory(const HealthHost& host, uint64_t real_memory_mb) {
  const Result<std::string> meminfo = sys::ReadText(host.meminfo);
  const std::optional<MemInfo> info = ParseMeminfo(meminfo.ok() ? *meminfo : "");
  if (!info) return Outcome("memory", false, host.meminfo + ": no MemTotal and MemAvailable");
  const uint64_t total_mb = info->total_kib >> 10;
  const uint64_t available_mb = info->available_kib >> 10;
  if (!host.emulated && real_memory_mb > total_mb) {
    // Slurm's words when a node registers with less memory than configured.
    return Outcome("memory", false,
                   "Low RealMemory (reported:" + std::to_string(total_mb) +
                       " < 100.00% of configured:" + std::to_string(real_memory_mb) + ")");
  }
  const std::string found =
      Bytes(info->available_kib << 10) + " available of " + Bytes(info->total_kib << 10);
  if (available_mb < std::min<uint64_t>(total_mb / 100, 64)) {
    return Outcome("memory", false, "only " + found);
  }
  return Outcome("memory", true, found);
}

v1::HealthCheck CheckHome(const HealthHost& host, const std::string& storage) {
  char resolved[PATH_MAX];
  if (realpath(host.home.c_str(), resolved) == nullptr) {
    return Outcome("home", false, host.home + ": " + Errno(errno));
  }
  struct stat st {};
  if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Outcome("home", false, host.home + ": not a directory");
  }
  std::string found = host.home;
  if (host.emulated) {
    // A local cluster's folder stands in for whatever storage the spec declares.
    if (!storage.starts_with("/")) found += " (standing in for " + storage + ")";
  } else if (!storage.starts_with("/")) {
    // A Filestore instance or an NFS export: the home must be that NFS mount.
    const std::optional<sys::Mount> mount =
        sys::MountOf(sys::ParseMountInfo(sys::ReadMountInfo(host.mountinfo)), resolved);
    if (!mount || !IsNfs(mount->fs_type)) {
      return Outcome("home", false,
                     host.home + " is not an NFS mount (" +
                         (mount ? mount->fs_type + " " + mount->source + " on " + mount->mount_point
                                : std::string("no mount found")) +
                         "); home_directory_storage is " + storage);
    }
    const bool export_named = storage.find(":/") != std::string::npos;
    if (export_named && mount->source != storage) {
      return Outcome("home", false,
                     host.home + " is " + mount->source + ", not " + storage + " as declared");
    }
    found += " is " + mount->source;
  }
  // Writable: a file made and removed (as root, as the prolog would).
  const std::string probe =
      std::string(resolved) + "/.gantry-health-" + host.node + "-" + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Outcome("home", false, host.home + " is not writable: " + Errno(errno));
  close(fd);
  unlink(probe.c_str());
  return Outcome("home", true, found + ", writable");
}

v1::HealthCheck CheckProgram(const HealthHost& host, const std::string& program) {
  const std::string name = "HealthCheckProgram " + program;
  struct stat st {};
  if (stat(program.c_str(), &st) != 0) return Outcome("program", false, name + ": " + Errno(errno));
  if (!S_ISREG(st.st_mode) || access(program.c_str(), X_OK) != 0) {
    return Outcome("program", false, name + ": not an executable file");
  }
  // As slurmd runs it: as root, with the node's name and a plain PATH.
  const Run run =
      RunTool({program}, {"SLURMD_NODENAME=" + host.node, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"},
              host.program_timeout);
  if (!run.started) return Outcome("program", false, name + ": " + run.error);
  if (run.timed_out) {
    const int64_t ms = host.program_timeout.count();
    return Outcome(
        "program", false,
        name + ": killed after " +
            (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms"));
  }
  const std::string line = FirstLine(run.output);
  if (run.status != 0) {
    return Outcome("program", false,
                   line.empty() ? name + ": " + DescribeStatus(run.status) : line);
  }
  return Outcome("program", true, line.empty() ? "exit status 0" : line);
}

v1::HealthReport RunHealthChecks(HealthHost& host, const v1::HealthSettings& settings) {
  v1::HealthReport report;
  auto timed = [&report](auto check) {
    const SteadyClock::time_point start = SteadyClock::now();
    v1::HealthCheck result = check();
    result.set_duration_ms(
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start).count());
    *report.add_checks() = std::move(result);
  };
  if (settings.gpus() > 0) timed([&] { return CheckGpus(host, settings.gpus()); });
  timed([&] { return CheckDisk(host, settings.tmp_fs()); });
  timed([&] { return CheckMemory(host, settings.real_memory_mb()); });
  if (!settings.home_storage().empty()) {
    timed([&] { return CheckHome(host, settings.home_storage()); });
  }
  if (!settings.program().empty()) timed([&] { return CheckProgram(host, settings.program()); });
  return report;
}

}  // namespace gantry::health
