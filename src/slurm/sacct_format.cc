#include "slurm/sacct_format.h"

#include <sys/wait.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/duration.h"
#include "text/hostlist.h"
#include "text/tres.h"

namespace gantry::slurm {
namespace {

using model::JobBaseState;
using Row = SacctRow;
using Ctx = SacctPrintContext;
using K = SacctValueKind;

// ---- Facts about a job record -------------------------------------------------------------

JobBaseState BaseOf(const v1::Job& job) { return StateOf(job).base; }

bool IsFinishedJob(const v1::Job& job) { return model::IsFinished(BaseOf(job)); }

// The end time, for finished jobs only (a running job's end_time is its expected end).
UnixTime EndOf(const v1::Job& job) { return IsFinishedJob(job) ? job.end_time() : 0; }

bool HasStarted(const v1::Job& job) { return job.start_time() > 0 && !IsPendingJob(job); }

bool HasBatchStep(const v1::Job& job) { return job.batch_flag() && HasStarted(job); }

// States the controller puts a job in by ending it (its script's status is not the job's).
bool EndedByController(JobBaseState base) {
  return base == JobBaseState::kCancelled || base == JobBaseState::kTimeout ||
         base == JobBaseState::kNodeFail || base == JobBaseState::kPreempted ||
         base == JobBaseState::kDeadline || base == JobBaseState::kBootFail;
}

int64_t ElapsedOf(const v1::Job& job, UnixTime now) {
  if (!HasStarted(job)) return 0;
  return std::max<int64_t>(0, TimeUsed(job, now));
}

uint32_t RequestedCpus(const v1::Job& job) {
  return TaskCount(job) * std::max<uint32_t>(1, job.request().cpus_per_task());
}

uint32_t RequestedNodes(const v1::Job& job) {
  return std::max<uint32_t>(1, job.request().min_nodes());
}

uint64_t RequestedMemMiB(const v1::Job& job) {
  const v1::JobRequest& r = job.request();
  if (r.mem_per_cpu_mb() > 0) return r.mem_per_cpu_mb() * RequestedCpus(job);
  if (r.mem_per_node_mb() > 0) return r.mem_per_node_mb() * RequestedNodes(job);
  return 0;
}

uint32_t NodesOf(const v1::Job& job) {
  return std::max<uint32_t>(1, static_cast<uint32_t>(job.nodes_size()));
}

uint32_t BatchCpus(const v1::Job& job) {
  return std::max<uint32_t>(1, CpuCount(job) / NodesOf(job));
}

// "code:signal" from a raw wait status, as sacct prints ExitCode (codes >= 128 lose 128).
std::string ExitText(int32_t status) {
  if (status < 0) return "0:0";
  int code = 0;
  int signal = 0;
  if (WIFSIGNALED(status)) {
    signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
  }
  if (code >= 128) code -= 128;
  return std::to_string(code) + ":" + std::to_string(signal);
}

struct StepEnd {
  std::string state;
  std::string exit_code;
};

// The batch step's state and exit code (see the header).
StepEnd BatchStepEnd(const v1::Job& job) {
  const JobBaseState base = BaseOf(job);
  if (!model::IsFinished(base)) {
    return {std::string(model::JobBaseStateName(base)), "0:0"};
  }
  const int32_t status = job.exit_status();
  if (base == JobBaseState::kOutOfMemory) return {"OUT_OF_MEMORY", ExitText(status)};
  // The controller ended it (scancel, time limit...): the script was killed, by SIGTERM unless
  // the recorded status names the signal. The job record keeps no later script status.
  if (EndedByController(base)) {
    return {"CANCELLED", status > 0 && WIFSIGNALED(status) ? ExitText(status) : "0:15"};
  }
  if (status >= 0) {
    if (WIFSIGNALED(status)) return {"CANCELLED", ExitText(status)};
    return {WEXITSTATUS(status) == 0 ? "COMPLETED" : "FAILED", ExitText(status)};
  }
  return {std::string(model::JobBaseStateName(base)), "0:0"};
}

// convert_num_unit2 with CONVERT_NUM_UNIT_EXACT and divisor 1024: "2000M", "8G", "62.50G";
// `no_convert` (--noconvert) keeps the original unit.
std::string ConvertNum(double num, int unit, bool no_convert) {
  static constexpr char kSacctFormatUnits[] = {'\0', 'K', 'M', 'G', 'T', 'P', '?'};
  if (static_cast<int64_t>(num) == 0) return "0";
  if (!no_convert) {
    while (num >= 1024 && static_cast<uint64_t>(num) % 512 == 0) {
      num /= 1024;
      ++unit;
    }
  }
  if (unit < 0 || unit > 5) unit = 6;
  const uint64_t whole = static_cast<uint64_t>(num);
  char buf[64];
  if (static_cast<double>(whole) == num) {
    std::snprintf(buf, sizeof(buf), "%" PRIu64, whole);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f", num);
  }
  std::string out = buf;
  if (kSacctFormatUnits[unit] != '\0') out += kSacctFormatUnits[unit];
  return out;
}

constexpr int kUnitNone = 0;
constexpr int kUnitKilo = 1;
constexpr int kUnitMega = 2;

// A TRES list sorted by name, zero counts left out, memory in sacct's units.
std::string SacctFormatTresText(std::vector<text::TresCount> counts, bool no_convert) {
  std::sort(counts.begin(), counts.end(), [](const text::TresCount& a, const text::TresCount& b) {
    return a.key.ToString() < b.key.ToString();
  });
  std::string out;
  for (const text::TresCount& c : counts) {
    if (c.count == 0) continue;
    if (!out.empty()) out += ',';
    out += c.key.ToString() + "=";
    out += text::TresTypeIsMemory(c.key.type)
               ? ConvertNum(static_cast<double>(c.count), kUnitMega, no_convert)
               : std::to_string(c.count);
  }
  return out;
}

std::vector<text::TresCount> AllocatedTres(const v1::Job& job) {
  Result<std::vector<text::TresCount>> counts = text::ParseTresCounts(Tres(job));
  return counts.ok() ? std::move(counts).value() : std::vector<text::TresCount>{};
}

std::string DateText(UnixTime t, const Ctx& ctx) {
  return TimeText(t, ctx.tz != nullptr ? *ctx.tz : TimeZone::Utc(), "Unknown");
}

std::string Number(int64_t n) { return std::to_string(n); }

// Seconds a line's job or step ran (until now while it runs).
int64_t RowElapsed(const Row& r, UnixTime now) {
  if (r.step == nullptr) return ElapsedOf(*r.job, now);
  const UnixTime end = r.step->end_time() != 0 ? r.step->end_time() : now;
  return std::max<int64_t>(0, end - r.step->start_time());
}

// ".batch" or ".<step id>" after the job id, "" for the job's own line.
std::string StepSuffix(const Row& r) {
  if (r.step != nullptr) return "." + std::to_string(r.step->step_id());
  return r.batch_step ? ".batch" : "";
}

// ---- Field values -------------------------------------------------------------------------

std::string Account(const Row& r, const Ctx&) { return r.job->request().account(); }

std::string AllocCpus(const Row& r, const Ctx&) {
  if (r.step != nullptr) return Number(r.step->num_cpus());
  return Number(r.batch_step ? BatchCpus(*r.job) : CpuCount(*r.job));
}

std::string AllocNodes(const Row& r, const Ctx& ctx) {
  const double n = r.batch_step ? 1 : r.job->nodes_size();
  return ConvertNum(n, kUnitNone, ctx.no_convert);
}

std::string AllocTres(const Row& r, const Ctx& ctx) {
  const v1::Job& job = *r.job;
  if (!HasStarted(job)) return "";
  std::vector<text::TresCount> counts = AllocatedTres(job);
  if (r.batch_step) {
    std::vector<text::TresCount> per_node;
    for (text::TresCount c : counts) {
      if (c.key.type == "billing") continue;
      if (c.key.type == "cpu") {
        c.count = BatchCpus(job);
      } else if (c.key.type == "node") {
        c.count = 1;
      } else {
        c.count /= NodesOf(job);
      }
      per_node.push_back(c);
    }
    counts = std::move(per_node);
  }
  return SacctFormatTresText(std::move(counts), ctx.no_convert);
}

std::string Cluster(const Row&, const Ctx& ctx) { return ctx.cluster; }

std::string Comment(const Row& r, const Ctx&) {
  return r.batch_step ? "" : r.job->request().comment();
}

std::string Constraints(const Row& r, const Ctx&) {
  return r.batch_step ? "" : r.job->request().features();
}

int64_t RowCpus(const Row& r) {
  if (r.step != nullptr) return r.step->num_cpus();
  return r.batch_step ? BatchCpus(*r.job) : CpuCount(*r.job);
}

std::string CpuTimeRaw(const Row& r, const Ctx& ctx) {
  return Number(RowElapsed(r, ctx.now) * RowCpus(r));
}

std::string CpuTime(const Row& r, const Ctx& ctx) {
  return text::FormatDurationSeconds(RowElapsed(r, ctx.now) * RowCpus(r));
}

std::string DerivedExitCode(const Row& r, const Ctx&) {
  if (r.batch_step) return "";
  const int32_t status = r.job->derived_exit_status();
  int code = 0;
  int signal = 0;
  if (status > 0 && WIFSIGNALED(status)) {
    signal = WTERMSIG(status);
  } else if (status > 0 && WIFEXITED(status)) {
    code = WEXITSTATUS(status);
  }
  return std::to_string(code) + ":" + std::to_string(signal);
}

// The batch script's usage on the job's line and its batch line; nothing for srun steps or
// before the script ended.
// What a line used: the job's and the batch line's from the batch script (its usage includes
// the srun steps it waited for), a step's from srun.
const v1::JobUsage* SacctFormatUsageOf(const Row& r) {
  if (r.step != nullptr) return r.step->has_usage() ? &r.step->usage() : nullptr;
  return r.job->has_batch_usage() ? &r.job->batch_usage() : nullptr;
}

// CPU time as sacct prints it: "MM:SS.mmm" under an hour, "HH:MM:SS", "D-HH:MM:SS".
std::string CpuText(int64_t usec) {
  const int64_t secs = usec / 1000000;
  const int64_t days = secs / 86400;
  const int64_t hours = secs / 3600 % 24;
  const int64_t minutes = secs / 60 % 60;
  char buf[48];
  if (days > 0) {
    std::snprintf(buf, sizeof(buf), "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes),
                  static_cast<long long>(secs % 60));
  } else if (hours > 0) {
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld.%03lld", static_cast<long long>(minutes),
                  static_cast<long long>(secs % 60), static_cast<long long>(usec % 1000000 / 1000));
  }
  return buf;
}

std::string TotalCpu(const Row& r, const Ctx&) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  return u == nullptr ? "" : CpuText(u->user_cpu_usec() + u->system_cpu_usec());
}
std::string UserCpu(const Row& r, const Ctx&) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  return u == nullptr ? "" : CpuText(u->user_cpu_usec());
}
std::string SystemCpu(const Row& r, const Ctx&) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  return u == nullptr ? "" : CpuText(u->system_cpu_usec());
}
// Per-task amounts (MaxRSS, MaxVMSize, AveRSS, AveVMSize in KiB; MaxDiskRead/Write in bytes)
// and where they were: on the batch line and step lines, converted as sacct does ("317908K",
// "200M" when it is a whole number of MiB). `sampled` fields need samples (a step has only
// its rusage: MaxRSS).
template <int64_t (v1::JobUsage::*field)() const, int unit, bool sampled = true>
std::string TaskAmount(const Row& r, const Ctx& ctx) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  if (u == nullptr || (!r.batch_step && r.step == nullptr) || (sampled && !u->sampled())) {
    return "";
  }
  return ConvertNum(static_cast<double>((u->*field)()), unit, ctx.no_convert);
}
std::string TaskNode(const Row& r, const Ctx&) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  if (u == nullptr || (!r.batch_step && r.step == nullptr)) return "";
  if (r.step != nullptr) return r.step->node();
  return r.job->nodes().empty() ? "" : r.job->nodes(0);
}
std::string TaskTask(const Row& r, const Ctx&) {
  const v1::JobUsage* u = SacctFormatUsageOf(r);
  return u == nullptr || (!r.batch_step && r.step == nullptr) ? "" : "0";
}

std::string ElapsedText(const Row& r, const Ctx& ctx) {
  return text::FormatDurationSeconds(RowElapsed(r, ctx.now));
}

std::string ElapsedRaw(const Row& r, const Ctx& ctx) { return Number(RowElapsed(r, ctx.now)); }

// A step line's start, else the batch line's (the job's start), else the job's field.
UnixTime StepStart(const Row& r, UnixTime job_value) {
  if (r.step != nullptr) return r.step->start_time();
  return r.batch_step ? r.job->start_time() : job_value;
}

std::string Eligible(const Row& r, const Ctx& ctx) {
  return DateText(StepStart(r, r.job->eligible_time()), ctx);
}

std::string End(const Row& r, const Ctx& ctx) {
  return DateText(r.step != nullptr ? r.step->end_time() : EndOf(*r.job), ctx);
}

std::string ExitCode(const Row& r, const Ctx&) {
  if (r.step != nullptr) return r.step->exit_status() < 0 ? "0:0" : ExitText(r.step->exit_status());
  if (r.batch_step) return BatchStepEnd(*r.job).exit_code;
  const JobBaseState base = BaseOf(*r.job);
  if (!model::IsFinished(base) || EndedByController(base)) return "0:0";
  return ExitText(r.job->exit_status());
}

std::string Gid(const Row& r, const Ctx&) { return r.batch_step ? "" : Number(r.job->group_id()); }

std::string Group(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  if (!r.job->group_name().empty()) return r.job->group_name();
  if (ctx.group_name) return ctx.group_name(r.job->group_id()).value_or("");
  return "";
}

std::string JobId(const Row& r, const Ctx&) { return JobIdText(*r.job) + StepSuffix(r); }

std::string JobIdRaw(const Row& r, const Ctx&) {
  return std::to_string(r.job->job_id()) + StepSuffix(r);
}

std::string JobName(const Row& r, const Ctx&) {
  if (r.step != nullptr) return r.step->name();
  return r.batch_step ? "batch" : r.job->request().name();
}

std::string SacctFormatLayout(const Row& r, const Ctx&) { return r.batch_step ? "Unknown" : ""; }

std::string NNodes(const Row& r, const Ctx&) {
  if (r.step != nullptr) return Number(std::max(r.step->nodes_size(), 1));
  return Number(r.batch_step ? 1 : NodeCount(*r.job));
}

std::string NodeListText(const Row& r, const Ctx&) {
  if (r.step != nullptr) {
    if (r.step->nodes().empty()) return r.step->node();
    return text::CompressHostlistSorted(
        std::vector<std::string>(r.step->nodes().begin(), r.step->nodes().end()));
  }
  const v1::Job& job = *r.job;
  if (job.nodes_size() == 0) return r.batch_step ? "" : "None assigned";
  return r.batch_step ? job.nodes(0) : NodeList(job);
}

std::string NTasks(const Row& r, const Ctx&) {
  if (r.step != nullptr) return Number(r.step->num_tasks());
  return r.batch_step ? "1" : "";
}

std::string Partition(const Row& r, const Ctx&) {
  if (r.batch_step) return "";
  const v1::Job& job = *r.job;
  if (IsPendingJob(job) && job.request().partitions_size() > 1) {
    std::string out;
    for (const std::string& p : job.request().partitions()) out += (out.empty() ? "" : ",") + p;
    return out;
  }
  return job.partition();
}

std::string Priority(const Row& r, const Ctx&) {
  return r.batch_step ? "" : Number(r.job->priority());
}

std::string Qos(const Row& r, const Ctx&) { return r.batch_step ? "" : r.job->request().qos(); }

std::string ReasonText(const Row& r, const Ctx&) {
  if (r.batch_step) return "";
  return r.job->reason().empty() ? "None" : r.job->reason();
}

std::string ReqCpuFreq(const Row& r, const Ctx&) { return r.batch_step ? "0" : "Unknown"; }

std::string ReqCpus(const Row& r, const Ctx&) {
  return Number(r.batch_step ? BatchCpus(*r.job) : RequestedCpus(*r.job));
}

std::string ReqMem(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  const uint64_t mib = RequestedMemMiB(*r.job);
  return mib == 0 ? "" : ConvertNum(static_cast<double>(mib), kUnitMega, ctx.no_convert);
}

std::string ReqNodesText(const Row& r, const Ctx& ctx) {
  return ConvertNum(r.batch_step ? 1 : RequestedNodes(*r.job), kUnitNone, ctx.no_convert);
}

std::string ReqTres(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  const v1::Job& job = *r.job;
  const int64_t cpus = RequestedCpus(job);
  const int64_t nodes = RequestedNodes(job);
  // The billing the record keeps: what the job asked for until it started, then what it held.
  std::vector<text::TresCount> counts = {
      {{"billing", ""}, job.has_billing() ? BillingCount(job) : cpus},
      {{"cpu", ""}, cpus},
      {{"mem", ""}, static_cast<int64_t>(RequestedMemMiB(job))},
      {{"node", ""}, nodes},
  };
  if (const uint64_t gres = GresCount(job.request().gres()); gres > 0) {
    counts.push_back(
        {{"gres", GresName(job.request().gres())}, static_cast<int64_t>(gres) * nodes});
  }
  return SacctFormatTresText(std::move(counts), ctx.no_convert);
}

// Reserved: how long the job waited once eligible (until now while pending).
std::optional<int64_t> ReservedSeconds(const v1::Job& job, UnixTime now) {
  if (job.eligible_time() == 0) return 0;
  if (job.start_time() > 0) return job.start_time() - job.eligible_time();
  if (IsFinishedJob(job)) return std::nullopt;  // never started: Slurm prints garbage
  return now - job.eligible_time();
}

std::string Reserved(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  const std::optional<int64_t> s = ReservedSeconds(*r.job, ctx.now);
  return s ? text::FormatDurationSeconds(*s) : "";
}

std::string ResvCpu(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  const std::optional<int64_t> s = ReservedSeconds(*r.job, ctx.now);
  return s ? text::FormatDurationSeconds(*s * RequestedCpus(*r.job)) : "";
}

std::string ResvCpuRaw(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  const std::optional<int64_t> s = ReservedSeconds(*r.job, ctx.now);
  return s && *s >= 0 ? Number(*s * RequestedCpus(*r.job)) : "";
}

std::string Start(const Row& r, const Ctx& ctx) {
  if (r.step != nullptr) return DateText(r.step->start_time(), ctx);
  const v1::Job& job = *r.job;
  if (job.start_time() == 0 && EndOf(job) != 0) return "None";
  return DateText(job.start_time(), ctx);
}

std::string StateText(const Row& r, const Ctx&) {
  if (r.step != nullptr) {
    return std::string(model::JobBaseStateName(static_cast<JobBaseState>(
        std::min<uint32_t>(r.step->state(), model::kJobBaseStateCount - 1))));
  }
  if (r.batch_step) return BatchStepEnd(*r.job).state;
  const JobBaseState base = BaseOf(*r.job);
  // A requeued job's earlier run (sacct -D): REQUEUED.
  if ((r.job->state_flags() & static_cast<uint32_t>(model::JobFlag::kRequeue)) != 0) {
    return "REQUEUED";
  }
  std::string out(model::JobBaseStateName(base));
  if (base == JobBaseState::kCancelled && r.job->has_cancelled_by_uid()) {
    out += " by " + std::to_string(r.job->cancelled_by_uid());
  }
  return out;
}

std::string Submit(const Row& r, const Ctx& ctx) {
  return DateText(StepStart(r, r.job->submit_time()), ctx);
}

// Every second the job spent suspended. pre_suspend_secs is the time it ran until its last
// suspend (or, once resumed, until its last resume), and suspend_time is that moment: what is
// not run time between the start and then was spent suspended.
std::string Suspended(const Row& r, const Ctx& ctx) {
  const v1::Job& job = *r.job;
  int64_t secs = 0;
  if (job.suspend_time() > 0 && job.start_time() > 0) {
    const UnixTime until = BaseOf(job) == JobBaseState::kSuspended ? ctx.now : job.suspend_time();
    secs = std::max<int64_t>(0, until - job.start_time() - job.pre_suspend_secs());
  }
  return text::FormatDurationSeconds(secs);
}

// The time limit in minutes as the record shows it: until the job starts, what was asked for
// (0: the partition's).
uint32_t LimitOf(const v1::Job& job) {
  return HasStarted(job) || IsFinishedJob(job) ? job.time_limit_min()
                                               : job.request().time_limit_min();
}

std::string Timelimit(const Row& r, const Ctx&) {
  if (r.batch_step) return "";
  const uint32_t limit = LimitOf(*r.job);
  if (limit == kInfiniteMinutes) return "UNLIMITED";
  if (limit == 0) return "Partition_Limit";
  return text::FormatDurationMinutes(limit);
}

std::string TimelimitRaw(const Row& r, const Ctx&) {
  if (r.batch_step) return "";
  const uint32_t limit = LimitOf(*r.job);
  if (limit == kInfiniteMinutes) return "UNLIMITED";
  if (limit == 0) return "Partition_Limit";
  return Number(limit);
}

std::string Uid(const Row& r, const Ctx&) { return r.batch_step ? "" : Number(r.job->user_id()); }

std::string User(const Row& r, const Ctx& ctx) {
  if (r.batch_step) return "";
  if (!r.job->user_name().empty()) return r.job->user_name();
  if (ctx.user_name) return ctx.user_name(r.job->user_id()).value_or("");
  return "";
}

std::string WorkDir(const Row& r, const Ctx&) {
  return r.batch_step ? "" : r.job->request().work_dir();
}

// Slurm 22.05's table: names, widths (negative: left-justified) and how values are cut.
constexpr SacctField kSacctFormatFields[] = {
    {"Account", 10, K::kText, Account},
    {"AdminComment", 15, K::kText, nullptr},
    {"AllocCPUS", 10, K::kNumber, AllocCpus},
    {"AllocNodes", 10, K::kText, AllocNodes},
    {"AllocTRES", 10, K::kText, AllocTres},
    {"AssocID", 7, K::kNumber, nullptr},
    {"AveCPU", 10, K::kText, nullptr},
    {"AveCPUFreq", 10, K::kText, nullptr},
    {"AveDiskRead", 14, K::kText, nullptr},
    {"AveDiskWrite", 14, K::kText, nullptr},
    {"AvePages", 10, K::kText, nullptr},
    {"AveRSS", 10, K::kText, TaskAmount<&v1::JobUsage::ave_rss_kib, kUnitKilo>},
    {"AveVMSize", 10, K::kText, TaskAmount<&v1::JobUsage::ave_vmsize_kib, kUnitKilo>},
    {"BlockID", 16, K::kText, nullptr},
    {"Cluster", 10, K::kText, Cluster},
    {"Comment", 14, K::kText, Comment},
    {"Constraints", 19, K::kText, Constraints},
    {"ConsumedEnergy", 14, K::kText, nullptr},
    {"ConsumedEnergyRaw", 17, K::kNumber, nullptr},
    {"Container", 19, K::kText, nullptr},
    {"CPUTime", 10, K::kNumber, CpuTime},
    {"CPUTimeRAW", 10, K::kNumber, CpuTimeRaw},
    {"DBIndex", -10, K::kNumber, nullptr},
    {"DerivedExitCode", 15, K::kText, DerivedExitCode},
    {"Elapsed", 10, K::kNumber, ElapsedText},
    {"ElapsedRaw", 10, K::kNumber, ElapsedRaw},
    {"Eligible", 19, K::kDate, Eligible},
    {"End", 19, K::kDate, End},
    {"ExitCode", 8, K::kText, ExitCode},
    {"Flags", 19, K::kText, nullptr},
    {"GID", 6, K::kNumber, Gid},
    {"Group", 9, K::kText, Group},
    {"JobID", -12, K::kText, JobId},
    {"JobIDRaw", -12, K::kText, JobIdRaw},
    {"JobName", 10, K::kText, JobName},
    {"Layout", 9, K::kText, SacctFormatLayout},
    {"MaxDiskRead", 12, K::kText, TaskAmount<&v1::JobUsage::disk_read_bytes, kUnitNone>},
    {"MaxDiskReadNode", 15, K::kText, TaskNode},
    {"MaxDiskReadTask", 15, K::kNumber, TaskTask},
    {"MaxDiskWrite", 12, K::kText, TaskAmount<&v1::JobUsage::disk_write_bytes, kUnitNone>},
    {"MaxDiskWriteNode", 16, K::kText, TaskNode},
    {"MaxDiskWriteTask", 16, K::kNumber, TaskTask},
    {"MaxPages", 8, K::kText, nullptr},
    {"MaxPagesNode", 12, K::kText, nullptr},
    {"MaxPagesTask", 14, K::kNumber, nullptr},
    {"MaxRSS", 10, K::kText, TaskAmount<&v1::JobUsage::max_rss_kib, kUnitKilo, false>},
    {"MaxRSSNode", 10, K::kText, TaskNode},
    {"MaxRSSTask", 10, K::kNumber, TaskTask},
    {"MaxVMSize", 10, K::kText, TaskAmount<&v1::JobUsage::max_vmsize_kib, kUnitKilo>},
    {"MaxVMSizeNode", 14, K::kText, TaskNode},
    {"MaxVMSizeTask", 14, K::kNumber, TaskTask},
    {"McsLabel", 12, K::kText, nullptr},
    {"MinCPU", 10, K::kText, nullptr},
    {"MinCPUNode", 10, K::kText, nullptr},
    {"MinCPUTask", 10, K::kNumber, nullptr},
    {"NCPUS", 10, K::kNumber, AllocCpus},
    {"NNodes", 8, K::kNumber, NNodes},
    {"NodeList", 15, K::kText, NodeListText},
    {"NTasks", 8, K::kNumber, NTasks},
    {"Partition", 10, K::kText, Partition},
    {"Priority", 10, K::kNumber, Priority},
    {"QOS", 10, K::kText, Qos},
    {"QOSRAW", 6, K::kNumber, nullptr},
    {"Reason", 22, K::kText, ReasonText},
    {"ReqCPUFreq", 10, K::kText, ReqCpuFreq},
    {"ReqCPUFreqGov", 13, K::kText, ReqCpuFreq},
    {"ReqCPUFreqMax", 13, K::kText, ReqCpuFreq},
    {"ReqCPUFreqMin", 13, K::kText, ReqCpuFreq},
    {"ReqCPUS", 8, K::kNumber, ReqCpus},
    {"ReqMem", 10, K::kText, ReqMem},
    {"ReqNodes", 8, K::kText, ReqNodesText},
    {"ReqTRES", 10, K::kText, ReqTres},
    {"Reservation", 20, K::kText, nullptr},
    {"ReservationId", 8, K::kNumber, nullptr},
    {"Reserved", 10, K::kNumber, Reserved},
    {"ResvCPU", 10, K::kNumber, ResvCpu},
    {"ResvCPURAW", 10, K::kNumber, ResvCpuRaw},
    {"Start", 19, K::kDate, Start},
    {"State", 10, K::kText, StateText},
    {"Submit", 19, K::kDate, Submit},
    {"SubmitLine", 20, K::kText, nullptr},
    {"Suspended", 10, K::kNumber, Suspended},
    {"SystemComment", 15, K::kText, nullptr},
    {"SystemCPU", 10, K::kText, SystemCpu},
    {"Timelimit", 10, K::kText, Timelimit},
    {"TimelimitRaw", 10, K::kText, TimelimitRaw},
    {"TotalCPU", 10, K::kText, TotalCpu},
    {"TRESUsageInAve", 14, K::kText, nullptr},
    {"TRESUsageInMax", 14, K::kText, nullptr},
    {"TRESUsageInMaxNode", 18, K::kText, nullptr},
    {"TRESUsageInMaxTask", 18, K::kText, nullptr},
    {"TRESUsageInMin", 14, K::kText, nullptr},
    {"TRESUsageInMinNode", 18, K::kText, nullptr},
    {"TRESUsageInMinTask", 18, K::kText, nullptr},
    {"TRESUsageInTot", 14, K::kText, nullptr},
    {"TRESUsageOutAve", 15, K::kText, nullptr},
    {"TRESUsageOutMax", 15, K::kText, nullptr},
    {"TRESUsageOutMaxNode", 19, K::kText, nullptr},
    {"TRESUsageOutMaxTask", 19, K::kText, nullptr},
    {"TRESUsageOutMin", 15, K::kText, nullptr},
    {"TRESUsageOutMinNode", 19, K::kText, nullptr},
    {"TRESUsageOutMinTask", 19, K::kText, nullptr},
    {"TRESUsageOutTot", 15, K::kText, nullptr},
    {"UID", 6, K::kNumber, Uid},
    {"User", 9, K::kText, User},
    {"UserCPU", 10, K::kText, UserCpu},
    {"WCKey", 10, K::kText, nullptr},
    {"WCKeyID", 10, K::kNumber, nullptr},
    {"WorkDir", 20, K::kText, WorkDir},
};

// ---- Rendering helpers --------------------------------------------------------------------

std::string SacctFormatPad(std::string s, int width) {
  const size_t abs_width = static_cast<size_t>(width < 0 ? -width : width);
  if (s.size() >= abs_width) return s;
  const std::string fill(abs_width - s.size(), ' ');
  return width < 0 ? s + fill : fill + s;
}

std::string Cut(std::string s, int width) {
  const size_t abs_width = static_cast<size_t>(width < 0 ? -width : width);
  if (s.size() > abs_width) s.resize(abs_width);
  return s;
}

// One fixed-width cell without its trailing space (print_fields_str/uint/date).
std::string FixedCell(const std::string& value, int width, SacctValueKind kind) {
  const size_t abs_width = static_cast<size_t>(width < 0 ? -width : width);
  switch (kind) {
    case K::kText: {
      if (value.empty()) return SacctFormatPad(Cut(" ", width), width);
      std::string s = value;
      if (s.size() > abs_width) {
        s.resize(abs_width);
        if (abs_width > 0) s[abs_width - 1] = '+';
      }
      return SacctFormatPad(s, width);
    }
    case K::kNumber:
      return SacctFormatPad(value.empty() ? " " : value, width);
    case K::kDate:
      return SacctFormatPad(Cut(value, width), width);
  }
  return value;
}

// C's atoi: blanks, a sign, digits; anything else ends the number.
int AtoI(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && text::IsAsciiSpace(s[i])) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  int64_t n = 0;
  while (i < s.size() && text::IsAsciiDigit(s[i]) && n < INT_MAX) n = n * 10 + (s[i++] - '0');
  n = std::min<int64_t>(n, INT_MAX);
  return static_cast<int>(negative ? -n : n);
}

bool SacctFormatContains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Whether the job was in one of the -s states during the window (slurmdbd's state conditions).
bool InStateDuring(const v1::Job& job, const model::JobStateSelector& s, const SacctWindow& w) {
  const UnixTime end = EndOf(job);
  if (s.is_flag) {
    return StateOf(job).Has(s.flag) && job.submit_time() <= w.end && (end == 0 || end >= w.start);
  }
  switch (s.base) {
    case JobBaseState::kPending: {
      if (job.eligible_time() == 0 || job.eligible_time() > w.end) return false;
      UnixTime stop = job.start_time() > 0 ? job.start_time() : end;
      if (stop == 0) stop = std::numeric_limits<UnixTime>::max();
      return stop >= w.start;
    }
    case JobBaseState::kRunning:
    case JobBaseState::kSuspended:
      return job.start_time() > 0 && job.start_time() <= w.end && (end == 0 || end >= w.start);
    default:
      return BaseOf(job) == s.base && end > 0 && end >= w.start && end <= w.end;
  }
}

bool MatchesFilter(const v1::Job& job, const SacctFilter& f) {
  if (!f.user_ids.empty() &&
      std::find(f.user_ids.begin(), f.user_ids.end(), job.user_id()) == f.user_ids.end()) {
    return false;
  }
  if (!f.names.empty() && !SacctFormatContains(f.names, job.request().name())) return false;
  if (!f.accounts.empty() && !SacctFormatContains(f.accounts, job.request().account()))
    return false;
  if (!f.qos.empty()) {
    const bool found = std::any_of(f.qos.begin(), f.qos.end(), [&](const std::string& q) {
      return text::EqualsIgnoreCase(q, job.request().qos());
    });
    if (!found) return false;
  }
  if (!f.partitions.empty()) {
    bool found = SacctFormatContains(f.partitions, job.partition());
    for (const std::string& p : job.request().partitions())
      found = found || SacctFormatContains(f.partitions, p);
    if (!found) return false;
  }
  if (!f.nodes.empty()) {
    const bool found =
        std::any_of(job.nodes().begin(), job.nodes().end(),
                    [&](const std::string& n) { return SacctFormatContains(f.nodes, n); });
    if (!found) return false;
  }
  const SacctWindow& w = f.window;
  if (!f.states.empty()) {
    return std::any_of(f.states.begin(), f.states.end(),
                       [&](const model::JobStateSelector& s) { return InStateDuring(job, s, w); });
  }
  const UnixTime end = EndOf(job);
  if (end != 0 && end < w.start) return false;
  if (f.jobs_given) return job.submit_time() <= w.end;
  return job.eligible_time() > 0 && job.eligible_time() <= w.end;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), text::IsAsciiDigit);
}

}  // namespace

std::span<const SacctField> SacctFields() { return kSacctFormatFields; }

std::string SacctHelpFormat() {
  std::string out;
  char buf[64];
  size_t i = 0;
  for (const SacctField& f : kSacctFormatFields) {
    if ((i & 3) != 0) {
      out += ' ';
    } else if (i != 0) {
      out += '\n';
    }
    std::snprintf(buf, sizeof(buf), "%-19.*s", static_cast<int>(f.name.size()), f.name.data());
    out += buf;
    ++i;
  }
  return out + "\n";
}

SacctFormat ParseSacctFormat(std::string_view list) {
  std::string text(list);
  if (text.empty() || text.back() != ',') text += ',';
  std::vector<size_t> picked;  // field indices, in order
  std::vector<std::optional<int>> widths(std::size(kSacctFormatFields));
  size_t start = 0;
  for (size_t comma = text.find(',', start); comma != std::string::npos;
       comma = text.find(',', start)) {
    std::string_view item(text.data() + start, comma - start);
    while (!item.empty() && text::IsAsciiSpace(item.front())) item.remove_prefix(1);
    if (item.empty()) break;  // Slurm's parser stops at an empty item
    std::optional<int> width;
    if (const size_t pct = item.find('%'); pct != std::string_view::npos) {
      width = AtoI(item.substr(pct + 1));
      item = item.substr(0, pct);
    }
    const bool all = item.size() <= 3 && text::StartsWithIgnoreCase("ALL", item);
    std::optional<size_t> found;
    for (size_t i = 0; !all && !found && i < std::size(kSacctFormatFields); ++i) {
      if (text::StartsWithIgnoreCase(kSacctFormatFields[i].name, item)) found = i;
    }
    if (all) {
      for (size_t i = 0; i < std::size(kSacctFormatFields); ++i) {
        picked.push_back(i);
        if (width) widths[i] = width;
      }
    } else if (found) {
      picked.push_back(*found);
      if (width) widths[*found] = width;
    } else if (text::EqualsIgnoreCase(item, "AllocGRES")) {
      return {{}, "sacct: fatal: AllocGRES has been removed, please use AllocTRES"};
    } else if (text::EqualsIgnoreCase(item, "ReqGRES")) {
      return {{}, "sacct: fatal: ReqGRES has been removed, please use ReqTRES"};
    } else {
      return {{}, "sacct: error: Invalid field requested: \"" + std::string(item) + "\""};
    }
    start = comma + 1;
  }
  SacctFormat format;
  for (size_t i : picked) {
    format.columns.push_back(
        {&kSacctFormatFields[i], widths[i].value_or(kSacctFormatFields[i].width)});
  }
  return format;
}

std::string RenderSacctHeader(std::span<const SacctColumn> columns, const SacctOutput& output) {
  std::string out;
  if (output.layout != SacctLayout::kFixed) {
    for (size_t i = 0; i < columns.size(); ++i) {
      out += columns[i].field->name;
      if (output.layout == SacctLayout::kParsable || i + 1 < columns.size()) {
        out += output.delimiter;
      }
    }
    return out + "\n";
  }
  std::string dashes;
  for (const SacctColumn& c : columns) {
    out += SacctFormatPad(Cut(std::string(c.field->name), c.width), c.width) + " ";
    dashes += std::string(static_cast<size_t>(std::abs(c.width)), '-') + " ";
  }
  return out + "\n" + dashes + "\n";
}

std::string RenderSacctLine(std::span<const SacctColumn> columns, const SacctRow& row,
                            const SacctPrintContext& ctx, const SacctOutput& output) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    const SacctField& f = *columns[i].field;
    const std::string value = f.value != nullptr ? f.value(row, ctx) : "";
    if (output.layout == SacctLayout::kFixed) {
      out += FixedCell(value, columns[i].width, f.kind) + " ";
    } else {
      out += value;
      if (output.layout == SacctLayout::kParsable || i + 1 < columns.size()) {
        out += output.delimiter;
      }
    }
  }
  return out + "\n";
}

Result<std::vector<SacctJobSelector>> ParseSacctJobList(std::string_view text) {
  std::vector<SacctJobSelector> out;
  for (std::string_view item : text::Split(text, ',')) {
    if (item.empty()) continue;
    const size_t mark = item.find_first_of("._+");
    const std::string_view id_text = item.substr(0, mark);
    if (!AllDigits(id_text) || id_text.size() > 10 ||
        std::stoull(std::string(id_text)) > 0xFFFFFFFFull) {
      return InvalidArgument("Bad job/step specified: " + std::string(item));
    }
    SacctJobSelector s;
    s.job_id = static_cast<uint32_t>(std::stoul(std::string(id_text)));
    if (mark != std::string_view::npos) {
      const char kind = item[mark];
      std::string_view rest = item.substr(mark + 1);
      std::string_view step;
      if (kind == '_' || kind == '+') {
        const size_t dot = rest.find('.');
        const std::string_view index = rest.substr(0, dot);
        if (index.empty() || !text::IsAsciiDigit(index.front())) {
          return InvalidArgument(kind == '+'
                                     ? "Bad hetjob offset specified: " + std::string(id_text)
                                     : "Bad job/step specified: " + std::string(item));
        }
        if (kind == '_' && AllDigits(index) && index.size() <= 9) {
          s.array_task = static_cast<uint32_t>(std::stoul(std::string(index)));
        } else {
          s.part = SacctJobSelector::Part::kNone;  // Gantry has no hetjobs
        }
        if (dot != std::string_view::npos) step = rest.substr(dot + 1);
      } else {
        step = rest;
      }
      if (kind == '.' || !step.empty()) {
        const bool named = step == "batch" || step == "extern" || step == "interactive";
        if (!named && !AllDigits(step)) {
          return InvalidArgument("Bad step specified: " + std::string(id_text));
        }
        if (s.part == SacctJobSelector::Part::kJob) {
          if (step == "batch") {
            s.part = SacctJobSelector::Part::kBatch;
          } else if (AllDigits(step) && step.size() <= 9) {
            s.part = SacctJobSelector::Part::kStep;
            s.step_id = static_cast<uint32_t>(std::stoul(std::string(step)));
          } else {
            s.part = SacctJobSelector::Part::kNone;
          }
        }
      }
    }
    out.push_back(s);
  }
  return out;
}

Result<std::vector<model::JobStateSelector>> ParseSacctStates(std::string_view text) {
  std::vector<model::JobStateSelector> out;
  for (std::string_view item : text::Split(text, ',')) {
    if (item.empty()) continue;
    Result<model::JobStateSelector> s = model::ParseJobStateSelector(item);
    if (!s.ok()) {
      return InvalidArgument("unrecognized job state value '" + std::string(item) + "'");
    }
    if (!model::SacctSupportsJobState(*s)) {
      return InvalidArgument("job state " + std::string(item) + " is not supported / accounted");
    }
    if (std::find(out.begin(), out.end(), *s) == out.end()) out.push_back(*s);
  }
  return out;
}

Result<SacctWindow> ComputeSacctWindow(std::optional<UnixTime> start, std::optional<UnixTime> end,
                                       bool jobs_given, bool states_given, UnixTime now,
                                       const TimeZone& tz) {
  SacctWindow w;
  if (start) {
    w.start = *start;
  } else if (jobs_given) {
    w.start = 0;
  } else if (states_given) {
    w.start = now;
  } else {
    const CivilTime today = tz.ToCivil(now);
    w.start = tz.FromCivil({today.year, today.month, today.day, 0, 0, 0});
  }
  if (end) {
    w.end = *end;
  } else if (states_given && start) {
    w.end = *start;
  } else {
    w.end = now;
  }
  if (w.start > w.end) {
    return InvalidArgument("Start time (" + text::FormatIsoTime(w.start, tz) +
                           ") requested is after end time (" + text::FormatIsoTime(w.end, tz) +
                           ").");
  }
  return w;
}

std::vector<SacctRow> SelectSacctRows(std::span<const v1::Job> jobs, const SacctFilter& filter) {
  std::vector<const v1::Job*> pointers;
  pointers.reserve(jobs.size());
  for (const v1::Job& job : jobs) pointers.push_back(&job);
  return SelectSacctRows(pointers, filter);
}

std::vector<SacctRow> SelectSacctRows(const std::vector<const v1::Job*>& jobs,
                                      const SacctFilter& filter) {
  const bool every_id =
      filter.jobs.empty() || std::any_of(filter.jobs.begin(), filter.jobs.end(),
                                         [](const SacctJobSelector& s) { return s.job_id == 0; });
  std::vector<SacctRow> rows;
  for (const v1::Job* job_ptr : jobs) {
    const v1::Job& job = *job_ptr;
    bool whole = every_id;
    bool named = every_id;
    bool batch = false;
    std::vector<uint32_t> steps;  // steps named alone (12.0)
    for (const SacctJobSelector& s : filter.jobs) {
      const bool selected = s.array_task
                                ? job.array_job_id() == s.job_id && job.has_array_task_id() &&
                                      job.array_task_id() == *s.array_task
                                : s.job_id == job.job_id() || s.job_id == job.array_job_id();
      if (!selected) continue;
      named = true;
      whole = whole || s.part == SacctJobSelector::Part::kJob;
      batch = batch || s.part == SacctJobSelector::Part::kBatch;
      if (s.part == SacctJobSelector::Part::kStep) steps.push_back(s.step_id);
    }
    if (!named || !MatchesFilter(job, filter)) continue;
    if (filter.allocations) {
      rows.push_back({&job, false, nullptr});
      continue;
    }
    if (whole) rows.push_back({&job, false, nullptr});
    if ((whole || batch) && HasBatchStep(job)) rows.push_back({&job, true, nullptr});
    for (const v1::JobStep& step : job.steps()) {
      if (whole || std::find(steps.begin(), steps.end(), step.step_id()) != steps.end()) {
        rows.push_back({&job, true, &step});
      }
    }
  }
  return rows;
}

std::string SacctTimeError(std::string_view text, UnixTime now, const TimeZone& tz) {
  size_t pos = 0;
  for (size_t len = text.size(); len-- > 1;) {
    if (text::ParsePastTime(text.substr(0, len), now, tz).ok()) {
      pos = len;
      break;
    }
  }
  return "Invalid time specification (pos=" + std::to_string(pos) + "): " + std::string(text);
}

}  // namespace gantry::slurm
