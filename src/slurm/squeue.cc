// squeue: lists jobs (see squeue_format.h for the listing itself).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <thread>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/openapi_json.h"
#include "slurm/squeue_steps.h"
#include "slurm_view/job_view.h"
#include "slurm_view/listing_text.h"
#include "slurm_view/squeue_format.h"
#include "slurm_view/squeue_listing.h"
#include "slurm_view/squeue_sort.h"
#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

enum : int {
  kSqueueHelp = 0x100,
  kSqueueUsage,
  kSqueueHide,
  kStart,
  kSqueueNoConvert,
  kArrayUnique,
  kSqueueLocal,
  kSqueueSibling,
  kSqueueFederation,
  kSqueueMe,
  kSqueueJson,
  kSqueueYaml,
};

constexpr ShortOption kSqueueShort[] = {
    {'A', ArgKind::kRequired}, {'a', ArgKind::kNone},     {'h', ArgKind::kNone},
    {'i', ArgKind::kRequired}, {'j', ArgKind::kOptional}, {'l', ArgKind::kNone},
    {'L', ArgKind::kRequired}, {'n', ArgKind::kRequired}, {'M', ArgKind::kRequired},
    {'O', ArgKind::kRequired}, {'o', ArgKind::kRequired}, {'p', ArgKind::kRequired},
    {'P', ArgKind::kNone},     {'q', ArgKind::kRequired}, {'R', ArgKind::kRequired},
    {'r', ArgKind::kNone},     {'s', ArgKind::kOptional}, {'S', ArgKind::kRequired},
    {'t', ArgKind::kRequired}, {'u', ArgKind::kRequired}, {'U', ArgKind::kRequired},
    {'v', ArgKind::kNone},     {'V', ArgKind::kNone},     {'w', ArgKind::kRequired},
};

// squeue 22.05's long options, in its table order.
constexpr LongOption kSqueueLong[] = {
    {"accounts", ArgKind::kRequired, 'A'},
    {"all", ArgKind::kNone, 'a'},
    {"array", ArgKind::kNone, 'r'},
    {"array-unique", ArgKind::kNone, kArrayUnique},
    {"Format", ArgKind::kRequired, 'O'},
    {"format", ArgKind::kRequired, 'o'},
    {"federation", ArgKind::kNone, kSqueueFederation},
    {"help", ArgKind::kNone, kSqueueHelp},
    {"hide", ArgKind::kNone, kSqueueHide},
    {"iterate", ArgKind::kRequired, 'i'},
    {"jobs", ArgKind::kOptional, 'j'},
    {"json", ArgKind::kNone, kSqueueJson},
    {"local", ArgKind::kNone, kSqueueLocal},
    {"long", ArgKind::kNone, 'l'},
    {"licenses", ArgKind::kRequired, 'L'},
    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},
    {"me", ArgKind::kNone, kSqueueMe},
    {"name", ArgKind::kRequired, 'n'},
    {"noconvert", ArgKind::kNone, kSqueueNoConvert},
    {"node", ArgKind::kRequired, 'w'},
    {"nodes", ArgKind::kRequired, 'w'},
    {"nodelist", ArgKind::kRequired, 'w'},
    {"noheader", ArgKind::kNone, 'h'},
    {"partitions", ArgKind::kRequired, 'p'},
    {"priority", ArgKind::kNone, 'P'},
    {"qos", ArgKind::kRequired, 'q'},
    {"reservation", ArgKind::kRequired, 'R'},
    {"sib", ArgKind::kNone, kSqueueSibling},
    {"sibling", ArgKind::kNone, kSqueueSibling},
    {"sort", ArgKind::kRequired, 'S'},
    {"start", ArgKind::kNone, kStart},
    {"steps", ArgKind::kOptional, 's'},
    {"states", ArgKind::kRequired, 't'},
    {"usage", ArgKind::kNone, kSqueueUsage},
    {"user", ArgKind::kRequired, 'u'},
    {"users", ArgKind::kRequired, 'u'},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
    {"yaml", ArgKind::kNone, kSqueueYaml},
};

constexpr char kSqueueUsageText[] =
    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
    "              [--reservation reservation] [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
    "\t      [-ahjlrsv]\n";

constexpr char kSqueueHelpText[] =
    "Usage: squeue [OPTIONS]\n"
    "  -A, --account=account(s)        comma separated list of accounts to view\n"
    "  -a, --all                       display jobs in hidden partitions\n"
    "  -h, --noheader                  no headers on output\n"
    "      --hide                      do not display jobs in hidden partitions\n"
    "  -j, --jobs=job(s)               comma separated list of job IDs to view\n"
    "  -l, --long                      long report\n"
    "      --me                        equivalent to --user=<my username>\n"
    "  -n, --name=job_name(s)          comma separated list of job names to view\n"
    "  -o, --format=format             format specification\n"
    "  -p, --partition=partition(s)    comma separated list of partitions to view\n"
    "  -q, --qos=qos(s)                comma separated list of qos's to view\n"
    "  -S, --sort=fields               comma separated list of fields to sort on\n"
    "      --start                     print expected start times of pending jobs\n"
    "  -t, --states=states             comma separated list of states to view,\n"
    "                                  default is pending and running,\n"
    "                                  '--states=all' reports all states\n"
    "  -u, --user=user_name(s)         comma separated list of users to view\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "  -w, --nodelist=hostlist         list of nodes to view\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of squeue options\n";

constexpr char kSqueueValidStates[] =
    "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,"
    "DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,"
    "REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED";

struct SqueueOptions {
  bool no_header = false;
  bool long_list = false;
  bool start = false;
  bool expand_arrays = false;  // -r, or a task id given with -j
  std::optional<std::string> format;
  std::optional<std::string> format_long;  // -O
  bool json = false;
  std::optional<std::string> sort;
  bool job_flag = false;
  std::optional<std::string> jobs;
  std::optional<std::string> users;
  std::optional<std::string> states;
  std::optional<std::string> partitions;
  std::optional<std::string> names;
  std::optional<std::string> accounts;
  std::optional<std::string> qos;
  std::optional<std::string> nodes;
  bool me = false;
  uint32_t iterate = 0;  // -i seconds; 0 = once
  bool steps = false;    // -s[LIST]: job steps instead of jobs (squeue_steps.h)
  std::optional<std::string> step_list;
};

// squeue -s: the steps of the jobs `filter` selects.
int ListSteps(const SqueueOptions& opt, const JobFilter& filter, CommandContext& ctx) {
  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "squeue", "slurm_load_jobs error: ");
  if (!client) return 1;
  v1::GetJobsRequest request;
  if (filter.user_filter) {
    for (uint32_t uid : filter.user_ids) request.add_user_ids(uid);
  }
  Result<v1::GetJobsReply> reply = client->GetJobs(request);
  if (!reply.ok()) {
    *ctx.err << "slurm_load_job_steps error: " << reply.status().message() << "\n";
    return 1;
  }
  const UnixTime now = reply->now() != 0 ? reply->now() : ctx.now;
  std::vector<const v1::Job*> jobs;
  for (const v1::Job& job : reply->jobs()) {
    if (JobMatches(filter, job)) jobs.push_back(&job);
  }
  StepListing listing;
  if (opt.format) listing.format = *opt.format;
  listing.header = !opt.no_header;
  if (opt.step_list) listing.only = SplitList(*opt.step_list);
  Result<std::string> text = FormatSteps(jobs, listing, now);
  if (!text.ok()) {
    *ctx.err << "squeue: error: " << text.status().message() << "\n";
    return 1;
  }
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  if (opt.long_list && !opt.no_header) *ctx.out << CtimeLine(now, tz);
  *ctx.out << *text;
  return 0;
}

// squeue --json: every job, whatever the other options say (Slurm 22.05 ignores them).
int PrintJobsJson(CommandContext& ctx) {
  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "squeue", "slurm_load_jobs error: ");
  if (!client) return 1;
  Result<v1::GetJobsReply> reply = client->GetJobs(v1::GetJobsRequest());
  if (!reply.ok()) {
    *ctx.err << "slurm_load_jobs error: " << reply.status().message() << "\n";
    return 1;
  }
  OpenapiJobContext json_ctx;
  if (Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest()); config.ok()) {
    json_ctx.cluster = config->cluster_name();
  }
  bool any_nodes = false;
  for (const v1::Job& job : reply->jobs()) any_nodes = any_nodes || job.nodes_size() > 0;
  Result<v1::GetNodesReply> nodes = any_nodes ? client->GetNodes(v1::GetNodesRequest())
                                              : Result<v1::GetNodesReply>(v1::GetNodesReply());
  if (nodes.ok()) {
    for (const v1::Node& n : nodes->nodes()) json_ctx.nodes.push_back(&n);
  }
  nlohmann::ordered_json doc = OpenapiDocument();
  doc["jobs"] = nlohmann::ordered_json::array();
  for (const v1::Job& job : reply->jobs()) doc["jobs"].push_back(JobToOpenapi(job, json_ctx));
  *ctx.out << DumpSlurmJson(doc);
  return 0;
}

constexpr size_t kMaxListingParts = 4;

// The head of a listing: the time line (-l, -i) and the header, as asked.
std::string ListingHead(const SqueueOptions& opt, const SqueueQuery& query, UnixTime now,
                        const TimeZone& tz) {
  std::string head;
  if ((opt.long_list || opt.iterate != 0) && !opt.no_header) head += CtimeLine(now, tz);
  if (!opt.no_header) head += RenderJobHeader(query.format);
  return head;
}

// The listing made by gantryd (GetJobsRequest.squeue): its lines are written as they arrive.
int ListMadeByController(const SqueueOptions& opt, const v1::SqueueView& view,
                         const SqueueQuery& query, ControllerClient& client, CommandContext& ctx) {
  v1::GetJobsRequest request;
  *request.mutable_squeue() = view;
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  JobsReplyVisitor visitor;
  visitor.start = [&](const JobsReplyHead& head) {
    *ctx.out << ListingHead(opt, query, head.now != 0 ? head.now : ctx.now, tz);
  };
  visitor.job = [](const v1::Job&) { return InvalidArgument("jobs in a listing of lines"); };
  visitor.lines = [&](std::string_view lines) {
    ctx.out->write(lines.data(), static_cast<std::streamsize>(lines.size()));
    return Status::Ok();
  };
  Result<JobsReplyHead> listed = client.ListJobs(request, visitor);
  if (!listed.ok()) {
    *ctx.err << "slurm_load_jobs error: " << listed.status().message() << "\n";
    return 1;
  }
  return 0;
}

// What squeue keeps of one part of a reply it reads: the listing's piece, and whether the single
// job asked for was among the records.
struct ListedPart {
  explicit ListedPart(ListingPiece p) : piece(std::move(p)) {}
  ListingPiece piece;
  bool found = false;
  UnixTime now = 0;
};

// One listing (the whole command without -i). Made by gantryd when it can (ControllerCanList),
// unless GANTRY_SQUEUE_IN_CLIENT is set; else made here from the records.
int ListOnce(const SqueueOptions& opt, const v1::SqueueView& view, const SqueueQuery& query,
             CommandContext& ctx) {
  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "squeue", "slurm_load_jobs error: ");
  if (!client) return 1;
  if (ControllerCanList(query) && !ctx.GetEnv("GANTRY_SQUEUE_IN_CLIENT")) {
    return ListMadeByController(opt, view, query, *client, ctx);
  }
  const JobFilter& filter = query.filter;
  std::string cluster;
  for (const JobColumn& c : query.format.columns) {
    if (c.field == nullptr || c.field->name != "Cluster") continue;
    Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest());
    if (config.ok()) cluster = config->cluster_name();
    break;
  }
  // One id (a job, an array or one array task) is loaded alone, as Slurm's single-job load.
  std::optional<uint32_t> single;
  if (filter.job_ids.size() + filter.array_tasks.size() == 1) {
    single = filter.job_ids.empty() ? filter.array_tasks[0].first : filter.job_ids[0];
  }
  v1::GetJobsRequest request;
  if (single) request.add_job_ids(*single);
  const model::JobRecordForm form = RecordFormOf(query);
  request.set_brief(form == model::JobRecordForm::kBrief);
  request.set_slim(form == model::JobRecordForm::kSlim);
  // -u: only those users' jobs come back.
  if (filter.user_filter && !filter.user_ids.empty()) {
    for (uint32_t uid : filter.user_ids) request.add_user_ids(uid);
  }
  // Slurm's single-job load fails for an unknown id, whether or not the controller says so.
  JobFilter only;
  only.job_ids = filter.job_ids;
  only.array_tasks = filter.array_tasks;
  only.states = model::JobStateFilter{};
  only.states->all = true;

  // Each job is keyed and printed as it arrives; only its keys and its line are kept. A whole
  // listing is read in parts at once (one connection and thread each, on machines with more
  // than one core); the parts are put in order together afterwards.
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  const bool whole = request.job_ids().empty() && request.user_ids().empty();
  const size_t count =
      whole ? std::clamp<size_t>(std::thread::hardware_concurrency(), 1, kMaxListingParts) : 1;
  std::vector<ListedPart> parts;
  parts.reserve(count);
  for (size_t i = 0; i < count; ++i) parts.emplace_back(NewPiece(query, 0));
  std::vector<JobsReplyVisitor> visitors;
  for (ListedPart& part : parts) {
    part.now = ctx.now;
    JobsReplyVisitor visitor;
    visitor.start = [&part, &query](const JobsReplyHead& head) {
      if (head.now != 0) part.now = head.now;
      part.piece = NewPiece(query, head.jobs_at_most);
    };
    visitor.job = [&part, &query, &tz, &cluster, &only, single](const v1::Job& job) {
      if (single && !part.found) {  // a task asked for is found among the array's tasks
        if (!query.expand_arrays) {
          part.found = JobMatches(only, job);
        } else {
          for (const v1::Job& one : ExpandArrayTasks(job)) {
            part.found = part.found || JobMatches(only, one);
          }
        }
      }
      AddRecord(query, job, JobPrintContext{part.now, &tz, cluster}, &part.piece);
      return Status::Ok();
    };
    visitors.push_back(std::move(visitor));
  }
  Result<JobsReplyHead> listed = client->ListJobsInParts(request, visitors);
  if (!listed.ok()) {
    *ctx.err << "slurm_load_jobs error: " << listed.status().message() << "\n";
    return 1;
  }
  const size_t shards = std::clamp<size_t>(listed->shards, 1, parts.size());
  parts.erase(parts.begin() + static_cast<ptrdiff_t>(shards), parts.end());
  bool found = false;
  std::vector<const ListingPiece*> pieces;
  std::vector<const ListingText*> texts;
  for (const ListedPart& part : parts) {
    found = found || part.found;
    pieces.push_back(&part.piece);
    texts.push_back(&part.piece.lines);
  }
  if (single && !found) {
    *ctx.err << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  ListingText::WriteOrdered(*ctx.out, ListingHead(opt, query, parts[0].now, tz), texts,
                            OrderPieces(pieces));
  return 0;
}

}  // namespace

int RunSqueue(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kSqueueShort, kSqueueLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "squeue", parsed.error);
    return 1;
  }
  SqueueOptions opt;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'h':
        opt.no_header = true;
        break;
      case 'l':
        opt.long_list = true;
        break;
      case 'o':
        if (opt.format_long) {
          *ctx.err << "squeue: error: -o (--format) is incompatible with -O (--Format)\n";
          return 1;
        }
        opt.format = value;
        break;
      case 'O':
        if (opt.format) {
          *ctx.err << "squeue: error: -O (--Format) is incompatible with -o (--format)\n";
          return 1;
        }
        opt.format_long = value;
        break;
      case kSqueueJson:
        opt.json = true;
        break;
      case 'S':
        opt.sort = value;
        break;
      case 'j':
        opt.job_flag = true;
        if (o.value) opt.jobs = value;
        break;
      case 'u':
        opt.users = value;
        opt.me = false;
        break;
      case kSqueueMe:
        opt.me = true;
        opt.users.reset();
        break;
      case 't':
        opt.states = value;
        break;
      case 'p':
        opt.partitions = value;
        break;
      case 'n':
        opt.names = value;
        break;
      case 'A':
      case 'U':
        opt.accounts = value;
        break;
      case 'q':
        opt.qos = value;
        break;
      case 'w':
        opt.nodes = value;
        break;
      case kStart:
        opt.start = true;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kSqueueHelp:
        *ctx.out << kSqueueHelpText;
        return 0;
      case kSqueueUsage:
        *ctx.out << kSqueueUsageText;
        return 0;
      case 'r':
        opt.expand_arrays = true;
        break;
      case 's':
        opt.steps = true;
        if (o.value && !o.value->empty()) opt.step_list = *o.value;
        break;
      case 'i': {
        const std::optional<int64_t> seconds = ParseSigned(value);
        if (!seconds || *seconds <= 0 || *seconds > UINT32_MAX) {
          *ctx.err << "squeue: error: --iterate=" << value << "\n\n";
          return 1;
        }
        opt.iterate = static_cast<uint32_t>(*seconds);
        break;
      }
      case 'a':
      case kSqueueHide:
      case kArrayUnique:
      case 'P':
      case kSqueueNoConvert:
      case 'v':
      case kSqueueLocal:
      case kSqueueSibling:
      case kSqueueFederation:
        break;  // single cluster, no hidden partitions: nothing changes
      default:
        *ctx.err << "squeue: error: " << o.spelling << " is not supported by Gantry yet\n";
        return 1;
    }
  }
  if (opt.long_list && opt.format) {
    *ctx.err << "squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
                "Please remove one and retry.\n";
    return 1;
  }
  if (!opt.format && !opt.format_long && !opt.long_list && !opt.start) {
    if (std::optional<std::string> env = ctx.GetEnv("SQUEUE_FORMAT")) {
      opt.format = *env;
    } else if (std::optional<std::string> env2 = ctx.GetEnv("SQUEUE_FORMAT2")) {
      opt.format_long = *env2;
    }
  }
  if (!parsed.operands.empty()) {
    size_t next = 0;
    if (opt.job_flag) opt.jobs = parsed.operands[next++];
    if (next < parsed.operands.size()) {
      *ctx.err << "squeue: error: Unrecognized option: " << parsed.operands[next] << "\n";
      *ctx.out << kSqueueUsageText;
      return 1;
    }
  }
  if (!opt.sort) {
    if (std::optional<std::string> env = ctx.GetEnv("SQUEUE_SORT")) opt.sort = *env;
  }
  auto env_default = [&](std::optional<std::string>* field, const char* name) {
    if (!field->has_value()) {
      if (std::optional<std::string> env = ctx.GetEnv(name)) *field = *env;
    }
  };
  env_default(&opt.accounts, "SQUEUE_ACCOUNT");
  env_default(&opt.names, "SQUEUE_NAMES");
  env_default(&opt.partitions, "SQUEUE_PARTITION");
  env_default(&opt.qos, "SQUEUE_QOS");
  env_default(&opt.states, "SQUEUE_STATES");
  if (!opt.me) env_default(&opt.users, "SQUEUE_USERS");
  if (opt.start) {
    if (!opt.format) opt.format = kSqueueStartFormat;
    if (!opt.sort) opt.sort = "S";
    if (!opt.states) opt.states = "PD";
  }

  JobFilter filter;
  if (opt.jobs) {
    for (const std::string& item : SplitList(*opt.jobs)) {
      // job_id, array_id_task, array_id_[tasks]: tasks are listed one per line.
      const std::optional<text::ParsedJobId> id = text::ParseJobIdText(item);
      if (!id) {
        *ctx.err << "squeue: error: Invalid job id: " << item << "\n";
        return 1;
      }
      if (id->whole) filter.job_ids.push_back(id->job_id);
      for (uint32_t task : id->tasks) filter.array_tasks.emplace_back(id->job_id, task);
      if (!id->whole) opt.expand_arrays = true;
    }
  }
  if (opt.states) {
    Result<model::JobStateFilter> states = model::ParseJobStateFilter(*opt.states);
    if (!states.ok()) {
      // Name the first word Slurm would refuse.
      std::string bad = *opt.states;
      for (const std::string& word : SplitList(*opt.states)) {
        if (!model::ParseJobStateSelector(word).ok()) {
          bad = word;
          break;
        }
      }
      *ctx.err << "squeue: error: Invalid job state specified: " << bad << "\n"
               << "squeue: error: Valid job states include: " << kSqueueValidStates << "\n\n";
      return 1;
    }
    filter.states = std::move(states).value();
  }
  if (opt.me) {
    filter.user_filter = true;
    filter.user_ids.push_back(ctx.uid);
  } else if (opt.users) {
    filter.user_filter = true;
    for (const std::string& user : SplitList(*opt.users)) {
      const std::optional<uint32_t> uid = ResolveUser(ctx, user);
      if (!uid.has_value()) {
        *ctx.err << "squeue: error: Invalid user: " << user << "\n\n";
        continue;
      }
      filter.user_ids.push_back(uid.value_or(0));
    }
  }
  if (opt.partitions) filter.partitions = SplitList(*opt.partitions);
  if (opt.names) filter.names = SplitList(*opt.names);
  if (opt.accounts) filter.accounts = SplitList(*opt.accounts);
  if (opt.qos) filter.qos = SplitList(*opt.qos);
  if (opt.nodes) {
    Result<std::vector<std::string>> nodes = text::ExpandHostlist(*opt.nodes);
    if (!nodes.ok()) {
      *ctx.err << "squeue: error: '" << *opt.nodes << "' invalid entry for --nodelist\n";
      return 1;
    }
    filter.nodes = std::move(nodes).value();
  }

  if (opt.json) return PrintJobsJson(ctx);
  if (opt.steps) return ListSteps(opt, filter, ctx);

  // -o wins over -O (--start sets -o's default), as squeue's _print_job does.
  v1::SqueueView view;
  if (opt.format) {
    view.set_format(*opt.format);
  } else if (opt.format_long) {
    view.set_format_long(*opt.format_long);
  } else {
    view.set_format(opt.long_list ? kSqueueLongFormat : kSqueueDefaultFormat);
  }
  if (opt.sort) {
    if (Result<JobSorter> sorter = JobSorter::Create(*opt.sort); !sorter.ok()) {
      *ctx.err << "squeue: error: " << sorter.status().message() << "\n";
      return 1;
    }
    view.set_sort(*opt.sort);
  }
  view.set_expand_arrays(opt.expand_arrays);
  view.set_user_filter(filter.user_filter);
  for (uint32_t uid : filter.user_ids) view.add_user_ids(uid);
  for (const std::string& p : filter.partitions) view.add_partitions(p);
  for (const std::string& n : filter.names) view.add_names(n);
  for (const std::string& a : filter.accounts) view.add_accounts(a);
  for (const std::string& q : filter.qos) view.add_qos(q);
  for (const std::string& n : filter.nodes) view.add_nodes(n);
  if (opt.states) view.set_states(*opt.states);
  Result<SqueueQuery> query = QueryOf(view);
  if (!query.ok()) {
    *ctx.err << "squeue: error: " << query.status().message() << "\n";
    return 1;
  }
  query->filter.job_ids = filter.job_ids;
  query->filter.array_tasks = filter.array_tasks;
  for (const std::string& e : query->format.errors) *ctx.err << "squeue: error: " << e << "\n";

  if (opt.iterate == 0) return ListOnce(opt, view, *query, ctx);
  for (;;) {  // -i: again every N seconds, each listing followed by an empty line
    ListOnce(opt, view, *query, ctx);
    *ctx.out << "\n" << std::flush;
    std::this_thread::sleep_for(std::chrono::seconds(opt.iterate));
  }
}

}  // namespace gantry::slurm
