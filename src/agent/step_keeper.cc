#include "agent/step_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <iostream>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "agent/handoff.h"
#include "agent/keeper.h"
#include "agent/log.h"
#include "agent/script_runner.h"
#include "proc/proc.h"
#include "sys/child_process.h"
#include "wire/frame.h"

namespace gantry::agent {
namespace {

// A plan is its tasks' environments and arguments: as much as a batch script's spec, per task.
constexpr size_t kMaxPlanBytes = size_t{256} << 20;
// One control line: "terminate 18446744073709551615\n" fits easily, and stays below PIPE_BUF
// so that writes from two agents never interleave.
constexpr size_t kMaxControlLine = 64;

// Applies the control lines in `bytes` to `control`, keeping an unfinished last line in
// `pending` for the next call.
void ApplyControl(std::string_view bytes, std::string* pending, StepControl* control) {
  pending->append(bytes);
  size_t newline;
  while ((newline = pending->find('\n')) != std::string::npos) {
    const std::string line = pending->substr(0, newline);
    pending->erase(0, newline + 1);
    const size_t space = line.find(' ');
    const std::string verb = line.substr(0, space);
    const std::string_view arg =
        space == std::string::npos ? std::string_view() : std::string_view{line}.substr(space + 1);
    int sig = 0;
    int64_t ms = 0;
    if (verb == "signal" && ParseInt(arg, &sig) && sig > 0 && sig < NSIG) {
      control->Signal(sig);
    } else if (verb == "terminate" && ParseInt(arg, &ms) && ms >= 0) {
      control->Terminate(std::chrono::milliseconds(ms));
    } else {
      Log("gantry-stepd: unknown control line \"" + line.substr(0, kMaxControlLine) +
          "\": ignored");
    }
  }
  if (pending->size() > kMaxControlLine) pending->clear();  // no line is that long
}

// Reads `fd` (non-blocking) until it would block, applying what comes to `control`. (The FIFO is
// open for writing here too, so it never reaches EOF.)
void ServeControl(int fd, std::string* pending, StepControl* control) {
  char buffer[256];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    ApplyControl(std::string_view(buffer, static_cast<size_t>(n)), pending, control);
  }
}

// How often gantry-stepd looks at its agent's lease (as gantry-keeper does).
constexpr std::chrono::milliseconds kLeasePoll{500};
// gantry-stepd answers as soon as the step's thread runs: a minute without an answer means it
// hangs.
constexpr std::chrono::milliseconds kReplyWait = std::chrono::minutes(1);
// The tag of a request frame (wire/frame.h): a step's plan. Replies are wire::ReplyFrame's: an
// error names a plan's field or the FIFO.
constexpr uint8_t kStepRequest = 1;
constexpr uint32_t kMaxReplyBytes = 64 << 10;

// The FIFO `control`, opened for reading and writing (so that opening it never blocks and writes
// to it never fail for want of a reader), non-blocking. Errors: Unavailable naming the path.
Result<int> OpenControlFifo(const std::string& control) {
  const int fd = open(control.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Unavailable(control + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    close(fd);
    return Unavailable(control + ": not a FIFO");
  }
  return fd;
}

// Serves the FIFO `fd` (non-blocking) until `stop` (an eventfd) is written.
void ServeControlUntil(int fd, int stop, std::string* pending, StepControl* control) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop, POLLIN, 0}};
  while (true) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) ServeControl(fd, pending, control);
  }
}

// gantry-stepd's running steps. A step's thread notifies while it holds the lock, so that once
// main() has seen the last one end no thread touches this any more.
struct RunningSteps {
  std::mutex mu;
  std::condition_variable ended;
  // Each running step's control and KillWait; `ended_by_lease` once the lease watch ended it.
  // Added by main() before the step's thread starts (so that no step is missed at the end),
  // removed by that thread.
  struct Step {
    StepControl control;
    std::chrono::milliseconds kill_wait{0};
    bool ended_by_lease = false;
  };
  std::list<Step> steps;
};

// Looks at the agent's lease file twice a second (as gantry-keeper does) and ends every step
// still running once the lease has run out and the agent is gone: its node is lost, and the
// controller ends or requeues its jobs. Runs for the life of the process.
void WatchLease(const std::string& path, RunningSteps* running) {
  while (true) {
    std::this_thread::sleep_for(kLeasePoll);
    if (!LeaseFileRunOut(path)) continue;
    std::lock_guard<std::mutex> lock(running->mu);
    for (RunningSteps::Step& step : running->steps) {
      if (step.ended_by_lease) continue;
      step.ended_by_lease = true;
      Log("gantry-stepd: the agent is gone and its lease ran out: ending a step (SIGTERM, SIGKILL "
          "after " +
          std::to_string(step.kill_wait.count()) + " ms)");
      step.control.Terminate(step.kill_wait);
    }
  }
}

// One step, on a thread of gantry-stepd's: runs it with commands from the FIFO `fd` (open,
// non-blocking; closed here), then removes the FIFO, which tells the agent that it has ended,
// and `self` from `running`.
void KeepStep(const StepPlan& plan, int fd, RunningSteps* running,
              std::list<RunningSteps::Step>::iterator self) {
  StepControl& control = self->control;
  std::string pending;
  // What the agent sent before (a suspended job's SIGSTOP) applies before any task starts.
  ServeControl(fd, &pending, &control);
  const int stop = eventfd(0, EFD_CLOEXEC);
  std::thread reader;
  if (stop >= 0) reader = std::thread([&] { ServeControlUntil(fd, stop, &pending, &control); });
  RunStep(plan, &control);
  if (reader.joinable()) {
    const uint64_t one = 1;
    (void)!write(stop, &one, sizeof(one));
    reader.join();
  }
  if (stop >= 0) close(stop);
  unlink(plan.control.c_str());
  close(fd);
  std::lock_guard<std::mutex> lock(running->mu);
  running->steps.erase(self);
  running->ended.notify_all();
}

}  // namespace

std::string EncodeStepPlan(const StepPlan& plan) {
  std::string out;
  PutField(&out, "io_host", plan.io_host);
  PutField(&out, "io_port", std::to_string(plan.io_port));
  PutField(&out, "io_key", plan.io_key);
  PutField(&out, "node", plan.node);
  PutField(&out, "what", plan.what);
  PutField(&out, "sample_ms", std::to_string(plan.sample_period.count()));
  PutField(&out, "kill_wait_ms", std::to_string(plan.kill_wait.count()));
  PutField(&out, "control", plan.control);
  for (const StepTask& task : plan.tasks) {
    PutField(&out, "rank", std::to_string(task.rank));
    PutField(&out, "task", EncodeSpawnSpec(task.spawn));
  }
  return out;
}

Result<StepPlan> DecodeStepPlan(std::string_view bytes) {
  StepPlan plan;
  std::optional<uint32_t> rank;  // the next task's, until its "task" field comes
  int64_t sample_ms = 0;
  int64_t kill_wait_ms = 0;
  auto field = [&](const std::string& name, std::string value) -> Status {
    auto number = [&](auto* out) -> Status {
      if (!ParseInt(value, out)) {
        return InvalidArgument("step plan: " + name + ": not a number: \"" + value + "\"");
      }
      return Status::Ok();
    };
    if (name == "io_host") {
      plan.io_host = std::move(value);
    } else if (name == "io_port") {
      return number(&plan.io_port);
    } else if (name == "io_key") {
      plan.io_key = std::move(value);
    } else if (name == "node") {
      plan.node = std::move(value);
    } else if (name == "what") {
      plan.what = std::move(value);
    } else if (name == "sample_ms") {
      return number(&sample_ms);
    } else if (name == "kill_wait_ms") {
      return number(&kill_wait_ms);
    } else if (name == "control") {
      plan.control = std::move(value);
    } else if (name == "rank") {
      uint32_t r = 0;
      GANTRY_RETURN_IF_ERROR(number(&r));
      rank = r;
    } else if (name == "task") {
      if (!rank) return InvalidArgument("step plan: task without its rank");
      Result<SpawnSpec> spec = DecodeSpawnSpec(value);
      if (!spec.ok()) {
        return InvalidArgument("step plan: task " + std::to_string(*rank) + ": " +
                               spec.status().message());
      }
      plan.tasks.push_back(StepTask{*rank, std::move(*spec)});
      rank.reset();
    } else {
      return InvalidArgument("step plan: unknown field \"" + name + "\"");
    }
    return Status::Ok();
  };
  GANTRY_RETURN_IF_ERROR(ForEachField(bytes, "step plan", field));
  if (rank) return InvalidArgument("step plan: rank " + std::to_string(*rank) + " without a task");
  if (plan.io_host.empty() || plan.io_port == 0) {
    return InvalidArgument("step plan: no srun address (io_host, io_port)");
  }
  if (sample_ms < 0) return InvalidArgument("step plan: sample_ms: negative");
  if (kill_wait_ms < 0) return InvalidArgument("step plan: kill_wait_ms: negative");
  if (plan.control.empty()) return InvalidArgument("step plan: no control FIFO");
  plan.sample_period = std::chrono::milliseconds(sample_ms);
  plan.kill_wait = std::chrono::milliseconds(kill_wait_ms);
  return plan;
}

Result<std::shared_ptr<KeptStep>> KeptStep::Open(const std::string& control, bool create) {
  if (create) {
    unlink(control.c_str());
    if (mkfifo(control.c_str(), 0600) != 0) {
      return Unavailable("mkfifo " + control + ": " + std::strerror(errno));
    }
  }
  GANTRY_ASSIGN_OR_RETURN(const int fd, OpenControlFifo(control));
  return std::shared_ptr<KeptStep>(new KeptStep(fd, control));
}

KeptStep::~KeptStep() { close(fd_); }

void KeptStep::Signal(int sig) { Send("signal " + std::to_string(sig) + "\n"); }

void KeptStep::Terminate(std::chrono::milliseconds kill_wait) {
  Send("terminate " + std::to_string(kill_wait.count()) + "\n");
}

void KeptStep::Send(const std::string& line) {
  if (!WriteAll(fd_, line).ok()) Log(control_ + ": command not sent: " + std::strerror(errno));
}

Status StepServer::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  return server_ ? Status::Ok() : StartLocked();
}

Status StepServer::StartLocked() {
  int request[2];
  int reply[2];
  if (pipe2(request, O_CLOEXEC) != 0) {
    return Unavailable(std::string("pipe2: ") + std::strerror(errno));
  }
  if (pipe2(reply, O_CLOEXEC) != 0) {
    const int err = errno;
    close(request[0]);
    close(request[1]);
    return Unavailable(std::string("pipe2: ") + std::strerror(err));
  }
  SpawnSpec stepd;
  stepd.path = stepd_path_;
  stepd.argv = {stepd_path_};
  if (!lease_file_.empty()) stepd.argv.insert(stepd.argv.end(), {"--lease-file", lease_file_});
  stepd.stdin_fd = request[0];
  stepd.stdout_fd = reply[1];
  stepd.stderr_to_agent = true;
  stepd.keep_oom_score = true;  // as shielded as the agent: it carries the steps' I/O
  Result<Spawned> started = Spawn(stepd);
  close(request[0]);
  close(reply[1]);
  if (!started.ok()) {
    close(request[1]);
    close(reply[0]);
    return Unavailable("cannot start " + stepd_path_ + ": " + started.status().message());
  }
  server_ = Server{*started, request[1], reply[0]};
  return Status::Ok();
}

void StepServer::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  StopLocked();
}

void StepServer::StopLocked() {
  if (std::optional<Spawned> process = ReleaseLocked()) sys::ReapChild(process->pid);
}

std::optional<Spawned> StepServer::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReleaseLocked();
}

std::optional<Spawned> StepServer::ReleaseLocked() {
  if (!server_) return std::nullopt;
  close(server_->request_fd);
  close(server_->reply_fd);
  const Spawned process = server_->process;
  server_.reset();
  return process;
}

pid_t StepServer::pid() const {
  std::lock_guard<std::mutex> lock(mu_);
  return server_ ? server_->process.pid : 0;
}

Result<Spawned> StepServer::Launch(const StepPlan& plan, const std::string& control) {
  StepPlan with_control = plan;
  with_control.control = control;
  const std::string request = EncodeStepPlan(with_control);
  std::lock_guard<std::mutex> lock(mu_);
  Status gone = Status::Ok();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!server_) GANTRY_RETURN_IF_ERROR(StartLocked());
    Status launched = LaunchLocked(request);
    if (launched.ok()) return server_->process;
    if (launched.code() != StatusCode::kUnavailable) return launched;
    gone = launched;
    // It died (or hangs: it is not waited for here): the next try starts another.
    if (!proc::IsDeadOrZombie(server_->process.pid)) kill(server_->process.pid, SIGKILL);
    StopLocked();
  }
  return gone;
}

Status StepServer::LaunchLocked(const std::string& request) {
  const std::string who = stepd_path_ + " (pid " + std::to_string(server_->process.pid) + ")";
  // A gantry-stepd that died leaves a pipe without a reader: EPIPE, and no SIGPIPE for the agent.
  sigset_t pipe_signal;
  sigset_t old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  Status sent = wire::WriteFrame(server_->request_fd, kStepRequest, request);
  if (!sent.ok()) {
    const timespec now{};
    while (sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!sent.ok()) return Unavailable(who + ": " + sent.message());
  pollfd answer{server_->reply_fd, POLLIN, 0};
  Result<wire::Frame> reply = Unavailable("no answer");
  if (poll(&answer, 1, static_cast<int>(kReplyWait.count())) == 1) {
    reply = wire::ReadFrame(server_->reply_fd, kMaxReplyBytes, kReplyWait);
  }
  if (!reply.ok()) return Unavailable(who + ": " + reply.status().message());
  const StatusCode code = wire::ReplyCode(reply->tag);
  return code == StatusCode::kOk ? Status::Ok() : Status(code, reply->body);
}

void WaitForKeptStep(const std::string& control, pid_t stepd, uint64_t start_ticks) {
  // Unlinking the FIFO changes its link count (IN_ATTRIB); a pidfd says when gantry-stepd ends.
  const int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (watch >= 0) inotify_add_watch(watch, control.c_str(), IN_ATTRIB | IN_DELETE_SELF);
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, stepd, 0));
  struct stat st {};
  while (lstat(control.c_str(), &st) == 0 && proc::IsStillRunning(stepd, start_ticks)) {
    pollfd fds[2] = {{watch, POLLIN, 0}, {pidfd, POLLIN, 0}};
    // Without either (old kernels, no descriptors left): look again now and then.
    const int wait_ms = watch >= 0 && pidfd >= 0 ? -1 : 200;
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    char events[4096];
    while (watch >= 0 && read(watch, events, sizeof(events)) > 0) {
    }
  }
  if (watch >= 0) close(watch);
  if (pidfd >= 0) close(pidfd);
}

int RunStepKeeper(int argc, char** argv) {
  std::string lease_file;
  if (argc == 3 && std::string_view(argv[1]) == "--lease-file" && argv[2][0] != '\0') {
    lease_file = argv[2];
  } else if (argc != 1) {
    std::cerr << "usage: gantry-stepd [--lease-file PATH]  (requests on stdin; started by "
                 "gantry-agent)\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Ended only by its stdin's end: signals are for the steps' tasks, and reach them by the FIFO.
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, SIG_IGN);
  RunningSteps state;
  RunningSteps* running = &state;
  if (!lease_file.empty()) std::thread(WatchLease, lease_file, running).detach();
  auto answer = [](const Status& status) {
    const wire::Frame reply = wire::ReplyFrame(status, "");
    return wire::WriteFrame(STDOUT_FILENO, reply.tag, reply.body).ok();
  };
  int code = 0;
  while (true) {
    Result<wire::Frame> request = wire::ReadFrame(STDIN_FILENO, kMaxPlanBytes);
    if (!request.ok() || request->tag != kStepRequest) {
      if (!request.ok() && request.status().code() == StatusCode::kOutOfRange) break;  // closed
      std::cerr << "gantry-stepd: bad request: "
                << (request.ok() ? "tag " + std::to_string(request->tag)
                                 : request.status().message())
                << "\n";
      code = 2;  // the stream is out of step: the agent starts another gantry-stepd
      break;
    }
    Result<StepPlan> plan = DecodeStepPlan(request->body);
    if (!plan.ok()) {
      if (!answer(plan.status())) break;
      continue;
    }
    Result<int> fd = OpenControlFifo(plan->control);
    if (!fd.ok()) {
      if (!answer(InvalidArgument(fd.status().message()))) break;
      continue;
    }
    SetLogNode(plan->node);
    plan->log = [](const std::string& line) { Log(line); };
    std::list<RunningSteps::Step>::iterator step;
    {
      std::lock_guard<std::mutex> lock(running->mu);
      step = running->steps.emplace(running->steps.end());
      step->kill_wait = plan->kill_wait;
    }
    std::thread([running, step, plan = std::move(*plan), fd = *fd] {
      KeepStep(plan, fd, running, step);
    }).detach();
    if (!answer(Status::Ok())) break;  // the agent has gone
  }
  // The agent has gone (or stopped): the steps run on to their ends.
  std::unique_lock<std::mutex> lock(running->mu);
  running->ended.wait(lock, [&] { return running->steps.empty(); });
  return code;
}

}  // namespace gantry::agent
