// Helpers for the agent's tests only (not part of the library's API): a temporary directory, a
// fixed clock, a report sink that records what it gets, and jobs to run.
#ifndef GANTRY_AGENT_TEST_SUPPORT_H_
#define GANTRY_AGENT_TEST_SUPPORT_H_

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "agent/cgroup.h"
#include "agent/job_manager.h"
#include "agent/lease_file.h"
#include "base/time.h"
#include "gtest/gtest.h"

namespace gantry::agent::testing {

// Long enough for a loaded machine; the tests never wait this long when things work.
inline constexpr std::chrono::seconds kWait(60);

// A directory under /tmp, mode 0755 (job users must reach the spool), removed at the end.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/gantry-agent-test-XXXXXX";
    const char* made = mkdtemp(pattern);
    path_ = made ? made : "/tmp";
    chmod(path_.c_str(), 0755);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class FixedClock : public Clock {
 public:
  UnixTime Now() const override { return 1764675787; }  // 2025-12-02T11:43:07Z
};

// Records reports; tests wait for the one they expect.
class RecordingSink : public ReportSink {
 public:
  void Report(gantry::v1::JobReport report) override {
    std::lock_guard<std::mutex> lock(mu_);
    reports_.push_back(std::move(report));
    cv_.notify_all();
  }
  // The first report of `kind` for `job_id`, waiting for it.
  std::optional<gantry::v1::JobReport> WaitFor(uint32_t job_id, gantry::v1::JobReport::Kind kind) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<gantry::v1::JobReport> found;
    cv_.wait_for(lock, kWait, [&] {
      for (const auto& r : reports_) {
        if (r.job_id() == job_id && r.kind() == kind) {
          found = r;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::vector<gantry::v1::JobReport> reports() {
    std::lock_guard<std::mutex> lock(mu_);
    return reports_;
  }
  // The kinds reported for a job, in order.
  std::vector<gantry::v1::JobReport::Kind> KindsFor(uint32_t job_id) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<gantry::v1::JobReport::Kind> kinds;
    for (const auto& r : reports_) {
      if (r.job_id() == job_id) kinds.push_back(r.kind());
    }
    return kinds;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<gantry::v1::JobReport> reports_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void WriteExecutable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  chmod(path.c_str(), 0755);
}

// Polls `done` until it holds or kWait passes (for effects outside the agent, e.g. a process
// of a killed job disappearing).
template <typename F>
bool Eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// A one-node job on `node` for the current user, running in `work_dir`.
inline gantry::v1::JobContext MakeJob(uint32_t job_id, const std::string& node,
                                      const std::string& work_dir, uint64_t epoch = 1) {
  gantry::v1::JobContext context;
  gantry::v1::Job* job = context.mutable_job();
  job->set_job_id(job_id);
  job->add_nodes(node);
  job->set_num_cpus(2);
  job->set_partition("batch");
  job->set_user_id(geteuid());
  job->set_group_id(getegid());
  if (const passwd* pw = getpwuid(geteuid())) job->set_user_name(pw->pw_name);
  job->mutable_request()->set_name("test-job");
  job->mutable_request()->set_work_dir(work_dir);
  context.set_epoch(epoch);
  return context;
}

inline gantry::v1::JobPayload MakePayload(const std::string& script) {
  gantry::v1::JobPayload payload;
  payload.set_script(script);
  payload.add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
  return payload;
}

// Whether this machine lets the tests create job cgroups (root and a writable cgroup2 tree).
inline bool CgroupsUsable() {
  std::optional<std::string> root = FindCgroup2Mount();
  if (!root) return false;
  Result<CgroupTree> tree = CgroupTree::Open(*root, "gantry-test-probe");
  if (!tree.ok()) return false;
  rmdir(tree->base().c_str());
  return true;
}

inline bool ProcessGone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() &&
         (text[close + 2] == 'Z' || text[close + 2] == 'X');
}

// A lease file whose deadline passed `ago_ms` ago, held by `agent` (pid and start ticks).
inline std::string WriteLease(const TempDir& tmp, int64_t ago_ms, pid_t agent, uint64_t ticks) {
  const std::string path = tmp / "lease";
  Result<LeaseFile> file = LeaseFile::Open(path);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE(file->Write(LeaseRecord{MonotonicNowMs() - ago_ms, agent, ticks}).ok());
  return path;
}

// A pid that named a process which has ended.
inline pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace gantry::agent::testing

#endif  // GANTRY_AGENT_TEST_SUPPORT_H_
