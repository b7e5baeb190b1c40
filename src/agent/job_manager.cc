#include "agent/job_manager.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "agent/keeper.h"
#include "agent/launcher.h"
#include "agent/log.h"
#include "agent/script_runner.h"
#include "agent/user_info.h"
#include "base/hash.h"
#include "model/job_state.h"
#include "proc/proc.h"
#include "proc/usage_sampler.h"
#include "sys/child_process.h"
#include "sys/files.h"
#include "sys/mountinfo.h"
#include "sys/nvidia_devices.h"
#include "text/filename_pattern.h"

namespace gantry::agent {
namespace {

using gantry::v1::JobReport;

// How many ended (job, epoch) pairs are remembered for idempotency.
constexpr size_t kEndedMemory = 4096;

std::string JobName(uint32_t job_id) { return "job " + std::to_string(job_id); }

// Whether the recorded process still runs (not a zombie, and not another with its pid).
bool Alive(const RecordedProcess& process) {
  return process.start_ticks != 0 && proc::IsStillRunning(process.pid, process.start_ticks);
}

std::optional<mode_t> ParseUmask(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->size() > 4) return std::nullopt;
  mode_t mask = 0;
  for (char c : *text) {
    if (c < '0' || c > '7') return std::nullopt;
    mask = static_cast<mode_t>(mask * 8 + static_cast<mode_t>(c - '0'));
  }
  return mask;
}

}  // namespace

NodeSettings SettingsFromRegisterReply(const gantry::v1::RegisterReply& reply) {
  NodeSettings settings;
  settings.cluster_name = reply.cluster_name();
  settings.conf_path = reply.conf_path();
  settings.controller_address = reply.controller_address();
  settings.prolog.assign(reply.prolog().begin(), reply.prolog().end());
  settings.epilog.assign(reply.epilog().begin(), reply.epilog().end());
  if (reply.kill_wait_sec() > 0) settings.kill_wait_sec = reply.kill_wait_sec();
  if (reply.prolog_epilog_timeout_sec() > 0) {
    settings.script_timeout_sec = reply.prolog_epilog_timeout_sec();
  }
  if (reply.has_acct_gather_frequency_sec()) {
    settings.acct_gather_frequency_sec = reply.acct_gather_frequency_sec();
  }
  return settings;
}

// The agent's cgroup directory name: the node plus a hash of the absolute spool dir, so that
// agents of different clusters on one host (same node names, same job ids: tests, several
// local clusters) never share job cgroups, while a restarted agent finds its predecessor's.
static std::string CgroupName(const JobManagerOptions& options) {
  std::error_code ignored;
  const std::string spool = std::filesystem::absolute(options.spool_dir, ignored).string();
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "-%08x", Fnv1a32(spool));
  return options.node + suffix;
}

Result<std::unique_ptr<JobManager>> JobManager::Create(JobManagerOptions options,
                                                       ReportSink* sink) {
  if (options.node.empty()) return InvalidArgument("node name: empty");
  if (options.clock == nullptr) return InvalidArgument("clock: missing");
  GANTRY_ASSIGN_OR_RETURN(Spool spool, Spool::Open(options.spool_dir));
  std::optional<CgroupTree> cgroups;
  if (options.cgroup_root != "none") {
    std::optional<std::string> root = options.cgroup_root.empty()
                                          ? FindCgroup2Mount()
                                          : std::optional<std::string>(options.cgroup_root);
    if (!root) {
      Log("no cgroup v2 hierarchy mounted: tracking jobs by session and process group");
    } else if (Result<CgroupTree> tree = CgroupTree::Open(*root, CgroupName(options)); tree.ok()) {
      cgroups = std::move(*tree);
      Log("tracking jobs with cgroups under " + cgroups->base());
    } else {
      Log("cgroups unavailable (" + tree.status().message() +
          "): tracking jobs by session and process group");
    }
  }
  // GPUs: each job may open only its own (gpu_devices.h): an eBPF device program on each job's
  // cgroup where jobs have cgroup v2 ones, else the v1 devices controller.
  std::vector<uint32_t> gpus = sys::FindNvidiaGpus(options.dev_dir);
  std::optional<GpuFence> fence;
  if (!gpus.empty()) {
    const std::string count = std::to_string(gpus.size()) + " NVIDIA GPU(s) in " + options.dev_dir;
    if (options.devices_cgroup_root == "none") {
      Log(count + ": not fenced (switched off): jobs are kept apart by CUDA_VISIBLE_DEVICES only");
      gpus.clear();
    } else if (cgroups) {
      Log(count + ": each job may open only its own (eBPF device program on its cgroup)");
    } else if (Result<GpuFence> opened =
                   GpuFence::Open(CgroupName(options), gpus, options.devices_cgroup_root);
               opened.ok()) {
      fence = std::move(*opened);
      Log(count + ": each job may open only its own (devices cgroup)");
    } else {
      Log(count + ": not fenced (" + opened.status().message() +
          "): jobs are kept apart by CUDA_VISIBLE_DEVICES only");
      gpus.clear();
    }
  }
  std::optional<JobLimiter> limiter;
  if (cgroups) {
    limiter = JobLimiter::Open(cgroups->base(), CgroupName(options), sys::ReadMountInfo());
    Log("limits each job to its allocation: " + limiter->Describe());
  }
  auto manager = std::unique_ptr<JobManager>(new JobManager(std::move(options), sink,
                                                            std::move(spool), std::move(cgroups),
                                                            std::move(gpus), std::move(fence)));
  manager->limiter_ = std::move(limiter);
  if (!manager->options_.stepd_path.empty()) {
    manager->stepd_ = std::make_unique<StepServer>(manager->options_.stepd_path,
                                                   SpoolLeasePath(manager->options_.spool_dir));
    // Started now, so that the first step does not wait for it; a failure is tried again then.
    if (Status started = manager->stepd_->Start(); !started.ok()) Log(started.message());
  }
  return manager;
}

JobManager::JobManager(JobManagerOptions options, ReportSink* sink, Spool spool,
                       std::optional<CgroupTree> cgroups, std::vector<uint32_t> node_gpus,
                       std::optional<GpuFence> gpu_fence)
    : options_(std::move(options)),
      sink_(sink),
      spool_(std::move(spool)),
      cgroups_(std::move(cgroups)),
      node_gpus_(std::move(node_gpus)),
      gpu_fence_(std::move(gpu_fence)) {}

std::vector<std::string> JobManager::FenceGpus(const gantry::v1::JobContext& context,
                                               const std::string& new_cgroup) const {
  if (node_gpus_.empty()) return {};
  const uint32_t job_id = context.job().job_id();
  const std::vector<uint32_t> allowed = JobGpusOnNode(context.job(), context.node_index());
  if (gpu_fence_) {
    Result<std::string> dir = gpu_fence_->CreateJob(job_id, allowed);
    if (dir.ok()) return {*dir};
    Log(JobName(job_id) + ": GPUs not fenced: " + dir.status().message());
    return {};
  }
  if (new_cgroup.empty()) return {};
  std::vector<uint32_t> denied;
  for (uint32_t gpu : node_gpus_) {
    if (std::find(allowed.begin(), allowed.end(), gpu) == allowed.end()) denied.push_back(gpu);
  }
  if (Status attached = AttachGpuFilter(new_cgroup, denied); !attached.ok()) {
    Log(JobName(job_id) + ": GPUs not fenced: " + attached.message());
  }
  return {};
}

JobManager::~JobManager() {
  Shutdown();
  // This node's cgroup directories, now empty (best effort: a later instance recreates them).
  if (cgroups_) (void)RemoveCgroup(cgroups_->base());
  if (gpu_fence_) rmdir(gpu_fence_->base().c_str());
}

void JobManager::SetSettings(NodeSettings settings) {
  std::lock_guard<std::mutex> lock(mu_);
  settings_ = std::move(settings);
}

NodeSettings JobManager::settings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return settings_;
}

std::string JobManager::cgroup_base() const { return cgroups_ ? cgroups_->base() : ""; }

NodeEnv JobManager::MakeNodeEnv(const NodeSettings& settings) const {
  NodeEnv env;
  env.node_name = options_.node;
  env.cluster_name = settings.cluster_name;
  env.conf_path = settings.conf_path;
  env.controller_address = settings.controller_address;
  return env;
}

void JobManager::SendReport(uint32_t job_id, uint64_t epoch, JobReport::Kind kind,
                            std::string message, int32_t wait_status, v1::JobUsage usage) {
  JobReport report;
  report.set_node(options_.node);
  report.set_job_id(job_id);
  report.set_epoch(epoch);
  report.set_kind(kind);
  report.set_wait_status(wait_status);
  report.set_message(std::move(message));
  report.set_time(options_.clock->Now());
  if (kind == JobReport::BATCH_ENDED) *report.mutable_usage() = std::move(usage);
  Log(JobName(job_id) + ": " + JobReport::Kind_Name(kind) +
      (report.message().empty() ? "" : ": " + report.message()));
  sink_->Report(std::move(report));
}

void JobManager::StartWorker(std::function<void()> work) {
  // Under mu_. Joins the workers that have finished, then starts one more.
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (*it->done) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  auto done = std::make_shared<bool>(false);
  ++busy_;
  workers_.push_back(Worker{std::thread([this, work = std::move(work), done] {
                              work();
                              std::lock_guard<std::mutex> lock(mu_);
                              *done = true;
                              --busy_;
                              cv_.notify_all();
                            }),
                            done});
}

bool JobManager::EndedLocked(uint32_t job_id, uint64_t epoch) const {
  auto it = ended_.find(job_id);
  return it != ended_.end() && it->second >= epoch;
}

void JobManager::RememberEndedLocked(uint32_t job_id, uint64_t epoch) {
  auto [it, inserted] = ended_.try_emplace(job_id, epoch);
  if (!inserted) {
    it->second = std::max(it->second, epoch);
    return;
  }
  ended_order_.push_back(job_id);
  while (ended_order_.size() > kEndedMemory) {
    ended_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
}

Result<JobManager::Entry*> JobManager::EntryForLocked(const gantry::v1::JobContext& context) {
  const uint32_t job_id = context.job().job_id();
  const uint64_t epoch = context.epoch();
  if (shutting_down_) return Unavailable("node " + options_.node + " is shutting down");
  auto it = entries_.find(job_id);
  if (it != entries_.end()) {
    Entry& entry = it->second;
    if (entry.epoch == epoch) return &entry;
    if (entry.epoch > epoch) {
      return FailedPrecondition(JobName(job_id) + ": epoch " + std::to_string(epoch) +
                                " is older than epoch " + std::to_string(entry.epoch) +
                                " held on " + options_.node);
    }
    return FailedPrecondition(JobName(job_id) + ": epoch " + std::to_string(entry.epoch) +
                              " has not ended on " + options_.node + " yet");
  }
  if (EndedLocked(job_id, epoch)) {
    return FailedPrecondition(JobName(job_id) + " (epoch " + std::to_string(epoch) +
                              ") already ended on " + options_.node);
  }
  Entry& entry = entries_[job_id];
  entry.job_id = job_id;
  entry.epoch = epoch;
  entry.context = context;
  return &entry;
}

namespace {

uint64_t MicrosecondsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
}

}  // namespace

// ---- PrepareJob -------------------------------------------------------------------------------

Status JobManager::PrepareJob(const gantry::v1::JobContext& context) {
  std::lock_guard<std::mutex> lock(mu_);
  GANTRY_ASSIGN_OR_RETURN(Entry * entry, EntryForLocked(context));
  if (entry->terminating) {
    return FailedPrecondition(JobName(entry->job_id) + " is ending on " + options_.node);
  }
  if (entry->prolog != PrologState::kNone || entry->launched || entry->launching) {
    return Status::Ok();  // a retry
  }
  entry->prolog = PrologState::kRunning;
  entry->context = context;
  const uint32_t job_id = entry->job_id;
  const uint64_t epoch = entry->epoch;
  StartWorker([this, job_id, epoch] { RunProlog(job_id, epoch); });
  return Status::Ok();
}

void JobManager::RunProlog(uint32_t job_id, uint64_t epoch) {
  gantry::v1::JobContext context;
  NodeSettings settings;
  {
    std::lock_guard<std::mutex> lock(mu_);
    context = entries_.at(job_id).context;
    settings = settings_;
  }
  ScriptBatch batch;
  batch.kind = "prolog";
  batch.entries = settings.prolog;
  batch.env = BuildScriptEnvironment(ScriptKind::kProlog, job_id, context, MakeNodeEnv(settings));
  batch.timeout = std::chrono::seconds(settings.script_timeout_sec);
  batch.scratch_dir = spool_.ScratchDir();
  batch.tag = "job" + std::to_string(job_id);
  const auto started = std::chrono::steady_clock::now();
  ScriptOutcome outcome = RunScripts(batch);
  prolog_latency_.Observe(MicrosecondsSince(started));

  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = entries_.at(job_id);  // termination waits for the prolog: still here
  entry.prolog = outcome.ok ? PrologState::kDone : PrologState::kFailed;
  // From here on the job is held here across agent restarts.
  if (outcome.ok && !entry.stale) SaveRecordLocked(&entry);
  // Reported under mu_, so that it is queued before any epilog report of the job.
  if (!entry.stale) {
    SendReport(job_id, epoch, outcome.ok ? JobReport::PROLOG_OK : JobReport::PROLOG_FAILED,
               outcome.message);
  }
  cv_.notify_all();
}

// ---- LaunchBatch ------------------------------------------------------------------------------

Status JobManager::LaunchBatch(const gantry::v1::JobContext& context,
                               const gantry::v1::JobPayload& payload) {
  const uint32_t job_id = context.job().job_id();
  const uint64_t epoch = context.epoch();
  NodeSettings settings;
  {
    std::lock_guard<std::mutex> lock(mu_);
    GANTRY_ASSIGN_OR_RETURN(Entry * entry, EntryForLocked(context));
    if (entry->terminating) {
      return FailedPrecondition(JobName(job_id) + " is ending on " + options_.node);
    }
    if (entry->launched || entry->launching) return Status::Ok();  // a retry
    if (entry->prolog == PrologState::kRunning) {
      return FailedPrecondition(JobName(job_id) + ": the prolog is still running on " +
                                options_.node);
    }
    if (entry->prolog == PrologState::kFailed) {
      return FailedPrecondition(JobName(job_id) + ": the prolog failed on " + options_.node);
    }
    entry->launching = true;
    entry->context = context;
    settings = settings_;
  }

  RecordedProcess keeper;
  const auto asked = std::chrono::steady_clock::now();
  Result<JobProcesses> started = StartBatch(context, payload, settings, &keeper);
  launch_latency_.Observe(MicrosecondsSince(asked));
  ++launches_;
  if (!started.ok()) ++launch_failures_;
  if (started.ok()) {
    Log(JobName(job_id) + ": batch script started as uid " +
        std::to_string(context.job().user_id()) + " (pid " + std::to_string(started->leader) +
        (started->cgroup.empty() ? "" : ", cgroup " + started->cgroup) + ")");
  }

  std::lock_guard<std::mutex> lock(mu_);
  Entry& entry = entries_.at(job_id);  // termination waits for the launch: still here
  entry.launching = false;
  if (started.ok()) {
    entry.launched = true;
    entry.batch_running = true;
    entry.procs = *started;
    entry.record.keeper = keeper;
    SaveRecordLocked(&entry);
    if (entry.suspended) {  // suspended while its prolog ran: it starts stopped
      Log(JobName(job_id) + ": suspended " + std::to_string(StopJobProcesses(entry.procs)) +
          " process(es) at launch");
    }
    StartWorker([this, job_id, epoch, procs = *started, keeper] {
      WaitBatch(job_id, epoch, procs, keeper, /*adopted=*/false);
    });
  } else if (!entry.stale) {
    SendReport(job_id, epoch, JobReport::LAUNCH_FAILED, started.status().message());
  }
  cv_.notify_all();
  return Status::Ok();
}

Result<JobProcesses> JobManager::StartBatch(const gantry::v1::JobContext& context,
                                            const gantry::v1::JobPayload& payload,
                                            const NodeSettings& settings, RecordedProcess* keeper) {
  const gantry::v1::Job& job = context.job();
  const gantry::v1::JobRequest& req = job.request();
  const uid_t uid = job.user_id();
  const gid_t gid = job.group_id();
  GANTRY_ASSIGN_OR_RETURN(UserInfo user, LookupUser(uid));
  const bool root = geteuid() == 0;
  if (!root && uid != geteuid()) {
    return FailedPrecondition("gantry-agent on " + options_.node + " runs as uid " +
                              std::to_string(geteuid()) +
                              ", not root: it can only run that user's jobs, not uid " +
                              std::to_string(uid) + " (" + user.name + ")");
  }
  // Root switches to the job's user and groups; an unprivileged agent runs its own user's jobs
  // as it is (it could not change its groups anyway).
  std::optional<Identity> identity;
  if (root) identity = Identity{uid, gid, UserGroups(user.name, gid)};
  const gid_t file_gid = root ? gid : getegid();

  text::FilenameContext names;
  names.job_id = job.job_id();
  names.node_name = options_.node;
  names.user = job.user_name().empty() ? user.name : job.user_name();
  names.job_name = req.name();
  const bool array_task = job.array_job_id() != 0 && job.has_array_task_id();
  if (array_task) {
    names.array_job_id = job.array_job_id();
    names.array_task_id = job.array_task_id();
  }
  const std::string out_pattern =
      req.std_out().empty() ? std::string(text::DefaultOutputPattern(array_task)) : req.std_out();
  Result<std::string> out_path = text::ExpandStdioPath(out_pattern, names, req.work_dir());
  if (!out_path.ok()) return FailedPrecondition("stdout: " + out_path.status().message());
  std::string err_path;
  if (!req.std_err().empty()) {
    Result<std::string> expanded = text::ExpandStdioPath(req.std_err(), names, req.work_dir());
    if (!expanded.ok()) return FailedPrecondition("stderr: " + expanded.status().message());
    err_path = *expanded;
  }
  std::string in_path = "/dev/null";
  if (!req.std_in().empty()) {
    Result<std::string> expanded = text::ExpandStdioPath(req.std_in(), names, req.work_dir());
    if (!expanded.ok()) return FailedPrecondition("stdin: " + expanded.status().message());
    in_path = *expanded;
  }

  GANTRY_ASSIGN_OR_RETURN(std::string script,
                          spool_.WriteBatchScript(job.job_id(), payload.script(), uid, file_gid));

  SpawnSpec spec;
  spec.path = script;
  spec.argv.push_back(script);
  spec.argv.insert(spec.argv.end(), payload.argv().begin(), payload.argv().end());
  spec.env = BuildBatchEnvironment(context, payload, MakeNodeEnv(settings),
                                   UserEnv{user.name, user.home, user.shell});
  spec.task_pid_env = true;
  spec.identity = identity;
  spec.umask = ParseUmask(EnvValue(spec.env, "SLURM_UMASK"));
  spec.work_dir = req.work_dir();
  spec.stdin_path = in_path;
  spec.stdout_path = *out_path;
  spec.stderr_path = err_path;
  spec.append = req.open_append();  // --open-mode=append
  if (cgroups_) {
    if (Result<std::string> dir = cgroups_->CreateJob(job.job_id()); dir.ok()) {
      spec.cgroup = *dir;
    } else {
      Log(JobName(job.job_id()) + ": no cgroup (" + dir.status().message() +
          "): tracking it by session and process group");
    }
  }
  spec.extra_cgroups = FenceGpus(context, spec.cgroup);
  JobProcesses procs;
  procs.limit_cgroups = LimitJob(job, spec.cgroup);
  spec.extra_cgroups.insert(spec.extra_cgroups.end(), procs.limit_cgroups.begin(),
                            procs.limit_cgroups.end());
  Result<Spawned> spawned = Unavailable("not started");
  if (options_.keeper_path.empty()) {
    spawned = Spawn(spec);
  } else {
    // How an earlier run of the job here ended is no news.
    unlink(spool_.ExitPath(job.job_id()).c_str());
    unlink(spool_.ReportedPath(job.job_id()).c_str());
    const KeeperLease lease{SpoolLeasePath(options_.spool_dir), settings.kill_wait_sec};
    Result<KeptBatch> kept =
        SpawnKept(options_.keeper_path, spec, spool_.ExitPath(job.job_id()), lease);
    if (kept.ok()) {
      *keeper = RecordedProcess{kept->keeper.pid, kept->keeper.start_ticks};
      spawned = kept->script;
    } else {
      spawned = kept.status();
    }
  }
  if (!spawned.ok()) {
    if (limiter_) limiter_->Remove(job.job_id());
    if (!spec.cgroup.empty()) (void)RemoveCgroup(spec.cgroup);
    spool_.RemoveJobDir(job.job_id());
    return spawned.status();
  }
  procs.leader = spawned->pid;
  procs.leader_start = spawned->start_ticks;
  procs.cgroup = spec.cgroup;
  return procs;
}

std::vector<std::string> JobManager::LimitJob(const gantry::v1::Job& job,
                                              const std::string& cgroup) const {
  if (!limiter_ || cgroup.empty()) return {};
  Result<std::vector<std::string>> join = limiter_->Apply(job.job_id(), cgroup, LimitsOf(job));
  if (!join.ok()) {
    Log(JobName(job.job_id()) + ": runs without limits: " + join.status().message());
    limiter_->Remove(job.job_id());
    return {};
  }
  return *join;
}

void JobManager::WaitBatch(uint32_t job_id, uint64_t epoch, const JobProcesses& procs,
                           RecordedProcess keeper, bool adopted) {
  const std::chrono::seconds period(settings().acct_gather_frequency_sec);
  proc::UsageSampler sampler([procs] { return LiveJobProcesses(procs); }, procs.cgroup, period);
  BatchExit ended;
  std::string lost;  // why how it ended is not known
  if (keeper.pid == 0) {
    struct rusage used = {};
    ended.wait_status = sys::ReapChild(procs.leader, &used);
    ended.user_cpu_usec = int64_t{used.ru_utime.tv_sec} * 1000000 + used.ru_utime.tv_usec;
    ended.system_cpu_usec = int64_t{used.ru_stime.tv_sec} * 1000000 + used.ru_stime.tv_usec;
    ended.max_rss_kib = used.ru_maxrss;
  } else {
    if (adopted) {
      WaitForKeeper(keeper.pid, keeper.start_ticks);
    } else {
      sys::ReapChild(keeper.pid);
    }
    Result<std::string> text = sys::ReadText(spool_.ExitPath(job_id));
    Result<BatchExit> parsed = text.ok() ? ParseBatchExit(*text) : Result<BatchExit>(text.status());
    if (parsed.ok()) {
      ended = *parsed;
    } else {
      // Its keeper was killed (or could not write): the script's end went with it.
      ended.wait_status = SIGKILL;
      lost = "its keeper ended without recording how the script ended (" +
             parsed.status().message() + ")";
    }
  }
  const proc::UsageSamples sampled = sampler.Stop();
  int status = ended.wait_status;
  Log(JobName(job_id) +
      ": batch script ended: " + (lost.empty() ? DescribeWaitStatus(status) : lost));
  if (limiter_ && limiter_->OomKilled(job_id, procs.cgroup)) {
    // As Slurm: an OOM kill anywhere in the job on this node makes it OUT_OF_MEMORY.
    Log(JobName(job_id) + ": the OOM killer killed some of its processes (memory limit)");
    status = model::kWaitStatusOom;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(job_id);
  if (it == entries_.end() || it->second.epoch != epoch) return;
  // Reported under mu_, before termination can see the script gone and report the epilog.
  if (!it->second.stale) {
    v1::JobUsage usage;
    usage.set_user_cpu_usec(ended.user_cpu_usec);
    usage.set_system_cpu_usec(ended.system_cpu_usec);
    // Linux: KiB. The largest single process, or all of them together when sampled larger.
    usage.set_max_rss_kib(std::max<int64_t>(ended.max_rss_kib, sampled.max_rss_kib));
    usage.set_max_vmsize_kib(static_cast<int64_t>(sampled.max_vmsize_kib));
    usage.set_ave_rss_kib(static_cast<int64_t>(sampled.ave_rss_kib()));
    usage.set_ave_vmsize_kib(static_cast<int64_t>(sampled.ave_vmsize_kib()));
    usage.set_disk_read_bytes(static_cast<int64_t>(sampled.read_bytes));
    usage.set_disk_write_bytes(static_cast<int64_t>(sampled.write_bytes));
    usage.set_sampled(sampled.samples > 0);
    SendReport(job_id, epoch, JobReport::BATCH_ENDED,
               lost.empty() ? DescribeWaitStatus(status) : lost, status, std::move(usage));
    // The report is queued durably: a later agent must not report the end again.
    if (keeper.pid != 0) {
      rename(spool_.ExitPath(job_id).c_str(), spool_.ReportedPath(job_id).c_str());
    }
  }
  it->second.batch_running = false;
  cv_.notify_all();
}

void JobManager::SaveRecordLocked(Entry* entry) {
  if (entry->terminating) return;
  JobRecord& record = entry->record;
  record.job_id = entry->job_id;
  record.epoch = entry->epoch;
  record.pid = entry->procs.leader;
  record.start_ticks = entry->procs.leader_start;
  record.cgroup = entry->procs.cgroup;
  record.limit_cgroups = entry->procs.limit_cgroups;
  if (Status saved = spool_.SaveRecord(record); !saved.ok()) {
    Log(JobName(entry->job_id) + ": cannot record the job in the spool (" + saved.message() +
        "): a restarted agent will not know it");
  }
}

// ---- LaunchTasks ------------------------------------------------------------------------------

Status JobManager::LaunchTasks(const gantry::v1::LaunchTasksRequest& request) {
  const auto asked = std::chrono::steady_clock::now();
  const gantry::v1::JobContext& context = request.context();
  const gantry::v1::Job& job = context.job();
  const uint32_t job_id = job.job_id();
  const std::string what =
      "StepId=" + std::to_string(job_id) + "." + std::to_string(request.step().step_id());
  GANTRY_ASSIGN_OR_RETURN(UserInfo user, LookupUser(job.user_id()));
  const bool root = geteuid() == 0;
  if (!root && job.user_id() != geteuid()) {
    return FailedPrecondition("gantry-agent on " + options_.node + " runs as uid " +
                              std::to_string(geteuid()) + ", not root: it cannot run uid " +
                              std::to_string(job.user_id()) + "'s tasks");
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(job_id);
  if (shutting_down_) return Unavailable("node " + options_.node + " is shutting down");
  if (it == entries_.end() || it->second.epoch != context.epoch()) {
    return FailedPrecondition(JobName(job_id) + " (epoch " + std::to_string(context.epoch()) +
                              ") is not running on " + options_.node);
  }
  Entry& entry = it->second;
  if (entry.terminating) {
    return FailedPrecondition(JobName(job_id) + " is ending on " + options_.node);
  }
  if (entry.prolog != PrologState::kDone) {
    return FailedPrecondition(JobName(job_id) + ": its prolog has not succeeded on " +
                              options_.node);
  }
  std::string new_cgroup;  // made here: the job had nothing running on this node
  if (entry.procs.cgroup.empty() && cgroups_ && !entry.launching && !entry.launched) {
    if (Result<std::string> dir = cgroups_->CreateJob(job_id); dir.ok()) {
      entry.procs.cgroup = *dir;
      new_cgroup = *dir;
      entry.procs.limit_cgroups = LimitJob(job, *dir);
      SaveRecordLocked(&entry);
    }
  }
  // Termination now also ends (and then removes the cgroup of) what the step starts here.
  entry.launched = entry.launched || !entry.launching;

  const uint32_t step_id = request.step().step_id();
  std::shared_ptr<StepControl> control;  // the agent runs the tasks
  std::shared_ptr<KeptStep> kept;        // gantry-stepd does
  std::shared_ptr<StepHandle> handle;
  if (options_.stepd_path.empty()) {
    handle = control = std::make_shared<StepControl>();
  } else {
    Result<std::shared_ptr<KeptStep>> opened =
        KeptStep::Open(spool_.StepControlPath(job_id, step_id), /*create=*/true);
    if (!opened.ok()) return Unavailable(what + ": " + opened.status().message());
    handle = kept = *opened;
  }
  if (entry.suspended) handle->Signal(SIGSTOP);
  entry.steps.push_back(handle);
  Log(what + ": starting " + std::to_string(request.task_ids_size()) + " task(s) as uid " +
      std::to_string(job.user_id()));
  // Fenced here, under mu_, so that no later step's tasks start before the fence; the tasks'
  // identities and environments are made on the worker.
  std::vector<std::string> fence = FenceGpus(context, new_cgroup);
  fence.insert(fence.end(), entry.procs.limit_cgroups.begin(), entry.procs.limit_cgroups.end());
  StartWorker([this, request, user, settings = settings_, cgroup = entry.procs.cgroup,
               fence = std::move(fence), control, kept, job_id, step_id] {
    StepPlan plan = PlanStep(request, user, settings, cgroup, fence);
    if (kept) {
      RunKeptStep(job_id, step_id, plan, kept);
    } else {
      RunStepTasks(job_id, std::move(plan), control);
    }
  });
  step_launch_latency_.Observe(MicrosecondsSince(asked));
  return Status::Ok();
}

void JobManager::WriteMetrics(metrics::MetricsText* out) const {
  const metrics::Labels node = {{"node", options_.node}};
  size_t held = 0;
  size_t running = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    held = entries_.size();
    for (const auto& [id, entry] : entries_) running += entry.batch_running ? 1 : 0;
  }
  out->Gauge("gantry_agent_jobs", "Jobs this agent holds (prolog to epilog)");
  out->Sample(static_cast<double>(held), node);
  out->Gauge("gantry_agent_jobs_running", "Jobs whose batch script runs here");
  out->Sample(static_cast<double>(running), node);
  out->Counter("gantry_agent_launches", "Batch scripts this agent was asked to start");
  out->Sample(static_cast<double>(launches_.load()), node);
  out->Counter("gantry_agent_launch_failures", "Batch scripts that could not be started");
  out->Sample(static_cast<double>(launch_failures_.load()), node);
  out->HistogramFamily("gantry_agent_prolog_seconds", "How long each job's prolog took here");
  out->Histogram(prolog_latency_.Snapshot(), node);
  out->HistogramFamily("gantry_agent_launch_seconds",
                       "From LaunchBatch to the batch script running as its user");
  out->Histogram(launch_latency_.Snapshot(), node);
  out->HistogramFamily("gantry_agent_step_launch_seconds",
                       "From LaunchTasks to the step's tasks handed to their worker");
  out->Histogram(step_launch_latency_.Snapshot(), node);
}

StepPlan JobManager::PlanStep(const gantry::v1::LaunchTasksRequest& request, const UserInfo& user,
                              const NodeSettings& settings, const std::string& cgroup,
                              const std::vector<std::string>& fence) const {
  const gantry::v1::Job& job = request.context().job();
  StepPlan plan;
  plan.io_host = request.launch().io_host();
  plan.io_port = request.launch().io_port();
  plan.io_key = request.launch().io_key();
  plan.node = options_.node;
  plan.what =
      "StepId=" + std::to_string(job.job_id()) + "." + std::to_string(request.step().step_id());
  plan.log = [](const std::string& line) { Log(line); };
  plan.sample_period = std::chrono::seconds(settings.acct_gather_frequency_sec);
  plan.kill_wait = std::chrono::seconds(settings.kill_wait_sec);
  std::optional<Identity> identity;
  if (geteuid() == 0) {
    identity = Identity{job.user_id(), job.group_id(), UserGroups(user.name, job.group_id())};
  }
  const NodeEnv node_env = MakeNodeEnv(settings);
  const std::string& work_dir =
      request.launch().work_dir().empty() ? job.request().work_dir() : request.launch().work_dir();
  for (int local = 0; local < request.task_ids_size(); ++local) {
    StepTask task;
    task.rank = request.task_ids(local);
    SpawnSpec& spec = task.spawn;
    spec.argv.assign(request.launch().argv().begin(), request.launch().argv().end());
    spec.env = BuildStepEnvironment(request, task.rank, static_cast<uint32_t>(local), node_env);
    spec.task_pid_env = true;
    spec.identity = identity;
    spec.umask = ParseUmask(EnvValue(spec.env, "SLURM_UMASK"));
    spec.work_dir = work_dir.empty() ? "/" : work_dir;
    spec.cgroup = cgroup;
    spec.extra_cgroups = fence;
    spec.path = request.launch().argv(0);
    spec.search_path = EnvValue(spec.env, "PATH").value_or("/usr/bin:/bin");
    plan.tasks.push_back(std::move(task));
  }
  return plan;
}

void JobManager::RunStepTasks(uint32_t job_id, StepPlan plan,
                              const std::shared_ptr<StepControl>& control) {
  // Recorded, so that a restarted agent ends the tasks whose I/O went through this one; tasks
  // that ended leave the record then.
  plan.on_tasks_started = [this, job_id](const std::vector<Spawned>& started) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(job_id);
    if (it == entries_.end()) return;
    std::vector<RecordedProcess>& tasks = it->second.record.tasks;
    std::erase_if(tasks, [](const RecordedProcess& p) { return !Alive(p); });
    for (const Spawned& task : started) tasks.push_back({task.pid, task.start_ticks});
    SaveRecordLocked(&it->second);
  };
  RunStep(plan, control.get());
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = entries_.find(job_id); it != entries_.end()) std::erase(it->second.steps, control);
  cv_.notify_all();
}

void JobManager::RunKeptStep(uint32_t job_id, uint32_t step_id, const StepPlan& plan,
                             const std::shared_ptr<KeptStep>& kept) {
  Result<Spawned> stepd = stepd_->Launch(plan, kept->control());
  if (!stepd.ok()) {
    Log(plan.what + ": " + stepd.status().message() + ": its tasks do not start");
    FollowKeptStep(job_id, RecordedStep{step_id, {}}, kept);
    return;
  }
  FollowKeptStep(job_id, RecordedStep{step_id, {stepd->pid, stepd->start_ticks}}, kept);
}

void JobManager::FollowKeptStep(uint32_t job_id, RecordedStep step,
                                const std::shared_ptr<KeptStep>& kept) {
  auto update_record = [&](bool add) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(job_id);
    if (it == entries_.end()) return;
    std::vector<RecordedStep>& steps = it->second.record.steps;
    std::erase(steps, step);
    if (add) steps.push_back(step);
    SaveRecordLocked(&it->second);
  };
  if (step.stepd.pid > 0) {
    update_record(true);
    WaitForKeptStep(kept->control(), step.stepd.pid, step.stepd.start_ticks);
    update_record(false);
  }
  unlink(kept->control().c_str());
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = entries_.find(job_id); it != entries_.end()) std::erase(it->second.steps, kept);
  cv_.notify_all();
}

// ---- SignalJob --------------------------------------------------------------------------------

Status JobManager::SignalJob(uint32_t job_id, uint64_t epoch, int signal,
                             gantry::v1::SignalScope scope) {
  JobProcesses procs;
  bool batch_running = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(job_id);
    if (it == entries_.end() || it->second.epoch != epoch) {
      return NotFound(JobName(job_id) + " (epoch " + std::to_string(epoch) +
                      ") is not running on " + options_.node);
    }
    const bool suspend = scope == gantry::v1::SIGNAL_SUSPEND;
    if (!suspend && signal != SIGKILL && it->second.suspended) {
      // Only the controller's resume continues a suspended job (Slurm refuses the rest too).
      return FailedPrecondition(JobName(job_id) + " is suspended: signal " +
                                std::to_string(signal) + " refused");
    }
    if (suspend) it->second.suspended = signal == SIGSTOP;
    if (!it->second.launched) return Status::Ok();  // nothing started here yet
    procs = it->second.procs;
    batch_running = it->second.batch_running;
    if (suspend) {
      // Under mu_, so that a launch or termination sees the job's processes stopped or not.
      const int count = signal == SIGSTOP ? StopJobProcesses(procs) : ContinueJobProcesses(procs);
      if (procs.cgroup.empty()) {
        for (const auto& step : it->second.steps) step->Signal(signal);
      }
      Log(JobName(job_id) + (signal == SIGSTOP ? ": suspended " : ": resumed ") +
          std::to_string(count) + " process(es)");
      return Status::Ok();
    }
    if (scope == gantry::v1::SIGNAL_BATCH) {
      // The script is an unreaped child (ours, or its keeper's) while batch_running: its pid is
      // not reused until the keeper reaps it, just before batch_running ends.
      if (batch_running && !LeaderReused(procs)) kill(procs.leader, signal);
      Log(JobName(job_id) + ": signal " + std::to_string(signal) + " sent to the batch script");
      return Status::Ok();
    }
    if (scope == gantry::v1::SIGNAL_STEPS) {
      // The steps' tasks (their process groups), not the batch shell: a signal meant for an
      // srun's tasks reaches each once, and the script goes on.
      for (const auto& step : it->second.steps) step->Signal(signal);
      Log(JobName(job_id) + ": signal " + std::to_string(signal) + " sent to " +
          std::to_string(it->second.steps.size()) + " step(s)");
      return Status::Ok();
    }
    if (procs.cgroup.empty()) {
      for (const auto& step : it->second.steps) step->Signal(signal);
    }
  }
  int count = SignalJobProcesses(procs, signal);
  Log(JobName(job_id) + ": signal " + std::to_string(signal) + " sent to " + std::to_string(count) +
      " process(es)");
  return Status::Ok();
}

// ---- TerminateJob -----------------------------------------------------------------------------

Status JobManager::TerminateJob(uint32_t job_id, uint64_t epoch, uint32_t kill_wait_sec,
                                const gantry::v1::JobContext& context) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::chrono::milliseconds kill_wait =
      std::chrono::seconds(kill_wait_sec > 0 ? kill_wait_sec : settings_.kill_wait_sec);
  auto it = entries_.find(job_id);
  if (it != entries_.end()) {
    Entry& entry = it->second;
    if (entry.epoch > epoch) {
      return FailedPrecondition(JobName(job_id) + ": epoch " + std::to_string(epoch) +
                                " is older than epoch " + std::to_string(entry.epoch) +
                                " held on " + options_.node);
    }
    if (entry.terminating) return Status::Ok();  // a retry
    if (!entry.context.has_job() && context.has_job()) entry.context = context;
    BeginTerminateLocked(&entry, epoch, kill_wait);
    return Status::Ok();
  }
  if (EndedLocked(job_id, epoch)) return Status::Ok();  // done; its report is queued
  // Not running here (ended, or never launched here): the epilog still runs.
  Entry& entry = entries_[job_id];
  entry.job_id = job_id;
  entry.epoch = epoch;
  entry.context = context;
  BeginTerminateLocked(&entry, epoch, kill_wait);
  return Status::Ok();
}

void JobManager::BeginTerminateLocked(Entry* entry, uint64_t report_epoch,
                                      std::chrono::milliseconds kill_wait) {
  entry->terminating = true;
  const uint32_t job_id = entry->job_id;
  if (entry->launched && !entry->stale) {
    Log(JobName(job_id) + ": ending its processes (SIGCONT, SIGTERM, SIGKILL after " +
        std::to_string(kill_wait.count() / 1000) + " s)");
  }
  StartWorker(
      [this, job_id, report_epoch, kill_wait] { RunTerminate(job_id, report_epoch, kill_wait); });
}

void JobManager::RunTerminate(uint32_t job_id, uint64_t report_epoch,
                              std::chrono::milliseconds kill_wait) {
  JobProcesses procs;
  bool launched = false;
  bool stale = false;
  gantry::v1::JobContext context;
  NodeSettings settings;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      const Entry& e = entries_.at(job_id);
      return e.prolog != PrologState::kRunning && !e.launching;
    });
    const Entry& entry = entries_.at(job_id);
    procs = entry.procs;
    launched = entry.launched;
    stale = entry.stale;
    context = entry.context;
    settings = settings_;
    for (const auto& step : entry.steps) {
      step->Terminate(stale ? std::chrono::milliseconds(0) : kill_wait);
    }
  }

  bool gone = true;
  if (launched) {
    if (stale) {
      KillJobProcesses(procs);
      gone = WaitJobProcessesGone(procs, options_.unkillable_timeout);
    } else {
      gone = EndJobProcesses(procs, kill_wait, options_.unkillable_timeout);
    }
    std::unique_lock<std::mutex> lock(mu_);
    // The script is reaped (and BATCH_ENDED queued) by its waiter.
    cv_.wait_for(lock, gone ? std::chrono::milliseconds(60000) : std::chrono::milliseconds(0),
                 [&] { return !entries_.at(job_id).batch_running; });
    // Step runners SIGKILL their tasks at the kill wait's end and leave once they are reaped.
    gone = cv_.wait_for(lock, kill_wait + options_.unkillable_timeout, [&] {
      return entries_.at(job_id).steps.empty();
    }) && gone;
  }
  if (!procs.cgroup.empty()) {
    if (Status removed = RemoveCgroup(procs.cgroup); !removed.ok()) {
      Log(JobName(job_id) + ": " + removed.message());
    }
  }
  if (limiter_) limiter_->Remove(job_id);
  if (gpu_fence_) gpu_fence_->RemoveJob(job_id);

  ScriptOutcome epilog;
  if (!stale) {
    ScriptBatch batch;
    batch.kind = "epilog";
    batch.entries = settings.epilog;
    batch.env = BuildScriptEnvironment(ScriptKind::kEpilog, job_id, context, MakeNodeEnv(settings));
    batch.timeout = std::chrono::seconds(settings.script_timeout_sec);
    batch.scratch_dir = spool_.ScratchDir();
    batch.tag = "job" + std::to_string(job_id);
    epilog = RunScripts(batch);
  }
  spool_.RemoveRecord(job_id);
  spool_.RemoveJobDir(job_id);

  std::string message;
  if (!gone) {
    message = "processes of " + JobName(job_id) + " survived SIGKILL for " +
              std::to_string(options_.unkillable_timeout.count() / 1000) + " s";
  }
  if (!epilog.ok) message += (message.empty() ? "" : "; ") + epilog.message;

  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(job_id);
  const uint64_t epoch = std::max(report_epoch, it->second.epoch);
  entries_.erase(it);
  RememberEndedLocked(job_id, epoch);
  if (stale) {
    Log(JobName(job_id) + ": stale job killed");
  } else {
    SendReport(job_id, report_epoch,
               gone && epilog.ok ? JobReport::EPILOG_OK : JobReport::EPILOG_FAILED, message);
  }
  cv_.notify_all();
}

void JobManager::KillStaleJobs(const std::vector<uint32_t>& job_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint32_t job_id : job_ids) {
    auto it = entries_.find(job_id);
    if (it == entries_.end() || it->second.terminating) continue;
    Log(JobName(job_id) + ": the controller does not know it here: killing it");
    it->second.stale = true;
    BeginTerminateLocked(&it->second, it->second.epoch, std::chrono::milliseconds(0));
  }
}

void JobManager::Fence() {
  std::lock_guard<std::mutex> lock(mu_);
  const std::chrono::milliseconds kill_wait = std::chrono::seconds(settings_.kill_wait_sec);
  for (auto& [job_id, entry] : entries_) {
    if (entry.terminating) continue;
    Log(JobName(job_id) + ": the lease ran out: ending it (SIGTERM, SIGKILL after KillWait)");
    entry.stale = true;  // the controller settles it (requeue or NODE_FAIL): no reports
    BeginTerminateLocked(&entry, entry.epoch, kill_wait);
  }
}

std::vector<uint32_t> JobManager::JobIds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, entry] : entries_) ids.push_back(id);
  return ids;
}

std::map<uint32_t, uint64_t> JobManager::JobEpochs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<uint32_t, uint64_t> epochs;
  for (const auto& [id, entry] : entries_) epochs[id] = entry.epoch;
  return epochs;
}

std::vector<uint32_t> JobManager::EndingJobIds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, entry] : entries_) {
    if (entry.terminating) ids.push_back(id);
  }
  return ids;
}

std::vector<uint32_t> JobManager::LaunchedJobIds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, entry] : entries_) {
    if (entry.launched || entry.launching) ids.push_back(id);
  }
  return ids;
}

// ---- Start and stop ---------------------------------------------------------------------------

JobManager::Leftovers JobManager::TakeOverLeftovers() {
  std::vector<std::string> problems;
  std::vector<JobRecord> records = spool_.LoadRecords(&problems);
  for (const std::string& problem : problems) Log("spool: unreadable job record " + problem);
  Leftovers leftovers;
  std::vector<std::string> cgroups_seen;
  std::vector<uint32_t> held;
  auto end = [&](const std::string& what, uint32_t job_id, const JobProcesses& procs) {
    size_t live = LiveJobProcesses(procs).size();
    if (live > 0) {
      KillJobProcesses(procs);
      if (!WaitJobProcessesGone(procs, options_.unkillable_timeout)) {
        Log(what + ": processes survived SIGKILL");
      }
    }
    Log(what + ": left by a previous agent: killed " + std::to_string(live) + " process(es)");
    if (!procs.cgroup.empty()) (void)RemoveCgroup(procs.cgroup);
    if (limiter_) limiter_->Remove(job_id);
    ++leftovers.killed;
  };
  std::lock_guard<std::mutex> lock(mu_);
  for (JobRecord& record : records) {
    const std::string what =
        JobName(record.job_id) + " (epoch " + std::to_string(record.epoch) + ")";
    JobProcesses procs;
    procs.leader = record.pid;
    procs.leader_start = record.start_ticks;
    procs.cgroup = record.cgroup;
    procs.limit_cgroups = record.limit_cgroups;
    if (!procs.cgroup.empty()) cgroups_seen.push_back(procs.cgroup);
    // srun's tasks: their I/O went through the previous agent.
    for (const RecordedProcess& task : record.tasks) {
      if (Alive(task) && kill(-task.pid, SIGKILL) == 0) {
        Log(what + ": srun task " + std::to_string(task.pid) +
            " killed: its I/O went through the previous agent");
        ++leftovers.killed;
      }
    }
    record.tasks.clear();
    if (record.pid != 0 && record.keeper.pid == 0) {
      // The script was the previous agent's own child: nobody can tell how it ends.
      end(what, record.job_id, procs);
      spool_.RemoveRecord(record.job_id);
      continue;
    }
    Entry& entry = entries_[record.job_id];
    entry.job_id = record.job_id;
    entry.epoch = record.epoch;
    entry.prolog = PrologState::kDone;
    entry.launched = record.pid != 0 || !record.cgroup.empty();
    entry.procs = procs;
    entry.record = record;
    // srun steps under gantry-stepd go on: their I/O does not go through the agent.
    entry.record.steps.clear();
    for (const RecordedStep& step : record.steps) {
      const std::string control = spool_.StepControlPath(record.job_id, step.step_id);
      // gantry-stepd removes a step's FIFO as the step ends.
      if (!Alive(step.stepd) || access(control.c_str(), F_OK) != 0) continue;
      Result<std::shared_ptr<KeptStep>> kept = KeptStep::Open(control, /*create=*/false);
      if (!kept.ok()) {
        Log(what + ": srun step " + std::to_string(step.step_id) + " cannot be reached (" +
            kept.status().message() + "): it runs on uncontrolled");
        continue;
      }
      entry.record.steps.push_back(step);
      entry.steps.push_back(*kept);
      Log(what + ": srun step " + std::to_string(step.step_id) +
          " taken over from the previous agent (gantry-stepd pid " +
          std::to_string(step.stepd.pid) + ")");
      StartWorker([this, job_id = record.job_id, step, kept = *kept] {
        FollowKeptStep(job_id, step, kept);
      });
    }
    entry.launched = entry.launched || !entry.steps.empty();
    SaveRecordLocked(&entry);
    held.push_back(record.job_id);
    ++leftovers.adopted;
    const bool reported = access(spool_.ReportedPath(record.job_id).c_str(), F_OK) == 0;
    if (record.pid != 0 && !reported) {
      entry.batch_running = true;
      const bool ended = access(spool_.ExitPath(record.job_id).c_str(), F_OK) == 0;
      Log(what + ": taken over from the previous agent: its batch script (pid " +
          std::to_string(record.pid) + ", keeper " + std::to_string(record.keeper.pid) +
          (ended ? ") ended meanwhile" : ") goes on"));
      StartWorker([this, job_id = record.job_id, epoch = record.epoch, procs,
                   keeper = record.keeper] { WaitBatch(job_id, epoch, procs, keeper, true); });
    } else {
      Log(what + ": taken over from the previous agent");
    }
  }
  if (cgroups_) {
    for (const auto& [job_id, path] : cgroups_->ListJobs()) {
      if (std::find(cgroups_seen.begin(), cgroups_seen.end(), path) != cgroups_seen.end()) {
        continue;
      }
      JobProcesses procs;
      procs.cgroup = path;
      end(JobName(job_id) + " (cgroup " + path + ")", job_id, procs);
    }
  }
  for (uint32_t job_id : spool_.JobDirIds()) {
    if (std::find(held.begin(), held.end(), job_id) == held.end()) spool_.RemoveJobDir(job_id);
  }
  return leftovers;
}

void JobManager::Shutdown() {
  std::list<Worker> workers;
  {
    std::unique_lock<std::mutex> lock(mu_);
    shutting_down_ = true;
    const std::chrono::milliseconds kill_wait = std::chrono::seconds(settings_.kill_wait_sec);
    for (auto& [job_id, entry] : entries_) {
      if (!entry.terminating) BeginTerminateLocked(&entry, entry.epoch, kill_wait);
    }
    cv_.wait(lock, [&] { return busy_ == 0; });
    workers.swap(workers_);
  }
  for (Worker& worker : workers) worker.thread.join();
  if (stepd_) stepd_->Stop();  // every step has ended: its worker waited for it
}

}  // namespace gantry::agent
