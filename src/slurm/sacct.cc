// sacct: lists jobs from the controller's history (see sacct_format.h for the listing itself).
//
// Options are Slurm 22.05's, processed in command-line order as sacct does (so "-V" before a bad
// option still prints the version, and "-u" after "-a" narrows the users again). Errors are
// Slurm's texts and exit codes; options Gantry cannot honour yet (--json, -g, -M, ...) are
// refused with "sacct: error: <option> is not supported by Gantry yet".
// Users: -u, else every user with -a, -j or -N or for root, else the caller's own jobs.
// Unlike Slurm, --help, --usage and --helpformat answer without contacting the controller.
#include <algorithm>
#include <memory>
#include <ostream>
#include <utility>

#include "model/job_state.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/sacct_format.h"
#include "slurm_view/job_view.h"
#include "slurm_view/listing_text.h"
#include "text/begin_time.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

enum : int {
  kDelimiter = 0x100,
  kSacctLocal,
  kName,
  kSacctNoConvert,
  kSacctUnits,
  kSacctFederation,
  kWholeHetjob,
  kEnvVars,
  kUseLocalUid,
  kReason,
  kSacctJson,
  kSacctYaml,
};

constexpr ShortOption kSacctShort[] = {
    {'a', ArgKind::kNone},     {'A', ArgKind::kRequired}, {'b', ArgKind::kNone},
    {'B', ArgKind::kNone},     {'c', ArgKind::kNone},     {'C', ArgKind::kRequired},
    {'D', ArgKind::kNone},     {'e', ArgKind::kNone},     {'E', ArgKind::kRequired},
    {'f', ArgKind::kRequired}, {'F', ArgKind::kRequired}, {'g', ArgKind::kRequired},
    {'h', ArgKind::kNone},     {'i', ArgKind::kRequired}, {'I', ArgKind::kRequired},
    {'j', ArgKind::kRequired}, {'k', ArgKind::kRequired}, {'K', ArgKind::kRequired},
    {'l', ArgKind::kNone},     {'L', ArgKind::kNone},     {'M', ArgKind::kRequired},
    {'n', ArgKind::kNone},     {'N', ArgKind::kRequired}, {'o', ArgKind::kRequired},
    {'p', ArgKind::kNone},     {'P', ArgKind::kNone},     {'q', ArgKind::kRequired},
    {'r', ArgKind::kRequired}, {'s', ArgKind::kRequired}, {'S', ArgKind::kRequired},
    {'T', ArgKind::kNone},     {'t', ArgKind::kNone},     {'u', ArgKind::kRequired},
    {'U', ArgKind::kNone},     {'v', ArgKind::kNone},     {'V', ArgKind::kNone},
    {'W', ArgKind::kRequired}, {'x', ArgKind::kRequired}, {'X', ArgKind::kNone},
};

// sacct 22.05's long options, in its table order.
constexpr LongOption kSacctLong[] = {
    {"allusers", ArgKind::kNone, 'a'},
    {"accounts", ArgKind::kRequired, 'A'},
    {"allocations", ArgKind::kNone, 'X'},
    {"brief", ArgKind::kNone, 'b'},
    {"batch-script", ArgKind::kNone, 'B'},
    {"completion", ArgKind::kNone, 'c'},
    {"constraints", ArgKind::kRequired, 'C'},
    {"delimiter", ArgKind::kRequired, kDelimiter},
    {"duplicates", ArgKind::kNone, 'D'},
    {"federation", ArgKind::kNone, kSacctFederation},
    {"helpformat", ArgKind::kNone, 'e'},
    {"help-fields", ArgKind::kNone, 'e'},
    {"endtime", ArgKind::kRequired, 'E'},
    {"env-vars", ArgKind::kNone, kEnvVars},
    {"file", ArgKind::kRequired, 'f'},
    {"flags", ArgKind::kRequired, 'F'},
    {"gid", ArgKind::kRequired, 'g'},
    {"group", ArgKind::kRequired, 'g'},
    {"help", ArgKind::kNone, 'h'},
    {"local", ArgKind::kNone, kSacctLocal},
    {"name", ArgKind::kRequired, kName},
    {"nnodes", ArgKind::kRequired, 'i'},
    {"ncpus", ArgKind::kRequired, 'I'},
    {"jobs", ArgKind::kRequired, 'j'},
    {"timelimit-min", ArgKind::kRequired, 'k'},
    {"timelimit-max", ArgKind::kRequired, 'K'},
    {"long", ArgKind::kNone, 'l'},
    {"allclusters", ArgKind::kNone, 'L'},
    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},
    {"nodelist", ArgKind::kRequired, 'N'},
    {"noconvert", ArgKind::kNone, kSacctNoConvert},
    {"units", ArgKind::kRequired, kSacctUnits},
    {"noheader", ArgKind::kNone, 'n'},
    {"fields", ArgKind::kRequired, 'o'},
    {"format", ArgKind::kRequired, 'o'},
    {"parsable", ArgKind::kNone, 'p'},
    {"parsable2", ArgKind::kNone, 'P'},
    {"qos", ArgKind::kRequired, 'q'},
    {"partition", ArgKind::kRequired, 'r'},
    {"reason", ArgKind::kRequired, kReason},
    {"state", ArgKind::kRequired, 's'},
    {"starttime", ArgKind::kRequired, 'S'},
    {"truncate", ArgKind::kNone, 'T'},
    {"uid", ArgKind::kRequired, 'u'},
    {"use-local-uid", ArgKind::kNone, kUseLocalUid},
    {"usage", ArgKind::kNone, 'U'},
    {"user", ArgKind::kRequired, 'u'},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
    {"wckeys", ArgKind::kRequired, 'W'},
    {"whole-hetjob", ArgKind::kOptional, kWholeHetjob},
    {"associations", ArgKind::kRequired, 'x'},
    {"json", ArgKind::kNone, kSacctJson},
    {"yaml", ArgKind::kNone, kSacctYaml},
};

constexpr char kSacctUsageText[] = "Usage: sacct [options]\n\tUse --help for help\n";

// sacct --help, byte for byte.
constexpr char kSacctHelpText[] =
    "sacct [<OPTION>]                                                            \n"
    "     Valid <OPTION> values are:                                              \n"
    "     -a, --allusers:                                                        \n"
    "\t           Display jobs for all users. By default, only the         \n"
    "                   current user's jobs are displayed.  If ran by user root  \n"
    "                   this is the default.                                     \n"
    "     -A, --accounts:                                                        \n"
    "\t           Use this comma separated list of accounts to select jobs \n"
    "                   to display.  By default, all accounts are selected.      \n"
    "     -b, --brief:                                                           \n"
    "\t           Equivalent to '--format=jobstep,state,error'.            \n"
    "     -B, --batch-script:                                                    \n"
    "\t           Print batch script of job.                               \n"
    "                   NOTE: AccountingStoreFlags=job_script is required for this\n"
    "                   NOTE: Requesting specific job(s) with '-j' is required   \n"
    "                         for this.                                          \n"
    "     -c, --completion: Use job completion instead of accounting data.       \n"
    "         --delimiter:                                                       \n"
    "\t           ASCII characters used to separate the fields when        \n"
    "\t           specifying the  -p  or  -P options. The default delimiter\n"
    "\t           is a '|'. This options is ignored if -p or -P options    \n"
    "\t           are not specified.                                       \n"
    "     -D, --duplicates:                                                      \n"
    "\t           If Slurm job ids are reset, some job numbers may         \n"
    "\t           appear more than once referring to different jobs.       \n"
    "\t           Without this option only the most recent jobs will be    \n"
    "                   displayed.                                               \n"
    "     -e, --helpformat:                                                      \n"
    "\t           Print a list of fields that can be specified with the    \n"
    "\t           '--format' option                                        \n"
    "     -E, --endtime:                                                         \n"
    "                   Select jobs eligible before this time.  If states are    \n"
    "                   given with the -s option return jobs in this state before\n"
    "                   this period.                                             \n"
    "         --env-vars:                                                        \n"
    "\t           Print the environment to launch the batch script of job. \n"
    "                   NOTE: AccountingStoreFlags=job_env is required for this  \n"
    "                   NOTE: Requesting specific job(s) with '-j' is required   \n"
    "                         for this.                                          \n"
    "         --federation: Report jobs from federation if a member of a one.    \n"
    "     -f, --file=file:                                                       \n"
    "\t           Read data from the specified file, rather than Slurm's   \n"
    "                   current accounting log file. (Only appliciable when      \n"
    "                   running the jobcomp/filetxt plugin.)                     \n"
    "     -g, --gid, --group:                                                    \n"
    "\t           Use this comma separated list of gids or group names     \n"
    "                   to select jobs to display.  By default, all groups are   \n"
    "                   selected.                                                \n"
    "     -h, --help:   Print this description of use.                           \n"
    "     -i, --nnodes=N:                                                        \n"
    "                   Return jobs which ran on this many nodes (N = min[-max]) \n"
    "     -I, --ncpus=N:                                                         \n"
    "                   Return jobs which ran on this many cpus (N = min[-max])  \n"
    "     -j, --jobs:                                                            \n"
    "\t           Format is <job(.step)>. Display information about this   \n"
    "                   job or comma-separated list of jobs. The default is all  \n"
    "                   jobs. Adding .step will display the specific job step of \n"
    "                   that job. (A step id of 'batch' will display the         \n"
    "                   information about the batch step.)                       \n"
    "     --json:                                                                \n"
    "                   Produce JSON output                                      \n"
    "     -k, --timelimit-min:                                                   \n"
    "                   Only send data about jobs with this timelimit.           \n"
    "                   If used with timelimit_max this will be the minimum      \n"
    "                   timelimit of the range.  Default is no restriction.      \n"
    "     -K, --timelimit-max:                                                   \n"
    "                   Ignored by itself, but if timelimit_min is set this will \n"
    "                   be the maximum timelimit of the range.  Default is no    \n"
    "                   restriction.                                             \n"
    "         --local   Report information only about jobs on the local cluster. \n"
    "\t           Overrides --federation.                                  \n"
    "     -l, --long:                                                            \n"
    "\t           Equivalent to specifying                                 \n"
    "\t           '--format=jobid,jobidraw,jobname,partition,maxvmsize,    \n"
    "                             maxvmsizenode,maxvmsizetask,avevmsize,maxrss,  \n"
    "                             maxrssnode,maxrsstask,averss,maxpages,         \n"
    "                             maxpagesnode,maxpagestask,avepages,mincpu,     \n"
    "                             mincpunode,mincputask,avecpu,ntasks,alloccpus, \n"
    "                             elapsed,state,exitcode,avecpufreq,reqcpufreqmin,\n"
    "                             reqcpufreqmax,reqcpufreqgov,reqmem,            \n"
    "                             consumedenergy,maxdiskread,maxdiskreadnode,    \n"
    "                             maxdiskreadtask,avediskread,maxdiskwrite,      \n"
    "                             maxdiskwritenode,maxdiskwritetask,avediskwrite,\n"
    "                             reqtres,alloctres,                             \n"
    "                             tresusageinave,tresusageinmax,tresusageinmaxn, \n"
    "                             tresusageinmaxt,tresusageinmin,tresusageinminn,\n"
    "                             tresusageinmint,tresusageintot,tresusageoutmax,\n"
    "                             tresusageoutmaxn,tresusageoutmaxt,             \n"
    "                             tresusageoutave,tresusageouttot                \n"
    "     -L, --allclusters:                                                     \n"
    "\t           Display jobs ran on all clusters. By default, only jobs  \n"
    "                   ran on the cluster from where sacct is called are        \n"
    "                   displayed.                                               \n"
    "     -M, --clusters:                                                        \n"
    "                   Only send data about these clusters. Use \"all\" for all \n"
    "                   clusters.\n"
    "     -n, --noheader:                                                        \n"
    "\t           No header will be added to the beginning of output.      \n"
    "                   The default is to print a header.                        \n"
    "     --noconvert:                                                           \n"
    "\t\t   Don't convert units from their original type             \n"
    "\t\t   (e.g. 2048M won't be converted to 2G).                   \n"
    "     -N, --nodelist:                                                        \n"
    "                   Display jobs that ran on any of these nodes,             \n"
    "                   can be one or more using a ranged string.                \n"
    "     --name:                                                                \n"
    "                   Display jobs that have any of these name(s).             \n"
    "     -o, --format:                                                          \n"
    "\t           Comma separated list of fields. (use \"--helpformat\"    \n"
    "                   for a list of available fields).                         \n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end     \n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end \n"
    "     -q, --qos:                                                             \n"
    "                   Only send data about jobs using these qos.  Default is all.\n"
    "     -r, --partition:                                                       \n"
    "\t           Comma separated list of partitions to select jobs and    \n"
    "                   job steps from. The default is all partitions.           \n"
    "     -s, --state:                                                           \n"
    "\t           Select jobs based on their current state or the state    \n"
    "                   they were in during the time period given: running (r),  \n"
    "                   completed (cd), failed (f), timeout (to), resizing (rs), \n"
    "                   deadline (dl) and node_fail (nf).                        \n"
    "     -S, --starttime:                                                       \n"
    "                   Select jobs eligible after this time.  Default is        \n"
    "                   00:00:00 of the current day, unless '-s' is set then     \n"
    "                   the default is 'now'.                                    \n"
    "     -T, --truncate:                                                        \n"
    "                   Truncate time.  So if a job started before --starttime   \n"
    "                   the start time would be truncated to --starttime.        \n"
    "                   The same for end time and --endtime.                     \n"
    "     -u, --uid, --user:                                                     \n"
    "\t           Use this comma separated list of uids or user names      \n"
    "                   to select jobs to display.  By default, the running      \n"
    "                   user's uid is used.                                      \n"
    "     --units=[KMGTP]:                                                       \n"
    "                   Display values in specified unit type. Takes precedence  \n"
    "\t\t   over --noconvert option.                                 \n"
    "     --usage:      Display brief usage message.                             \n"
    "     -v, --verbose:                                                         \n"
    "\t           Primarily for debugging purposes, report the state of    \n"
    "                   various variables during processing.                     \n"
    "     -V, --version: Print version.                                          \n"
    "     -W, --wckeys:                                                          \n"
    "                   Only send data about these wckeys.  Default is all.      \n"
    "     --whole-hetjob[=yes|no]:                                               \n"
    "\t\t   If set to 'yes' (or no argument), then information about \n"
    "\t\t   all the heterogeneous components will be retrieved. If   \n"
    "\t\t   set to 'no' only the specific filtered components will   \n"
    "\t\t   be retrieved. The default behavior without this option is\n"
    "\t\t   that all components are retrieved only if filtering the  \n"
    "\t\t   leader component with --jobs.                            \n"
    "     -x, --associations:                                                    \n"
    "                   Only send data about these association id.  Default is all.\n"
    "     -X, --allocations:                                                     \n"
    "\t           Only show statistics relevant to the job allocation      \n"
    "\t           itself, not taking steps into consideration.             \n"
    "     --yaml:                                                                \n"
    "                   Produce YAML output                                      \n"
    "\t                                                                    \n"
    "     Note, valid start/end time formats are...                              \n"
    "\t           HH:MM[:SS] [AM|PM]                                       \n"
    "\t           MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]                     \n"
    "\t           MM/DD[/YY]-HH:MM[:SS]                                    \n"
    "\t           YYYY-MM-DD[THH:MM[:SS]]                                  \n"
    "\t           now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n"
    "\n";

enum class Help { kNone, kSacctHelp, kSacctFields, kSacctUsage };

struct SacctOptions {
  Help help = Help::kNone;
  bool brief = false;
  bool long_list = false;
  bool no_header = false;
  bool all_users = false;
  bool users_given = false;
  std::vector<uint32_t> users;
  std::string field_list;  // -o values, each followed by ','
  std::optional<UnixTime> start;
  std::optional<UnixTime> end;
  SacctOutput output;
  SacctFilter filter;
  bool no_convert = false;
  bool duplicates = false;  // -D: also the earlier runs of requeued jobs
};

// sacct -D: a requeued job's earlier runs, each as the record it was when that run ended
// (PREEMPTED, NODE_FAIL or REQUEUED), oldest first.
std::vector<v1::Job> EarlierRuns(const v1::Job& job) {
  std::vector<v1::Job> out;
  for (const v1::JobRun& run : job.earlier_runs()) {
    v1::Job& earlier = out.emplace_back(job);
    earlier.clear_earlier_runs();
    earlier.clear_steps();
    earlier.clear_batch_usage();
    model::JobState state;
    if (run.requeued()) {
      state.base = model::JobBaseState::kPending;
      state.Set(model::JobFlag::kRequeue);
    } else {
      state.base = static_cast<model::JobBaseState>(run.state());
    }
    earlier.set_state(static_cast<uint32_t>(state.base));
    earlier.set_state_flags(state.flags);
    earlier.set_start_time(run.start_time());
    earlier.set_end_time(run.end_time());
    earlier.set_suspend_time(0);
    earlier.set_pre_suspend_secs(0);
    *earlier.mutable_nodes() = run.nodes();
    earlier.set_num_cpus(run.num_cpus());
    earlier.set_alloc_mem_mb(run.alloc_mem_mb());
    earlier.set_exit_status(0);
    earlier.clear_cancelled_by_uid();
  }
  return out;
}

// Handles one option; returns an exit code when sacct stops here.
std::optional<int> ApplyOption(const ParsedOption& o, SacctOptions* opt, CommandContext& ctx,
                               const TimeZone& tz) {
  const std::string value = o.value.value_or("");
  auto fatal = [&](const std::string& message) {
    *ctx.err << "sacct: fatal: " << message << "\n";
    return 1;
  };
  auto time_value = [&](std::optional<UnixTime>* out) -> std::optional<int> {
    if (value.empty()) {
      out->reset();  // Slurm's parse_time("") is 0: the default
      return std::nullopt;
    }
    Result<UnixTime> t = text::ParsePastTime(value, ctx.now, tz);
    if (!t.ok()) {
      *ctx.err << SacctTimeError(value, ctx.now, tz) << "\n";
      return 1;
    }
    *out = *t;
    return std::nullopt;
  };
  switch (o.id) {
    case 'a':
      opt->all_users = true;
      break;
    case 'A':
      for (std::string& a : SplitList(value)) opt->filter.accounts.push_back(std::move(a));
      break;
    case 'b':
      opt->brief = true;
      break;
    case 'e':
      opt->help = Help::kSacctFields;
      break;
    case 'E':
      return time_value(&opt->end);
    case 'S':
      return time_value(&opt->start);
    case 'h':
      opt->help = Help::kSacctHelp;
      break;
    case 'U':
      opt->help = Help::kSacctUsage;
      break;
    case 'j': {
      Result<std::vector<SacctJobSelector>> jobs = ParseSacctJobList(value);
      if (!jobs.ok()) return fatal(jobs.status().message());
      for (const SacctJobSelector& s : *jobs) opt->filter.jobs.push_back(s);
      break;
    }
    case 'l':
      opt->long_list = true;
      break;
    case 'n':
      opt->no_header = true;
      break;
    case 'N': {
      Result<std::vector<std::string>> nodes = text::ExpandHostlist(value);
      if (nodes.ok()) {
        for (std::string& n : *nodes) opt->filter.nodes.push_back(std::move(n));
      } else {
        opt->filter.nodes.push_back(value);
      }
      break;
    }
    case 'o':
      opt->field_list += value + ",";
      break;
    case 'p':
      opt->output.layout = SacctLayout::kParsable;
      break;
    case 'P':
      opt->output.layout = SacctLayout::kParsable2;
      break;
    case 'q':
      for (std::string& q : SplitList(value)) opt->filter.qos.push_back(std::move(q));
      break;
    case 'r':
      for (std::string& p : SplitList(value)) opt->filter.partitions.push_back(std::move(p));
      break;
    case 's': {
      Result<std::vector<model::JobStateSelector>> states = ParseSacctStates(value);
      if (!states.ok()) return fatal(states.status().message());
      for (const model::JobStateSelector& s : *states) opt->filter.states.push_back(s);
      break;
    }
    case 't':
    case 'X':
      opt->filter.allocations = true;
      break;
    case 'u': {
      if (value == "-1") {
        opt->all_users = true;
        break;
      }
      opt->all_users = false;
      opt->users_given = true;
      size_t added = 0;
      for (const std::string& user : SplitList(value)) {
        const std::optional<uint32_t> uid = ResolveUser(ctx, user);
        if (!uid.has_value()) {
          *ctx.err << "sacct: error: Invalid user id: " << user << "\n";
          return 1;
        }
        opt->users.push_back(uid.value_or(0));
        ++added;
      }
      if (added == 0) return 1;  // Slurm exits silently on an empty list
      break;
    }
    case 'V':
      *ctx.out << kVersionLine;
      return 0;
    case kName:
      for (std::string& n : SplitList(value)) opt->filter.names.push_back(std::move(n));
      break;
    case kSacctNoConvert:
      opt->no_convert = true;
      break;
    case kDelimiter:
      opt->output.delimiter = value;
      break;
    case 'D':
      opt->duplicates = true;
      break;
    case 'L':
    case 'v':
    case kSacctFederation:
    case kSacctLocal:
    case kUseLocalUid:
    case kWholeHetjob:
      break;  // one cluster, no duplicate ids or hetjobs: nothing changes
    default:
      *ctx.err << "sacct: error: " << o.spelling << " is not supported by Gantry yet\n";
      return 1;
  }
  return std::nullopt;
}

}  // namespace

int RunSacct(const std::vector<std::string>& args, CommandContext& ctx) {
  const TimeZone& tz = ctx.time_zone != nullptr ? *ctx.time_zone : TimeZone::Utc();
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, kSacctShort, kSacctLong, ArgOrder::kPermute);
  SacctOptions opt;
  for (const ParsedOption& o : parsed.options) {
    if (std::optional<int> rc = ApplyOption(o, &opt, ctx, tz)) return *rc;
  }
  if (!parsed.error.empty()) {
    *ctx.err << parsed.error << "\n";
    return 1;
  }
  if (opt.long_list && !opt.field_list.empty()) {
    *ctx.err << "sacct: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
                "Please remove one and retry.\n";
    return 1;
  }
  SacctFilter& filter = opt.filter;
  filter.jobs_given = !filter.jobs.empty();
  Result<SacctWindow> window = ComputeSacctWindow(opt.start, opt.end, filter.jobs_given,
                                                  !filter.states.empty(), ctx.now, tz);
  if (!window.ok()) {
    *ctx.err << "sacct: error: " << window.status().message() << "\n";
    return 1;
  }
  filter.window = *window;

  // Users: -u; every user with -a, -j or -N, or for root; else the caller.
  if (!opt.users_given && (filter.jobs_given || !filter.nodes.empty() || ctx.uid == 0)) {
    opt.all_users = true;
  }
  if (!opt.all_users) filter.user_ids = opt.users_given ? opt.users : std::vector{ctx.uid};

  if (opt.brief) opt.field_list += std::string(kSacctBriefFields) + ",";
  if (opt.long_list) opt.field_list += std::string(kSacctLongFields) + ",";
  if (opt.field_list.empty()) {
    opt.field_list = ctx.GetEnv("SACCT_FORMAT").value_or(kSacctDefaultFields);
  }
  const SacctFormat format = ParseSacctFormat(opt.field_list);
  if (!format.error.empty()) {
    *ctx.err << format.error << "\n";
    return 1;
  }
  if (!parsed.operands.empty()) {
    *ctx.err << "sacct: error: Unknown arguments:\n";
    for (const std::string& a : parsed.operands) *ctx.err << "sacct: error:  " << a << "\n";
    return 1;
  }
  switch (opt.help) {
    case Help::kSacctHelp:
      *ctx.out << kSacctHelpText;
      return 0;
    case Help::kSacctFields:
      *ctx.out << SacctHelpFormat();
      return 0;
    case Help::kSacctUsage:
      *ctx.out << kSacctUsageText;
      return 0;
    case Help::kNone:
      break;
  }

  constexpr char kDatabase[] = "sacct: error: Problem talking to the database: ";
  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "sacct", kDatabase);
  if (!client) return 1;
  v1::GetJobsRequest request;
  request.set_history(true);
  request.set_window_start(filter.window.start);
  request.set_window_end(filter.window.end);
  for (uint32_t uid : filter.user_ids) request.add_user_ids(uid);
  request.set_eligible_in_window(!filter.jobs_given && filter.states.empty());
  bool every_id = false;
  for (const SacctJobSelector& s : filter.jobs) every_id = every_id || s.job_id == 0;
  for (const SacctJobSelector& s : filter.jobs) {
    if (!every_id) request.add_job_ids(s.job_id);
  }
  SacctPrintContext print;
  print.tz = &tz;
  print.no_convert = opt.no_convert;
  print.user_name = ctx.user_name;
  print.group_name = ctx.group_name;
  for (const SacctColumn& c : format.columns) {
    if (c.field->name != "Cluster") continue;
    Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest());
    if (config.ok()) print.cluster = config->cluster_name();
    break;
  }

  // Each job's lines are printed as it arrives, then put in order: by job id, an array's tasks
  // by task id at the array's id, its pending record last.
  ListingText lines;                                     // each job's lines, one piece
  std::vector<std::pair<uint32_t, uint32_t>> positions;  // each piece's place in the order
  JobsReplyVisitor visitor;
  visitor.start = [&](const JobsReplyHead& head) {
    print.now = head.now != 0 ? head.now : ctx.now;
    positions.reserve(head.jobs_at_most);
    lines.Reserve(head.jobs_at_most, size_t{160});  // a job line and its batch line
  };
  visitor.job = [&](const v1::Job& job) {
    if (opt.duplicates) {
      for (const v1::Job& earlier : EarlierRuns(job)) {
        for (const SacctRow& row : SelectSacctRows(std::span(&earlier, 1), filter)) {
          *lines.text() += RenderSacctLine(format.columns, row, print, opt.output);
        }
      }
    }
    for (const SacctRow& row : SelectSacctRows(std::span(&job, 1), filter)) {
      *lines.text() += RenderSacctLine(format.columns, row, print, opt.output);
    }
    if (lines.EndPiece()) {
      positions.emplace_back(ArrayJobIdOf(job),
                             job.has_array_task_id() ? job.array_task_id() : uint32_t{0xFFFFFFFE});
    }
    return Status::Ok();
  };
  Result<JobsReplyHead> listed = client->ListJobs(request, visitor);
  if (!listed.ok()) {
    *ctx.err << kDatabase << listed.status().message() << "\n";
    return 1;
  }
  std::vector<uint32_t> order(positions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return positions[a] < positions[b]; });
  lines.WriteOrdered(*ctx.out, opt.no_header ? "" : RenderSacctHeader(format.columns, opt.output),
                     order);
  return 0;
}

}  // namespace gantry::slurm
