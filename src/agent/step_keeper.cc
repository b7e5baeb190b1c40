#include "agent/step_keeper.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "agent/handoff.h"
#include "agent/keeper.h"
#include "agent/log.h"

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

// Reads `fd` until it would block (a non-blocking one) or for ever (the FIFO is open for writing
// here too, so it never reaches EOF), applying what comes to `control`.
void ServeControl(int fd, std::string* pending, StepControl* control) {
  char buffer[256];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    ApplyControl(std::string_view(buffer, static_cast<size_t>(n)), pending, control);
  }
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
  if (plan.control.empty()) return InvalidArgument("step plan: no control FIFO");
  plan.sample_period = std::chrono::milliseconds(sample_ms);
  return plan;
}

Result<std::shared_ptr<KeptStep>> KeptStep::Open(const std::string& control, bool create) {
  if (create) {
    unlink(control.c_str());
    if (mkfifo(control.c_str(), 0600) != 0) {
      return Unavailable("mkfifo " + control + ": " + std::strerror(errno));
    }
  }
  // O_RDWR: a FIFO opened so never blocks, and writes to it never fail for want of a reader.
  const int fd = open(control.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Unavailable(control + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    close(fd);
    return Unavailable(control + ": not a FIFO");
  }
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

Result<IdleStepKeeper> StartIdleStepKeeper(const std::string& stepd_path) {
  int in[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Unavailable(std::string("pipe2: ") + std::strerror(errno));
  SpawnSpec stepd;
  stepd.path = stepd_path;
  stepd.argv = {stepd_path};
  stepd.stdin_fd = in[0];
  stepd.stderr_to_agent = true;
  stepd.keep_oom_score = true;  // as shielded as the agent: it carries the step's I/O
  Result<Spawned> started = Spawn(stepd);
  close(in[0]);
  if (!started.ok()) {
    close(in[1]);
    return Unavailable("cannot start " + stepd_path + ": " + started.status().message());
  }
  return IdleStepKeeper{*started, in[1]};
}

Spawned HandStep(IdleStepKeeper idle, const StepPlan& plan, const std::string& control) {
  StepPlan with_control = plan;
  with_control.control = control;
  // gantry-stepd reads the whole plan before it does anything: no deadlock on a full pipe.
  (void)WriteAll(idle.plan_fd, EncodeStepPlan(with_control));
  close(idle.plan_fd);
  return idle.stepd;
}

Spawned DismissStepKeeper(IdleStepKeeper idle) {
  close(idle.plan_fd);
  return idle.stepd;
}

Result<Spawned> SpawnStepKeeper(const std::string& stepd_path, const StepPlan& plan,
                                const std::string& control) {
  GANTRY_ASSIGN_OR_RETURN(IdleStepKeeper idle, StartIdleStepKeeper(stepd_path));
  return HandStep(idle, plan, control);
}

int RunStepKeeper(int argc, char** argv) {
  if (argc != 1) {
    std::cerr << "usage: gantry-stepd  (the step plan on stdin; started by gantry-agent)\n";
    (void)argv;
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Ended only by its tasks' ends: signals are for the tasks, and reach them by the FIFO.
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, SIG_IGN);
  std::string bytes;
  if (!ReadAll(STDIN_FILENO, kMaxPlanBytes, &bytes)) {
    std::cerr << "gantry-stepd: cannot read the step plan\n";
    return 2;
  }
  if (bytes.empty()) return 0;  // no step came: the agent let this one go
  Result<StepPlan> plan = DecodeStepPlan(bytes);
  bytes = std::string();
  if (!plan.ok()) {
    std::cerr << "gantry-stepd: " << plan.status().message() << "\n";
    return 2;
  }
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
  SetLogNode(plan->node);
  plan->log = [](const std::string& line) { Log(line); };
  const int fd = open(plan->control.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    std::cerr << "gantry-stepd: " << plan->control << ": " << std::strerror(errno) << "\n";
    return 2;
  }
  StepControl control;
  // What the agent sent before this started (a suspended job's SIGSTOP) applies before any task
  // starts; then a reader, detached (it blocks in read() until the process exits).
  static std::string pending_bytes;  // lives until the process exits, as the reader does
  std::string* pending = &pending_bytes;
  ServeControl(fd, pending, &control);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::thread([fd, pending, &control] { ServeControl(fd, pending, &control); }).detach();
  RunStep(*plan, &control);
  unlink(plan->control.c_str());
  // The reader may still hold `control`: leave without destroying it.
  std::_Exit(0);
}

}  // namespace gantry::agent
