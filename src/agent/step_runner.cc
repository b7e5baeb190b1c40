#include "agent/step_runner.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "proc/proc.h"
#include "proc/usage_sampler.h"
#include "sys/random_bytes.h"
#include "wire/frame.h"
#include "wire/step_auth.h"

namespace gantry::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kDrainAfterExit = std::chrono::seconds(2);
constexpr size_t kReadBytes = size_t{64} * 1024;
constexpr uint32_t kMaxFrameBytes = 16u << 20;

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// A TCP connection to host:port, or -1 (errno-style message in *error).
int Connect(const std::string& host, uint32_t port, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const std::string where = "connect " + host + ":" + service + ": ";
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    *error = "resolve " + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      *error = where + strerror(errno);
      CloseFd(&fd);
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    const int ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(kConnectTimeout).count());
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (poll(&p, 1, ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 ||
        soerr != 0) {
      *error = where + (soerr != 0 ? strerror(soerr) : "timed out");
      CloseFd(&fd);
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

int PidFd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

v1::JobUsage UsageOf(const rusage& used, const proc::UsageSamples& sampled) {
  v1::JobUsage usage;
  usage.set_user_cpu_usec(int64_t{used.ru_utime.tv_sec} * 1000000 + used.ru_utime.tv_usec);
  usage.set_system_cpu_usec(int64_t{used.ru_stime.tv_sec} * 1000000 + used.ru_stime.tv_usec);
  usage.set_max_rss_kib(std::max<int64_t>(used.ru_maxrss, sampled.max_rss_kib));  // Linux: KiB
  if (sampled.samples > 0) {
    usage.set_max_vmsize_kib(static_cast<int64_t>(sampled.max_vmsize_kib));
    usage.set_ave_rss_kib(static_cast<int64_t>(sampled.ave_rss_kib()));
    usage.set_ave_vmsize_kib(static_cast<int64_t>(sampled.ave_vmsize_kib()));
    usage.set_disk_read_bytes(static_cast<int64_t>(sampled.read_bytes));
    usage.set_disk_write_bytes(static_cast<int64_t>(sampled.write_bytes));
    usage.set_sampled(true);
  }
  return usage;
}

struct Task {
  uint32_t rank = 0;
  pid_t pid = 0;  // 0: never started
  int pidfd = -1;
  int in = -1;   // our end of its stdin
  int out = -1;  // our ends of its stdout and stderr
  int err = -1;
  std::unique_ptr<proc::UsageSampler> sampler;
  proc::UsageSamples samples;
  bool reaped = false;
  bool reported = false;
  int status = 0;
  rusage used{};
  Clock::time_point ended;
};

class Stream {
 public:
  explicit Stream(int fd) : fd_(fd) {}
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  void Send(v1::StepIoKind kind, const v1::StepIo& io) {
    if (fd_ < 0) return;
    if (!wire::WriteFrame(fd_, static_cast<uint8_t>(kind), io.SerializeAsString()).ok()) Close();
  }
  void Close() { CloseFd(&fd_); }

 private:
  int fd_;
};

// CHALLENGE, HELLO, WELCOME (wire/step_auth.h): each side proves it holds the step's key.
Status Handshake(const StepPlan& plan, Stream* srun) {
  auto read = [&](v1::StepIoKind kind, v1::StepIo* io) -> Status {
    Result<wire::Frame> frame = wire::ReadFrame(srun->fd(), 4096, std::chrono::seconds(10));
    if (!frame.ok()) return frame.status();
    if (frame->tag != kind || !io->ParseFromString(frame->body)) {
      return PermissionDenied("unexpected frame " + std::to_string(frame->tag) + " (expected " +
                              std::to_string(kind) + ")");
    }
    return Status::Ok();
  };
  v1::StepIo challenge;
  GANTRY_RETURN_IF_ERROR(read(v1::STEP_IO_CHALLENGE, &challenge));
  GANTRY_ASSIGN_OR_RETURN(std::string nonce, sys::RandomBytes(wire::kStepNonceBytes));
  v1::StepIo hello;
  hello.set_node(plan.node);
  hello.set_nonce(nonce);
  hello.set_proof(wire::StepProof(plan.io_key, "agent", challenge.nonce(), nonce, plan.node));
  for (const StepTask& t : plan.tasks) hello.add_task_ids(t.rank);
  srun->Send(v1::STEP_IO_HELLO, hello);
  v1::StepIo welcome;
  GANTRY_RETURN_IF_ERROR(read(v1::STEP_IO_WELCOME, &welcome));
  if (!wire::SameProof(welcome.proof(),
                       wire::StepProof(plan.io_key, "srun", challenge.nonce(), nonce, plan.node))) {
    return PermissionDenied("it does not hold the step's key");
  }
  return Status::Ok();
}

}  // namespace

void StepControl::Signal(int sig) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sig == SIGSTOP) stopped_ = true;
  if (sig == SIGCONT) stopped_ = false;
  for (pid_t pgid : tasks_) kill(-pgid, sig);
}

void StepControl::Terminate(std::chrono::milliseconds kill_wait) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!kill_deadline_) kill_deadline_ = Clock::now() + kill_wait;
  stopped_ = false;
  for (pid_t pgid : tasks_) {
    kill(-pgid, SIGCONT);
    kill(-pgid, SIGTERM);
  }
}

bool StepControl::AddTask(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(pid);
  if (stopped_) kill(-pid, SIGSTOP);
  return !kill_deadline_.has_value();
}

void StepControl::RemoveTask(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase(tasks_, pid);
}

std::optional<std::chrono::steady_clock::time_point> StepControl::KillDeadline() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kill_deadline_;
}

void StepControl::KillAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (pid_t pgid : tasks_) kill(-pgid, SIGKILL);
}

void RunStep(const StepPlan& plan, StepControl* control) {
  std::string error;
  Stream srun(Connect(plan.io_host, plan.io_port, &error));
  if (!srun.ok()) {
    plan.log(plan.what + ": cannot reach srun: " + error + ": its tasks do not start");
    return;
  }
  if (Status proven = Handshake(plan, &srun); !proven.ok()) {
    plan.log(plan.what + ": srun at " + plan.io_host + ":" + std::to_string(plan.io_port) + ": " +
             proven.message() + ": its tasks do not start");
    return;
  }

  std::vector<Task> tasks(plan.tasks.size());
  std::vector<Spawned> started;
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    Task& task = tasks[i];
    task.rank = plan.tasks[i].rank;
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    Result<Spawned> spawned = Unavailable("pipe2: " + std::string(strerror(EMFILE)));
    if (pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0) {
      SpawnSpec spec = plan.tasks[i].spawn;
      spec.stdin_fd = in[0];
      spec.stdout_fd = out[1];
      spec.stderr_fd = err[1];
      spawned = control->KillDeadline() ? FailedPrecondition("the job is ending") : Spawn(spec);
    }
    CloseFd(&in[0]);
    CloseFd(&out[1]);
    CloseFd(&err[1]);
    task.in = in[1];
    task.out = out[0];
    task.err = err[0];
    if (!spawned.ok()) {
      CloseFd(&task.in);
      CloseFd(&task.out);
      CloseFd(&task.err);
      task.reaped = true;
      task.reported = true;
      task.status = 2 << 8;
      v1::StepIo exit;
      exit.set_task_id(task.rank);
      exit.set_wait_status(task.status);
      exit.set_error(spawned.status().message());
      srun.Send(v1::STEP_IO_EXIT, exit);
      plan.log(plan.what + ": task " + std::to_string(task.rank) +
               " did not start: " + spawned.status().message());
      continue;
    }
    task.pid = spawned->pid;
    task.pidfd = PidFd(task.pid);
    started.push_back(*spawned);
    if (plan.sample_period.count() > 0) {
      const pid_t pid = task.pid;
      task.sampler = std::make_unique<proc::UsageSampler>([pid] { return proc::ProcessTree(pid); },
                                                          "", plan.sample_period);
    }
    if (!control->AddTask(task.pid)) kill(-task.pid, SIGKILL);  // the job ended meanwhile
    fcntl(task.in, F_SETFL, fcntl(task.in, F_GETFL) | O_NONBLOCK);
  }
  if (plan.on_tasks_started && !started.empty()) plan.on_tasks_started(started);

  auto reap = [&](Task& task) {
    if (task.reaped || task.pid == 0) return;
    const pid_t got = wait4(task.pid, &task.status, WNOHANG, &task.used);
    if (got == task.pid || (got < 0 && errno == ECHILD)) {
      task.reaped = true;
      task.ended = Clock::now();
      if (task.sampler) task.samples = task.sampler->Stop();
      CloseFd(&task.pidfd);
      control->RemoveTask(task.pid);
    }
  };
  auto pump = [&](int* fd, uint32_t rank, v1::StepIoKind kind) {
    char buf[kReadBytes];
    const ssize_t n = read(*fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      CloseFd(fd);
      return;
    }
    v1::StepIo io;
    io.set_task_id(rank);
    io.set_data(buf, static_cast<size_t>(n));
    srun.Send(kind, io);
  };
  bool killed = false;
  auto kill_all = [&](const std::string& why) {
    if (killed) return;
    killed = true;
    plan.log(plan.what + ": " + why + ": killing its tasks");
    control->KillAll();
  };

  for (;;) {
    bool all_done = true;
    const Clock::time_point now = Clock::now();
    for (Task& task : tasks) {
      if (task.reported) continue;
      reap(task);
      if (task.reaped && ((task.out < 0 && task.err < 0) || now - task.ended > kDrainAfterExit)) {
        CloseFd(&task.out);
        CloseFd(&task.err);
        CloseFd(&task.in);
        v1::StepIo exit;
        exit.set_task_id(task.rank);
        exit.set_wait_status(task.status);
        *exit.mutable_usage() = UsageOf(task.used, task.samples);
        srun.Send(v1::STEP_IO_EXIT, exit);
        task.reported = true;
        continue;
      }
      all_done = false;
    }
    if (all_done) break;
    if (const auto deadline = control->KillDeadline(); deadline && now >= *deadline) {
      kill_all("the job's kill wait is over");
    }

    std::vector<pollfd> fds;
    struct Source {
      Task* task;
      int which;  // 0 out, 1 err, 2 pidfd, 3 srun
    };
    std::vector<Source> sources;
    bool have_pidfds = true;
    for (Task& task : tasks) {
      if (task.reported) continue;
      if (task.out >= 0) {
        fds.push_back({task.out, POLLIN, 0});
        sources.push_back({&task, 0});
      }
      if (task.err >= 0) {
        fds.push_back({task.err, POLLIN, 0});
        sources.push_back({&task, 1});
      }
      if (!task.reaped) {
        if (task.pidfd >= 0) {
          fds.push_back({task.pidfd, POLLIN, 0});
          sources.push_back({&task, 2});
        } else {
          have_pidfds = false;
        }
      }
    }
    if (srun.ok()) {
      fds.push_back({srun.fd(), POLLIN, 0});
      sources.push_back({nullptr, 3});
    }
    // Without pidfds, or with a kill deadline or output draining, look again soon.
    const int timeout_ms = have_pidfds ? 200 : 20;
    const int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) break;
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Source& s = sources[i];
      if (s.which == 0) pump(&s.task->out, s.task->rank, v1::STEP_IO_STDOUT);
      if (s.which == 1) pump(&s.task->err, s.task->rank, v1::STEP_IO_STDERR);
      if (s.which == 2) reap(*s.task);
      if (s.which != 3) continue;
      // Readable: srun's frame has begun; one that stops in its middle ends the step (10 s).
      Result<wire::Frame> frame =
          wire::ReadFrame(srun.fd(), kMaxFrameBytes, std::chrono::seconds(10));
      v1::StepIo io;
      if (!frame.ok() || !io.ParseFromString(frame->body)) {
        srun.Close();
        kill_all("srun is gone");
        continue;
      }
      if (frame->tag == v1::STEP_IO_SIGNAL && io.signal() > 0 && io.signal() < NSIG) {
        control->Signal(io.signal());
      } else if (frame->tag == v1::STEP_IO_STDIN) {
        for (Task& task : tasks) {
          if (task.in < 0) continue;
          const std::string& data = io.data();
          size_t off = 0;
          while (off < data.size()) {
            const ssize_t n = write(task.in, data.data() + off, data.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) {
              pollfd w{task.in, POLLOUT, 0};
              if (poll(&w, 1, 1000) == 1) continue;
            }
            if (n <= 0) break;  // the task does not read: the rest is dropped for it
            off += static_cast<size_t>(n);
          }
          if (io.eof() || off < data.size()) CloseFd(&task.in);
        }
      }
    }
  }
  for (Task& task : tasks) {
    CloseFd(&task.in);
    CloseFd(&task.out);
    CloseFd(&task.err);
    CloseFd(&task.pidfd);
  }
  srun.Close();
}

}  // namespace gantry::agent
