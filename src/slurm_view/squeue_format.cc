#include "slurm_view/squeue_format.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "slurm_view/format_spec.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/hostlist.h"
#include "text/memory.h"

namespace gantry::slurm {
namespace {

using Ctx = JobPrintContext;

std::string_view OrNull(std::string_view s) { return s.empty() ? "(null)" : s; }

std::string Limit(uint32_t minutes) {
  if (minutes == kInfiniteMinutes) return "UNLIMITED";
  if (minutes == 0) return "NOT_SET";
  return text::FormatElapsed(static_cast<int64_t>(minutes) * 60);
}

std::string PrintTime(UnixTime t, const Ctx& ctx) {
  return TimeText(t, ctx.tz ? *ctx.tz : TimeZone::Utc(), "N/A");
}

bool ShowsReason(const v1::Job& job) {
  const model::JobState s = StateOf(job);
  if (s.Has(model::JobFlag::kCompleting)) return false;
  return s.base == model::JobBaseState::kPending || s.base == model::JobBaseState::kTimeout ||
         s.base == model::JobBaseState::kFailed;
}

std::string_view PartitionList(const v1::Job& job) { return OrNull(job.partition()); }

// Constant values of fields Gantry has no data for, as Slurm prints them for a job without it.
constexpr char kNull[] = "(null)";
constexpr char kNa[] = "N/A";
constexpr char kNA[] = "NA";
constexpr char kZero[] = "0";
constexpr char kStar[] = "*";
constexpr char kSct[] = "*:*:*";
constexpr char kNoTime[] = "0:00";
constexpr char kNotSet[] = "NotSet";
constexpr char kEmpty[] = "";
template <const char* kValue>
std::string_view Text(const v1::Job& /*job*/, const Ctx& /*ctx*/, std::string& /*scratch*/) {
  return kValue;
}

// A raw wait status as squeue prints exit_code/DerivedEC (0 while not ended).
std::string RawExit(int32_t status) { return std::to_string(status < 0 ? 0 : status); }

const JobField kFields[] = {
    {"Account", 'a', "ACCOUNT", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().account());
     }},
    {"JobId", 'A', "JOBID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.job_id());
     }},
    {"BatchHost", 'B', "EXEC_HOST", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = j.nodes_size() > 0 ? j.nodes(0) : std::string("n/a");
     }},
    {"MinCPUs", 'c', "MIN_CPUS", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(std::max<uint32_t>(1, j.request().cpus_per_task()));
     }},
    {"NumCPUs", 'C', "CPUS", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(CpuCount(j));
     }},
    {"MinTmpDisk", 'd', "MIN_TMP_DISK", true, true,
     [](const v1::Job&, const Ctx&, std::string&) -> std::string_view { return "0"; }},
    {"NumNodes", 'D', "NODES", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(NodeCount(j));
     }},
    {"EndTime", 'e', "END_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       LowerStaleAt(c.now + 1, &c.stale_at);
       if (j.time_limit_min() == kInfiniteMinutes && j.end_time() > c.now) {
         return "NONE";
       }
       return s = PrintTime(j.end_time(), c);
     }},
    {"Dependency", 'E', "DEPENDENCY", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = DependencyText(j);
     }},
    {"Feature", 'f', "FEATURES", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().features());
     }},
    {"ArrayJobId", 'F', "ARRAY_JOB_ID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(ArrayJobIdOf(j));
     }},
    {"GroupName", 'g', "GROUP", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return j.group_name().empty() ? s = std::to_string(j.group_id()) : j.group_name();
     }},
    {"GroupId", 'G', "GROUP", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.group_id());
     }},
    {"OverSubscribe", 'h', "OVER_SUBSCRIBE", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.request().exclusive() ? "NO" : "OK";
     }},
    {"JobArrayId", 'i', "JOBID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = JobIdText(j);
     }},
    {"Name", 'j', "NAME", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.request().name();
     }},
    {"Comment", 'k', "COMMENT", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().comment());
     }},
    {"ArrayTaskId", 'K', "ARRAY_TASK_ID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = ArrayTaskText(j);
     }},
    {"TimeLimit", 'l', "TIME_LIMIT", false, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = Limit(j.time_limit_min());
     }},
    {"TimeLeft", 'L', "TIME_LEFT", false, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       if (j.time_limit_min() == kInfiniteMinutes || j.time_limit_min() == 0) {
         return s = Limit(j.time_limit_min());
       }
       return s = text::FormatElapsed(static_cast<int64_t>(j.time_limit_min()) * 60 -
                                      TimeUsed(j, c.now, &c.stale_at));
     }},
    {"MinMemory", 'm', "MIN_MEMORY", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       const uint64_t mem = j.request().mem_per_cpu_mb() > 0 ? j.request().mem_per_cpu_mb()
                                                             : j.request().mem_per_node_mb();
       return s = text::FormatMemoryMiB(static_cast<int64_t>(mem));
     }},
    {"TimeUsed", 'M', "TIME", false, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       const int64_t used = TimeUsed(j, c.now, &c.stale_at);
       if (used == 0) return "0:00";  // every pending job's
       s.clear();
       text::AppendElapsed(used, &s);
       return s;
     }},
    {"ReqNodes", 'n', "REQ_NODES", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.request().req_nodes();
     }},
    {"NodeList", 'N', "NODELIST", false, false,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = NodeList(j);
     }},
    {"Command", 'o', "COMMAND", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().command());
     }},
    {"Contiguous", 'O', "CONTIGUOUS", true, true,
     [](const v1::Job&, const Ctx&, std::string&) -> std::string_view { return "0"; }},
    {"Priority", 'p', "PRIORITY", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       char buf[64];
       std::snprintf(buf, sizeof(buf), "%16.14f",
                     static_cast<double>(j.priority()) / static_cast<double>(0xffffffffu));
       return s = buf;
     }},
    {"Partition", 'P', "PARTITION", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return PartitionList(j);
     }},
    {"QOS", 'q', "QOS", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().qos());
     }},
    {"PriorityLong", 'Q', "PRIORITY", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.priority());
     }},
    {"Reason", 'r', "REASON", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = Reason(j);
     }},
    {"ReasonList", 'R', "NODELIST(REASON)", false, false,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = NodeList(j);
     }},  // see RenderJobLine
    {"StartTime", 'S', "START_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(StartTimeOf(j), c);
     }},
    {"StateCompact", 't', "ST", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return model::JobStateCode(StateOf(j));
     }},
    {"State", 'T', "STATE", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return model::JobStateName(StateOf(j));
     }},
    {"UserName", 'u', "USER", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return j.user_name().empty() ? s = std::to_string(j.user_id()) : j.user_name();
     }},
    {"UserId", 'U', "UID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.user_id());
     }},
    {"SubmitTime", 'V', "SUBMIT_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(j.submit_time(), c);
     }},
    {"", 'x', "EXC_NODES", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.request().exc_nodes();
     }},
    {"Nice", 'y', "NICE", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.request().nice());
     }},
    {"SchedNodes", 'Y', "SCHEDNODES", false, false,
     [](const v1::Job&, const Ctx&, std::string&) -> std::string_view { return "(null)"; }},
    {"WorkDir", 'Z', "WORK_DIR", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.request().work_dir();
     }},
    // -O names without a letter (squeue 22.05 opts.c parse_long_format), in the man page's order.
    {"AccrueTime", 0, "ACCRUE_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(j.accrue_time(), c);
     }},
    {"admin_comment", 0, "ADMIN_COMMENT", true, true, Text<kNull>},
    {"AllocNodes", 0, "ALLOC_NODES", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return OrNull(j.request().submit_host());
     }},
    {"AllocSID", 0, "ALLOC_SID", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.request().alloc_sid());
     }},
    {"BatchFlag", 0, "BATCH_FLAG", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.batch_flag() ? "1" : "0";
     }},
    {"BoardsPerNode", 0, "BOARDS_PER_NODE", true, true, Text<kZero>},
    {"BurstBuffer", 0, "BURST_BUFFER", true, true, Text<kNull>},
    {"BurstBufferState", 0, "BURST_BUFFER_STATE", true, true, Text<kNull>},
    {"Cluster", 0, "CLUSTER", true, true,
     [](const v1::Job&, const Ctx& c, std::string&) -> std::string_view {
       return OrNull(c.cluster);
     }},
    {"ClusterFeature", 0, "CLUSTER_FEATURES", true, true, Text<kNull>},
    {"Container", 0, "CONTAINER", true, true, Text<kNull>},
    {"Cores", 0, "CORES_PER_SOCKET", true, true, Text<kStar>},
    {"CoreSpec", 0, "CORE_SPEC", true, true, Text<kNa>},
    {"cpus-per-task", 0, "CPUS_PER_TASK", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(std::max<uint32_t>(1, j.request().cpus_per_task()));
     }},
    {"cpus-per-tres", 0, "CPUS_PER_TRES", true, true, Text<kNa>},
    {"Deadline", 0, "DEADLINE", true, true, Text<kNa>},
    {"DelayBoot", 0, "DELAY_BOOT", true, true, Text<kNoTime>},
    {"DerivedEC", 0, "DERIVED_EC", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = RawExit(j.derived_exit_status());
     }},
    {"EligibleTime", 0, "ELIGIBLE_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(j.eligible_time(), c);
     }},
    {"exit_code", 0, "EXIT_CODE", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = RawExit(j.exit_status());
     }},
    {"HetJobID", 0, "HET_JOB_ID", true, true, Text<kNa>},
    {"HetJobIDSet", 0, "HET_JOB_ID_SET", true, true, Text<kNa>},
    {"HetJobOffset", 0, "HET_JOB_OFFSET", true, true, Text<kNa>},
    {"LastSchedEval", 0, "LAST_SCHED_EVAL", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(j.last_sched_eval(), c);
     }},
    {"Licenses", 0, "LICENSES", true, true, Text<kNull>},
    {"MaxCPUs", 0, "MAX_CPUS", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(CpuCount(j));
     }},
    {"MaxNodes", 0, "MAX_NODES", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(std::max(j.request().max_nodes(), NodeCount(j)));
     }},
    {"MCSLabel", 0, "MCSLABEL", true, true, Text<kNull>},
    {"mem-per-tres", 0, "MEM_PER_TRES", true, true, Text<kNa>},
    {"MinTime", 0, "TIME_MIN", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = text::FormatElapsed(static_cast<int64_t>(j.request().time_min_min()) * 60);
     }},
    {"Network", 0, "NETWORK", true, true, Text<kNull>},
    {"NTPerBoard", 0, "NTASKS_PER_BOARD", true, true, Text<kZero>},
    {"NTPerCore", 0, "NTASKS_PER_CORE", true, true, Text<kNa>},
    {"NTPerNode", 0, "NTASKS_PER_NODE", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.request().ntasks_per_node());
     }},
    {"NTPerSocket", 0, "NTASKS_PER_SOCKET", true, true, Text<kNa>},
    {"NumTasks", 0, "TASKS", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(TaskCount(j));
     }},
    {"Origin", 0, "ORIGIN", true, true, Text<kNA>},
    {"OriginRaw", 0, "ORIGIN_RAW", true, true, Text<kNA>},
    {"PendingTime", 0, "PENDING_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       if (IsPendingJob(j)) LowerStaleAt(c.now + 1, &c.stale_at);
       const UnixTime until = IsPendingJob(j) ? c.now : j.start_time();
       return s = std::to_string(until > j.submit_time() ? until - j.submit_time() : 0);
     }},
    {"PreemptTime", 0, "PREEMPT_TIME", true, true,
     [](const v1::Job& j, const Ctx& c, std::string& s) -> std::string_view {
       return s = PrintTime(j.preempt_time(), c);
     }},
    {"Prefer", 0, "PREFER", true, true, Text<kNull>},
    {"Profile", 0, "PROFILE", true, true, Text<kNotSet>},
    {"Reboot", 0, "REBOOT", true, true, Text<kZero>},
    {"ReqSwitch", 0, "REQ_SWITCH", true, true, Text<kZero>},
    {"Requeue", 0, "REQUEUE", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       return j.requeue() ? "1" : "0";
     }},
    {"Reservation", 0, "RESERVATION", true, true, Text<kNull>},
    {"ResizeTime", 0, "RESIZE_TIME", true, true, Text<kNa>},
    {"RestartCnt", 0, "RESTART_COUNT", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = std::to_string(j.restarts());
     }},
    {"SCT", 0, "S:C:T", true, true, Text<kSct>},
    {"SelectJobInfo", 0, "", true, true, Text<kEmpty>},
    {"SiblingsActive", 0, "ACTIVE_SIBLINGS", true, true, Text<kNA>},
    {"SiblingsActiveRaw", 0, "ACTIVE_SIBLINGS_RAW", true, true, Text<kNA>},
    {"SiblingsViable", 0, "VIABLE_SIBLINGS", true, true, Text<kNA>},
    {"SiblingsViableRaw", 0, "VIALBLE_SIBLINGS_RAW", true, true, Text<kNA>},  // Slurm's spelling
    {"Sockets", 0, "SOCKETS_PER_NODE", true, true, Text<kStar>},
    {"SPerBoard", 0, "SOCKETS_PER_BOARD", true, true, Text<kZero>},
    {"STDERR", 0, "STDERR", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = StderrPath(j);
     }},
    {"STDIN", 0, "STDIN", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = StdinPath(j);
     }},
    {"STDOUT", 0, "STDOUT", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view {
       return s = StdoutPath(j);
     }},
    {"system_comment", 0, "SYSTEM_COMMENT", true, true, Text<kNull>},
    {"Threads", 0, "THREADS_PER_CORE", true, true, Text<kStar>},
    {"tres-alloc", 0, "TRES_ALLOC", true, true,
     [](const v1::Job& j, const Ctx&, std::string& s) -> std::string_view { return s = Tres(j); }},
    {"tres-bind", 0, "TRES_BIND", true, true, Text<kNa>},
    {"tres-freq", 0, "TRES_FREQ", true, true, Text<kNa>},
    {"tres-per-job", 0, "TRES_PER_JOB", true, true, Text<kNa>},
    {"tres-per-node", 0, "TRES_PER_NODE", true, true,
     [](const v1::Job& j, const Ctx&, std::string&) -> std::string_view {
       const std::string_view gres = j.request().gres();
       return gres.empty() ? "N/A" : gres;
     }},
    {"tres-per-socket", 0, "TRES_PER_SOCKET", true, true, Text<kNa>},
    {"tres-per-task", 0, "TRES_PER_TASK", true, true, Text<kNa>},
    {"Wait4Switch", 0, "WAIT4SWITCH", true, true, Text<kNoTime>},
    {"WCKey", 0, "WCKEY", true, true, Text<kNull>},
};

// Other spellings squeue -O accepts for a row's name.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"shared", "OverSubscribe"},       {"tres", "tres-alloc"},
    {"gres", "tres-per-node"},         {"packjobid", "HetJobID"},
    {"packjoboffset", "HetJobOffset"}, {"packjobidset", "HetJobIDSet"},
};

// A column's value as PadField places it: `text`, cut to the width or with `pad` spaces before
// (right-justified) or after it.
struct PlacedValue {
  std::string_view text;
  size_t pad = 0;
  bool pad_before = false;
};

// Fields are set one by one (no temporary copied in): listings place 100k values per column.
void Place(std::string_view value, int width, bool right, bool cut, PlacedValue* out) {
  out->text = value;
  out->pad = 0;
  out->pad_before = false;
  if (width <= 0) return;
  const auto w = static_cast<size_t>(width);
  if (value.size() >= w) {
    if (!right || cut) out->text = value.substr(0, w);
    return;
  }
  out->pad = w - value.size();
  out->pad_before = right;
}

// The column's value, placed; made in `scratch` where the job does not hold it.
void PlaceColumn(const JobColumn& c, const v1::Job& job, const JobPrintContext& ctx,
                 std::string& scratch, PlacedValue* out) {
  if (c.field->letter == 'R' && ShowsReason(job)) {
    scratch = "(";
    scratch += !job.state_desc().empty() ? job.state_desc()
               : !job.reason().empty()   ? job.reason()
                                         : "None";
    scratch += ')';
    Place(scratch, c.width, c.right, true, out);
    return;
  }
  Place(c.field->value(job, ctx, scratch), c.width, c.right, c.field->cut, out);
}

bool InList(const std::vector<std::string>& list, const std::string& value, bool ignore_case) {
  for (const std::string& item : list) {
    if (ignore_case ? text::EqualsIgnoreCase(item, value) : item == value) return true;
  }
  return false;
}

// The fields whose values come from what a job's brief form keeps, and those of them whose values
// come from what its slim form keeps (squeue_format_test checks each against the full record).
constexpr std::string_view kBriefFields[] = {
    "Account",     "JobId",        "BatchHost",    "MinCPUs",       "NumCPUs",
    "MinTmpDisk",  "NumNodes",     "EndTime",      "Feature",       "ArrayJobId",
    "GroupId",     "JobArrayId",   "Name",         "ArrayTaskId",   "TimeLimit",
    "TimeLeft",    "MinMemory",    "TimeUsed",     "ReqNodes",      "NodeList",
    "Priority",    "Partition",    "QOS",          "PriorityLong",  "Reason",
    "ReasonList",  "StartTime",    "StateCompact", "State",         "UserName",
    "UserId",      "SubmitTime",   "Nice",         "SchedNodes",    "AccrueTime",
    "Cluster",     "EligibleTime", "NumTasks",     "PendingTime",   "Requeue",
    "RestartCnt",  "MinTime",      "MaxNodes",     "cpus-per-task", "LastSchedEval",
    "PreemptTime", "OverSubscribe"};
constexpr std::string_view kSlimFields[] = {
    "JobId",      "BatchHost",  "NumNodes",    "EndTime",      "ArrayJobId",
    "JobArrayId", "Name",       "ArrayTaskId", "TimeLimit",    "TimeLeft",
    "TimeUsed",   "NodeList",   "Priority",    "Partition",    "PriorityLong",
    "Reason",     "ReasonList", "StartTime",   "StateCompact", "State",
    "UserName",   "UserId",     "SubmitTime",  "SchedNodes",   "Cluster"};

// The fields that print a time of day (through PrintTime).
constexpr std::string_view kLocalTimeFields[] = {"EndTime",    "StartTime",    "SubmitTime",
                                                 "AccrueTime", "EligibleTime", "LastSchedEval",
                                                 "PreemptTime"};

template <size_t N>
bool Holds(const std::string_view (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

std::span<const JobField> SqueueFields() { return kFields; }

const JobField* FindSqueueField(char letter) {
  if (letter == 0) return nullptr;
  for (const JobField& f : kFields) {
    if (f.letter == letter) return &f;
  }
  return nullptr;
}

const JobField* FindSqueueFieldByName(std::string_view name) {
  if (name.empty()) return nullptr;
  // squeue compares only the first 7 characters of "numtasks".
  if (name.size() >= 7 && text::EqualsIgnoreCase(name.substr(0, 7), "numtask")) {
    name = "NumTasks";
  }
  for (const auto& [alias, target] : kAliases) {
    if (text::EqualsIgnoreCase(name, alias)) name = target;
  }
  for (const JobField& f : kFields) {
    if (!f.name.empty() && text::EqualsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

JobFormat ParseJobLongFormat(std::string_view format) {
  JobFormat out;
  for (const LongFieldSpec& f : ParseLongFormatSpec(format)) {
    JobColumn column;
    column.field = FindSqueueFieldByName(f.name);
    column.width = f.width;
    column.right = f.right;
    if (column.field == nullptr) {
      // Slurm prints only the suffix of an unknown name.
      column.literal = f.suffix;
      out.errors.push_back("Invalid job format specification: " + f.name);
    } else {
      column.suffix = f.suffix;
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

JobFormat ParseJobFormat(std::string_view format) {
  const bool all = text::EqualsIgnoreCase(format, "%all");
  const FormatSpec spec = ParseFormatSpec(all ? AllFieldsFormat() : std::string(format));
  JobFormat out;
  out.prefix = spec.prefix;
  for (const FieldSpec& f : spec.fields) {
    JobColumn column;
    column.field = FindSqueueField(f.letter);
    column.width = f.width;
    column.right = f.right;
    column.suffix = f.suffix;
    if (column.field == nullptr) {
      if (all) continue;
      // Slurm prints the whole piece back: "%" [.] [width] letter suffix.
      column.literal = "%" + std::string(f.right ? "." : "") +
                       (f.width > 0 ? std::to_string(f.width) : std::string()) +
                       std::string(f.letter ? 1 : 0, f.letter) + f.suffix;
      column.suffix.clear();
      out.errors.push_back("Invalid job format specification: " + std::string(1, f.letter));
    }
    out.columns.push_back(std::move(column));
  }
  return out;
}

std::string RenderJobHeader(const JobFormat& format) {
  std::string line = format.prefix;
  for (const JobColumn& c : format.columns) {
    if (c.field == nullptr) {
      line += c.literal;
      continue;
    }
    line += PadField(c.field->header, c.width, c.right, c.field->header_cut) + c.suffix;
  }
  return line + "\n";
}

void AppendJobLine(const JobFormat& format, const v1::Job& job, const JobPrintContext& ctx,
                   std::string* out) {
  // Every value is made first (each column has its own scratch text), then the line is written
  // into room made for it at once, filled with spaces (the padding): a listing prints 100k
  // lines this way.
  thread_local std::vector<std::string> scratch;
  thread_local std::vector<PlacedValue> values;
  const size_t columns = format.columns.size();
  if (scratch.size() < columns) scratch.resize(columns);
  values.resize(columns);
  size_t size = format.prefix.size() + 1;
  for (size_t i = 0; i < columns; ++i) {
    const JobColumn& c = format.columns[i];
    PlacedValue& v = values[i];
    if (c.field == nullptr) {
      Place(c.literal, 0, false, false, &v);
    } else {
      PlaceColumn(c, job, ctx, scratch[i], &v);
      size += c.suffix.size();
    }
    size += v.text.size() + v.pad;
  }
  const size_t at = out->size();
  out->append(size, ' ');
  char* p = out->data() + at;
  auto put = [&p](std::string_view text) {
    std::memcpy(p, text.data(), text.size());
    p += text.size();
  };
  put(format.prefix);
  for (size_t i = 0; i < columns; ++i) {
    const PlacedValue& v = values[i];
    if (v.pad_before) p += v.pad;
    put(v.text);
    if (!v.pad_before) p += v.pad;
    if (format.columns[i].field != nullptr) put(format.columns[i].suffix);
  }
  *p = '\n';
}

std::string RenderJobLine(const JobFormat& format, const v1::Job& job, const JobPrintContext& ctx) {
  std::string line;
  AppendJobLine(format, job, ctx, &line);
  return line;
}

model::JobRecordForm JobFormatRecordForm(const JobFormat& format) {
  model::JobRecordForm form = model::JobRecordForm::kSlim;
  for (const JobColumn& c : format.columns) {
    if (c.field == nullptr || Holds(kSlimFields, c.field->name)) continue;
    form = Holds(kBriefFields, c.field->name) ? model::WiderForm(form, model::JobRecordForm::kBrief)
                                              : model::JobRecordForm::kFull;
  }
  return form;
}

bool JobFormatPrintsLocalTime(const JobFormat& format) {
  return std::any_of(format.columns.begin(), format.columns.end(), [](const JobColumn& c) {
    return c.field != nullptr && Holds(kLocalTimeFields, c.field->name);
  });
}

size_t JobFormatLineBound(const JobFormat& format) {
  constexpr size_t kCap = SIZE_MAX / 4;
  size_t bytes = format.prefix.size();
  for (const JobColumn& c : format.columns) {
    bytes += c.suffix.size() + c.literal.size() +
             std::max(kNaturalColumnBytes, static_cast<size_t>(std::max(c.width, 0)));
    if (bytes > kCap) return kCap;
  }
  return bytes;
}

bool JobMatches(const JobFilter& filter, const v1::Job& job) {
  if (!filter.job_ids.empty() || !filter.array_tasks.empty()) {
    auto named = [&](uint32_t id) {
      return std::find(filter.job_ids.begin(), filter.job_ids.end(), id) != filter.job_ids.end();
    };
    const bool whole =
        named(job.job_id()) || (job.array_job_id() != 0 && named(job.array_job_id()));
    const bool task =
        job.has_array_task_id() &&
        std::find(filter.array_tasks.begin(), filter.array_tasks.end(),
                  std::pair(job.array_job_id(), job.array_task_id())) != filter.array_tasks.end();
    if (!whole && !task) return false;
  }
  if (!filter.accounts.empty() && !InList(filter.accounts, job.request().account(), true)) {
    return false;
  }
  if (!filter.qos.empty() && !InList(filter.qos, job.request().qos(), true)) return false;
  const model::JobState state = StateOf(job);
  if (filter.states.has_value()) {
    if (!filter.states->all && !filter.states->Matches(state)) return false;
  } else if (!model::IsShownBySqueueByDefault(state)) {
    return false;
  }
  if (!filter.nodes.empty()) {
    bool on = false;
    for (const std::string& n : job.nodes()) on = on || InList(filter.nodes, n, false);
    if (!on) return false;
  }
  if (filter.user_filter && std::find(filter.user_ids.begin(), filter.user_ids.end(),
                                      job.user_id()) == filter.user_ids.end()) {
    return false;
  }
  if (!filter.names.empty() && !InList(filter.names, job.request().name(), true)) return false;
  if (!filter.partitions.empty()) {
    bool in = InList(filter.partitions, job.partition(), false);
    for (const std::string& p : job.request().partitions()) {
      in = in || (IsPendingJob(job) && InList(filter.partitions, p, false));
    }
    if (!in) return false;
  }
  return true;
}

model::JobRecordForm JobFilterRecordForm(const JobFilter& filter) {
  const bool slim = filter.partitions.empty() && filter.accounts.empty() && filter.qos.empty();
  return slim ? model::JobRecordForm::kSlim : model::JobRecordForm::kBrief;
}

}  // namespace gantry::slurm
