// scontrol: show job|node|partition|config|hostnames|hostlist, update
// NodeName=/JobId=/PartitionName=, hold, uhold, release, requeue, requeuehold, suspend, resume,
// ping, version. Keywords may be abbreviated as in Slurm
// ("sho", "j", "n", "pa"). Records are printed by scontrol_show.h.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/scontrol_show.h"
#include "slurm/slurm_errors.h"
#include "slurm_view/job_view.h"
#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

enum : int {
  kScontrolHelp = 0x100,
  kScontrolUsage,
  kScontrolHide,
  kScontrolLocal,
  kScontrolSibling,
  kScontrolFederation,
};

constexpr ShortOption kScontrolShort[] = {
    {'a', ArgKind::kNone}, {'d', ArgKind::kNone},     {'h', ArgKind::kNone},
    {'o', ArgKind::kNone}, {'u', ArgKind::kRequired}, {'v', ArgKind::kNone},
    {'F', ArgKind::kNone}, {'M', ArgKind::kRequired}, {'Q', ArgKind::kNone},
    {'V', ArgKind::kNone},
};

// scontrol 22.05's long options, in its table order.
constexpr LongOption kScontrolLong[] = {
    {"all", ArgKind::kNone, 'a'},
    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},
    {"details", ArgKind::kNone, 'd'},
    {"federation", ArgKind::kNone, kScontrolFederation},
    {"future", ArgKind::kNone, 'F'},
    {"help", ArgKind::kNone, kScontrolHelp},
    {"hide", ArgKind::kNone, kScontrolHide},
    {"local", ArgKind::kNone, kScontrolLocal},
    {"oneliner", ArgKind::kNone, 'o'},
    {"quiet", ArgKind::kNone, 'Q'},
    {"sibling", ArgKind::kNone, kScontrolSibling},
    {"uid", ArgKind::kRequired, 'u'},
    {"usage", ArgKind::kNone, kScontrolUsage},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
};

constexpr char kScontrolHelpText[] =
    "scontrol [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a, --all      Equivalent to \"all\" command\n"
    "     -d, --details  Equivalent to \"details\" command\n"
    "     -h, --help     Equivalent to \"help\" command\n"
    "     -o, --oneliner Equivalent to \"oneliner\" command\n"
    "     -Q, --quiet    Equivalent to \"quiet\" command\n"
    "     -v, --verbose  Equivalent to \"verbose\" command\n"
    "     -V, --version  Equivalent to \"version\" command\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     hold <job_list>          place hold on jobs in job_list\n"
    "     ping                     print status of slurmctld daemons\n"
    "     release <job_list>       permit specified jobs to start\n"
    "     requeue <job_id>         re-queue a batch job\n"
    "     requeuehold <job_id>     re-queue and hold a batch job\n"
    "     resume <jobid_list>      resume previously suspended job (see suspend)\n"
    "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
    "                              is all records\n"
    "     suspend <job_list>       susend specified job (see resume)\n"
    "     uhold <job_list>         place user hold on jobs in job_list\n"
    "     update <SPECIFICATIONS>  update job, node or partition configuration\n"
    "     version                  display tool version number\n"
    "     write batch_script <job_id> <optional filename>\n"
    "                              write the batch script of a job to a file\n"
    "\n"
    "  <ENTITY> may be \"config\", \"hostlist\", \"hostlistsorted\", \"hostnames\",\n"
    "  \"job\", \"node\" or \"partition\".\n"
    "\n"
    "  Node update: NodeName=<hostlist> State=DRAIN|DOWN|RESUME|IDLE|UNDRAIN|FAIL\n"
    "               Reason=<text>\n"
    "  Job update:  JobId=<id> <Key>=<value> ...\n"
    "  Partition update: PartitionName=<name> State=UP|DOWN|DRAIN|INACTIVE\n"
    "               MaxTime=<time> DefaultTime=<time>\n";

struct Flags {
  bool all = false;
  bool details = false;
  bool one_liner = false;
  bool quiet = false;
};

class Scontrol {
 public:
  Scontrol(CommandContext& ctx, Flags flags) : ctx_(ctx), flags_(flags) {}

  int Run(const std::vector<std::string>& words);

 private:
  ControllerClient* Client(std::string_view failure_prefix);
  const TimeZone& Tz() const { return ctx_.time_zone ? *ctx_.time_zone : TimeZone::Utc(); }
  ShowOptions Show() const { return {flags_.details, flags_.one_liner}; }

  int ShowJobs(const std::vector<std::string>& args);
  int ShowNodes(const std::vector<std::string>& args);
  int ShowPartitions(const std::vector<std::string>& args);
  int ShowConfig();
  int ShowHostnames(const std::vector<std::string>& args);
  int ShowHostlist(const std::vector<std::string>& args, bool sorted);
  int Update(const std::vector<std::string>& args);
  int UpdateNode(const std::map<std::string, std::string>& fields, const std::string& names);
  int UpdateJob(const std::vector<std::pair<std::string, std::string>>& fields,
                const std::string& ids);
  int UpdatePartition(const std::vector<std::pair<std::string, std::string>>& fields,
                      const std::string& name);
  int Suspend(bool suspend, const std::vector<std::string>& args);
  int JobAction(const std::string& action, const std::vector<std::string>& args);
  int Ping();
  int Takeover(const std::vector<std::string>& rest);
  int Token(const std::vector<std::string>& args);
  int WriteBatchScript(const std::vector<std::string>& args);

  CommandContext& ctx_;
  Flags flags_;
  std::unique_ptr<ControllerClient> client_;
};

ControllerClient* Scontrol::Client(std::string_view failure_prefix) {
  if (!client_) client_ = ConnectOrReport(ctx_, "scontrol", failure_prefix);
  return client_.get();
}

int Scontrol::Run(const std::vector<std::string>& words) {
  const std::string& tag = words[0];
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (Keyword(tag, "show", 3)) {
    if (rest.empty()) {
      *ctx_.err << "too few arguments for keyword:" << tag << "\n";
      return 1;
    }
    const std::string& entity = rest[0];
    const std::vector<std::string> ids(rest.begin() + 1, rest.end());
    if (Keyword(entity, "jobs", 1)) return ShowJobs(ids);
    if (Keyword(entity, "nodes", 1)) return ShowNodes(ids);
    if (Keyword(entity, "partitions", 2)) return ShowPartitions(ids);
    if (Keyword(entity, "config", 1)) return ShowConfig();
    if (text::EqualsIgnoreCase(entity, "hostnames")) return ShowHostnames(ids);
    if (text::EqualsIgnoreCase(entity, "hostlist")) return ShowHostlist(ids, false);
    if (text::EqualsIgnoreCase(entity, "hostlistsorted")) return ShowHostlist(ids, true);
    *ctx_.err << "invalid entity:" << entity << " for keyword:" << tag << " \n";
    return 1;
  }
  if (Keyword(tag, "update", 1)) return Update(rest);
  for (const char* action : {"hold", "uhold", "release", "requeue", "requeuehold"}) {
    if (text::EqualsIgnoreCase(tag, action)) {
      if (rest.empty()) {
        *ctx_.err << "too few arguments for keyword:" << tag << "\n";
        return 1;
      }
      return JobAction(text::AsciiToLower(tag), rest);
    }
  }
  if (Keyword(tag, "suspend", 2) || Keyword(tag, "resume", 3)) {
    if (rest.empty()) {
      *ctx_.err << "too few arguments for keyword:" << tag << "\n";
      return 1;
    }
    return Suspend(Keyword(tag, "suspend", 2), rest);
  }
  if (Keyword(tag, "ping", 3)) return Ping();
  if (Keyword(tag, "takeover", 8)) return Takeover(rest);
  if (Keyword(tag, "token", 3)) return Token(rest);
  if (Keyword(tag, "write", 5)) {
    if (rest.empty()) {
      *ctx_.err << "too few arguments for keyword:" << tag << "\n";
      return 1;
    }
    if (Keyword(rest[0], "batch_script", 5)) {
      if (rest.size() > 3) {
        *ctx_.err << "too many arguments for keyword:" << tag << "\n";
        return 1;
      }
      return WriteBatchScript({rest.begin() + 1, rest.end()});
    }
    *ctx_.err << "invalid write argument:" << rest[0] << "\n";
    return 1;
  }
  if (Keyword(tag, "version", 4)) {
    *ctx_.out << kVersionLine;
    return 0;
  }
  if (Keyword(tag, "help", 2)) {
    *ctx_.out << kScontrolHelpText;
    return 0;
  }
  *ctx_.err << "invalid keyword: " << tag << "\n";
  return 1;
}

// token [lifespan=SECONDS] [username=NAME]: "SLURM_JWT=<token>", as Slurm prints it. Any user
// for themselves; root and SlurmUser for anyone (rpc/user_token.h).
int Scontrol::Token(const std::vector<std::string>& args) {
  v1::IssueTokenRequest request;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    const std::string key = text::AsciiToLower(arg.substr(0, eq == std::string::npos ? 0 : eq));
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "lifespan") {
      const std::optional<int64_t> seconds = ParseSigned(value);
      if (!seconds || *seconds <= 0) {
        *ctx_.err << "Invalid lifespan value: `" << value << "` (expected seconds, above 0)\n";
        return 1;
      }
      request.set_lifespan_seconds(*seconds);
    } else if (key == "username") {
      request.set_user_name(value);
    } else {
      *ctx_.err << "Invalid option: `" << arg << "`\n";
      return 1;
    }
  }
  ControllerClient* client = Client("Error fetching token: ");
  if (client == nullptr) return 1;
  Result<v1::IssueTokenReply> reply = client->IssueToken(request);
  if (!reply.ok()) {
    *ctx_.err << "Error fetching token: " << reply.status().message() << "\n";
    return 1;
  }
  *ctx_.out << "SLURM_JWT=" << reply->token() << "\n";
  return 0;
}

// write batch_script JOBID [FILE]: the script into FILE (default slurm-JOBID.sh, "-" = stdout),
// written by this command as its user. Slurm's texts; unlike scontrol 22.05, a failure exits 1.
int Scontrol::WriteBatchScript(const std::vector<std::string>& args) {
  if (args.empty()) return 1;
  const uint32_t job_id = static_cast<uint32_t>(std::strtoull(args[0].c_str(), nullptr, 10));
  const std::string file = args.size() > 1 ? args[1] : "slurm-" + std::to_string(job_id) + ".sh";
  ControllerClient* client = Client("job script retrieval failed: ");
  if (client == nullptr) return 1;
  v1::GetJobScriptRequest request;
  request.set_job_id(job_id);
  Result<v1::GetJobScriptReply> reply = client->GetJobScript(request);
  if (!reply.ok()) {
    *ctx_.err << "job script retrieval failed: " << reply.status().message() << "\n";
    return 1;
  }
  if (file == "-") {
    *ctx_.out << reply->script();
    return 0;
  }
  std::ofstream out(Absolute(file, ctx_.cwd), std::ios::binary | std::ios::trunc);
  if (!out || !(out << reply->script()) || !out.flush()) {
    *ctx_.err << "failed to open file `" << file << "`: " << std::strerror(errno) << "\n";
    return 1;
  }
  if (!flags_.quiet) {
    *ctx_.out << "batch script for job " << job_id << " written to " << file << "\n";
  }
  return 0;
}

int Scontrol::ShowJobs(const std::vector<std::string>& args) {
  std::vector<text::ParsedJobId> ids;
  for (const std::string& arg : args) {
    for (const std::string& item : SplitList(arg)) {
      std::optional<text::ParsedJobId> id = text::ParseJobIdText(item);
      if (!id) {
        *ctx_.err << "scontrol_print_job error: Invalid job id specified\n";
        return 1;
      }
      ids.push_back(std::move(*id));
    }
  }
  ControllerClient* client = Client("slurm_load_jobs error: ");
  if (client == nullptr) return 1;
  v1::GetJobsRequest request;
  for (const text::ParsedJobId& id : ids) request.add_job_ids(id.job_id);
  request.set_include_all(!ids.empty());
  Result<v1::GetJobsReply> reply = client->GetJobs(request);
  if (!reply.ok()) {
    *ctx_.err << "slurm_load_jobs error: " << reply.status().message() << "\n";
    return 1;
  }
  const UnixTime now = reply->now() != 0 ? reply->now() : ctx_.now;
  std::vector<v1::Job> shown;
  if (ids.empty()) {
    shown.assign(reply->jobs().begin(), reply->jobs().end());
  }
  for (const text::ParsedJobId& id : ids) {
    // An array: its own record first, then its tasks newest first (as slurmctld lists them).
    std::vector<const v1::Job*> records;
    for (const v1::Job& job : reply->jobs()) {
      if (job.job_id() == id.job_id || job.array_job_id() == id.job_id) records.push_back(&job);
    }
    std::sort(records.begin(), records.end(), [](const v1::Job* a, const v1::Job* b) {
      const bool a_record = !a->has_array_task_id();
      const bool b_record = !b->has_array_task_id();
      if (a_record != b_record) return a_record;
      return a->job_id() > b->job_id();
    });
    for (const v1::Job* job : records) {
      if (id.whole) {
        shown.push_back(*job);
        continue;
      }
      for (v1::Job& task : ExpandArrayTasks(*job)) {
        if (task.array_job_id() == id.job_id && task.has_array_task_id() &&
            std::find(id.tasks.begin(), id.tasks.end(), task.array_task_id()) != id.tasks.end()) {
          shown.push_back(std::move(task));
        }
      }
    }
  }
  for (const v1::Job& job : shown) *ctx_.out << FormatJobRecord(job, now, Tz(), Show());
  if (shown.empty()) {
    if (!ids.empty()) {
      *ctx_.err << "slurm_load_jobs error: Invalid job id specified\n";
      return 1;
    }
    if (!flags_.quiet) *ctx_.out << "No jobs in the system\n";
  }
  return 0;
}

int Scontrol::ShowNodes(const std::vector<std::string>& args) {
  std::vector<std::string> wanted;
  for (const std::string& arg : args) {
    Result<std::vector<std::string>> names = text::ExpandHostlist(arg);
    if (!names.ok()) {
      *ctx_.err << "Node " << arg << " not found\n";
      return 1;
    }
    wanted.insert(wanted.end(), names->begin(), names->end());
  }
  ControllerClient* client = Client("slurm_load_node error: ");
  if (client == nullptr) return 1;
  Result<v1::GetNodesReply> reply = client->GetNodes(v1::GetNodesRequest());
  if (!reply.ok()) {
    *ctx_.err << "slurm_load_node error: " << reply.status().message() << "\n";
    return 1;
  }
  int printed = 0;
  for (const v1::Node& node : reply->nodes()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), node.name()) == wanted.end()) {
      continue;
    }
    *ctx_.out << FormatNodeRecord(node, Tz(), Show(), ctx_.user_name);
    ++printed;
  }
  if (printed == 0) {
    if (!flags_.quiet) {
      if (!args.empty()) {
        *ctx_.out << "Node " << args[0] << " not found\n";
      } else {
        *ctx_.out << "No nodes in the system\n";
      }
    }
    return args.empty() ? 0 : 1;
  }
  return 0;
}

int Scontrol::ShowPartitions(const std::vector<std::string>& args) {
  ControllerClient* client = Client("slurm_load_partitions error: ");
  if (client == nullptr) return 1;
  Result<v1::GetNodesReply> reply = client->GetNodes(v1::GetNodesRequest());
  if (!reply.ok()) {
    *ctx_.err << "slurm_load_partitions error: " << reply.status().message() << "\n";
    return 1;
  }
  int printed = 0;
  for (const v1::Partition& p : reply->partitions()) {
    if (!args.empty() && p.name() != args[0]) continue;
    if (args.empty() && p.hidden() && !flags_.all) continue;
    std::vector<std::string> members;
    for (const std::string& expr : p.nodes()) {
      Result<std::vector<std::string>> names = text::ExpandHostlist(expr);
      if (names.ok()) members.insert(members.end(), names->begin(), names->end());
    }
    std::vector<const v1::Node*> nodes;
    for (const v1::Node& n : reply->nodes()) {
      if (std::find(members.begin(), members.end(), n.name()) != members.end()) {
        nodes.push_back(&n);
      }
    }
    *ctx_.out << FormatPartitionRecord(p, nodes, Show());
    ++printed;
  }
  if (printed == 0) {
    if (!flags_.quiet) {
      if (!args.empty()) {
        *ctx_.out << "Partition " << args[0] << " not found\n";
      } else {
        *ctx_.out << "No partitions in the system\n";
      }
    }
    return args.empty() ? 0 : 1;
  }
  return 0;
}

int Scontrol::ShowConfig() {
  ControllerClient* client = Client("slurm_load_ctl_conf error: ");
  if (client == nullptr) return 1;
  Result<v1::GetConfigReply> reply = client->GetConfig(v1::GetConfigRequest());
  if (!reply.ok()) {
    *ctx_.err << "slurm_load_ctl_conf error: " << reply.status().message() << "\n";
    return 1;
  }
  const UnixTime now = reply->now() != 0 ? reply->now() : ctx_.now;
  const std::string host =
      client->controller_host().empty() ? ctx_.hostname : client->controller_host();
  *ctx_.out << FormatConfig(*reply, now, Tz(), host);
  return 0;
}

int Scontrol::ShowHostnames(const std::vector<std::string>& args) {
  std::string expr;
  if (!args.empty()) {
    expr = args[0];
  } else if (std::optional<std::string> env = ctx_.GetEnv("SLURM_JOB_NODELIST")) {
    expr = *env;
  } else {
    *ctx_.err << "There is no hostlist to expand\n";
    return 1;
  }
  Result<std::vector<std::string>> names = text::ExpandHostlist(expr);
  if (!names.ok()) {
    *ctx_.err << "Invalid hostlist: " << expr << "\n";
    return 1;
  }
  for (const std::string& n : *names) *ctx_.out << n << "\n";
  return 0;
}

int Scontrol::ShowHostlist(const std::vector<std::string>& args, bool sorted) {
  if (args.empty()) {
    *ctx_.err << "There is no hostlist to compress\n";
    return 1;
  }
  Result<std::string> out =
      sorted ? text::RecompressHostlistSorted(args[0]) : text::RecompressHostlist(args[0]);
  if (!out.ok()) {
    *ctx_.err << "Invalid hostlist: " << args[0] << "\n";
    return 1;
  }
  *ctx_.out << *out << "\n";
  return 0;
}

int Scontrol::Update(const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      *ctx_.err << "Invalid input: " << arg << "\nRequest aborted\n";
      return 1;
    }
    fields.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
  }
  for (const auto& [key, value] : fields) {
    if (text::EqualsIgnoreCase(key, "NodeName")) {
      std::map<std::string, std::string> node_fields;
      for (const auto& [k, v] : fields) node_fields[text::AsciiToLower(k)] = v;
      return UpdateNode(node_fields, value);
    }
    if (text::EqualsIgnoreCase(key, "JobId")) return UpdateJob(fields, value);
    if (Keyword(key, "PartitionName", 3)) return UpdatePartition(fields, value);
  }
  *ctx_.err << "No valid entity in update command\n"
               "Input line must include \"NodeName\", \"PartitionName\", \"Reservation\", "
               "\"JobId\", or \"SlurmctldDebug\"\n";
  return 1;
}

int Scontrol::UpdateNode(const std::map<std::string, std::string>& fields,
                         const std::string& names) {
  v1::UpdateNodeRequest request;
  request.set_names(names);
  std::optional<model::NodeUpdateState> state;
  for (const auto& [key, value] : fields) {
    if (key == "nodename") continue;
    if (key == "state") {
      Result<model::NodeUpdateState> parsed = model::ParseNodeUpdateState(value);
      if (!parsed.ok()) {
        *ctx_.err << "Invalid input: State=" << value << "\n"
                  << "Request aborted\n"
                  << "Valid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP "
                     "UNDRAIN\n"
                  << "Not all states are valid given a node's prior state\n";
        return 1;
      }
      state = *parsed;
      request.set_state(std::string(model::NodeUpdateStateName(*parsed)));
    } else if (key == "reason") {
      request.set_reason(value);
    } else {
      *ctx_.err << "Update of this parameter is not supported: " << key << "=" << value << "\n"
                << "Request aborted\n";
      return 1;
    }
  }
  if (state && model::NodeUpdateNeedsReason(*state) && request.reason().empty()) {
    *ctx_.err << "You must specify a reason when DOWNING or DRAINING a node. Request denied\n";
    return 1;
  }
  if (!state && request.reason().empty()) {
    *ctx_.err << "No changes specified\n";
    return 1;
  }
  ControllerClient* client = Client("slurm_update error: ");
  if (client == nullptr) return 1;
  Result<v1::UpdateNodeReply> reply = client->UpdateNode(request);
  if (!reply.ok()) {
    *ctx_.err << "slurm_update error: " << reply.status().message() << "\n";
    return 1;
  }
  return 0;
}

int Scontrol::UpdateJob(const std::vector<std::pair<std::string, std::string>>& fields,
                        const std::string& ids) {
  v1::UpdateJobRequest request;
  request.set_action("update");
  for (const std::string& id : SplitList(ids)) request.add_job_ids(id);
  for (const auto& [key, value] : fields) {
    if (text::EqualsIgnoreCase(key, "JobId")) continue;
    (*request.mutable_fields())[key] = value;
  }
  if (request.fields().empty()) {
    *ctx_.err << "No changes specified\n";
    return 1;
  }
  ControllerClient* client = Client("slurm_update error: ");
  if (client == nullptr) return 1;
  Result<v1::UpdateJobReply> reply = client->UpdateJob(request);
  if (!reply.ok()) {
    *ctx_.err << reply.status().message() << " for job " << ids << "\n";
    return 1;
  }
  for (const v1::JobError& e : reply->errors()) {
    // A key scontrol does not know: Slurm refuses it before sending, once for all jobs.
    if (e.message().starts_with("Update of this parameter is not supported")) {
      *ctx_.err << e.message() << "\nRequest aborted\n";
      return 1;
    }
    *ctx_.err << e.message() << " for job " << e.job_id() << "\n";
  }
  return reply->errors().empty() ? 0 : 1;
}

// Slurm 22.05's scontrol_parse_part_options: each keyword may be shortened to its minimum, and
// the first match in this order wins ("D" is DisableRootJobs). State and Default are checked
// here as Slurm's scontrol does; gantryd checks every value against the slurm.conf rules.
// Refusals here end with "slurm_update error: No error" (Slurm's errno is not set).
int Scontrol::UpdatePartition(const std::vector<std::pair<std::string, std::string>>& fields,
                              const std::string& name) {
  struct PartKeyword {
    std::string_view name;
    size_t min;
  };
  static constexpr PartKeyword kKeywords[] = {{"MaxTime", 4},
                                              {"CpuBind", 7},
                                              {"DefaultTime", 8},
                                              {"MaxCPUsPerNode", 4},
                                              {"MaxNodes", 4},
                                              {"MinNodes", 2},
                                              {"Default", 7},
                                              {"DisableRootJobs", 1},
                                              {"ExclusiveUser", 1},
                                              {"Hidden", 1},
                                              {"LLN", 1},
                                              {"RootOnly", 3},
                                              {"ReqResv", 3},
                                              {"OverSubscribe", 5},
                                              {"Shared", 2},
                                              {"OverTimeLimit", 5},
                                              {"PreemptMode", 3},
                                              {"Priority", 3},
                                              {"PriorityJobFactor", 3},
                                              {"PriorityTier", 3},
                                              {"State", 2},
                                              {"Nodes", 1},
                                              {"AllowGroups", 6},
                                              {"AllowAccounts", 6},
                                              {"AllowQos", 6},
                                              {"DenyAccounts", 5},
                                              {"DenyQos", 5},
                                              {"AllocNodes", 6},
                                              {"Alternate", 3},
                                              {"GraceTime", 5},
                                              {"DefMemPerCPU", 10},
                                              {"DefMemPerNode", 10},
                                              {"MaxMemPerCPU", 10},
                                              {"MaxMemPerNode", 10},
                                              {"QOS", 3},
                                              {"JobDefaults", 4},
                                              {"TRESBillingWeights", 1}};
  v1::UpdatePartitionRequest request;
  request.set_name(name);
  auto refuse = [&](const std::string& lines) {
    *ctx_.err << lines << "slurm_update error: No error\n";
    return 1;
  };
  for (const auto& [key, value] : fields) {
    if (Keyword(key, "PartitionName", 2)) continue;
    const PartKeyword* found = nullptr;
    for (const PartKeyword& keyword : kKeywords) {
      // Slurm compares max(len, min) characters: a longer word than the keyword never matches.
      if (key.size() <= keyword.name.size() && Keyword(key, keyword.name, keyword.min)) {
        found = &keyword;
        break;
      }
    }
    if (found == nullptr) {
      return refuse("scontrol: error: Update of this parameter is not supported: " + key + "=" +
                    value + "\n\nscontrol: error: Request aborted\n");
    }
    std::string setting = value;
    if (found->name == "State") {
      std::optional<std::string> state;
      for (const char* s : {"UP", "DOWN", "DRAIN", "INACTIVE"}) {
        if (!value.empty() && Keyword(value, s, 2)) state = s;
      }
      if (!state) {
        return refuse("scontrol: error: Invalid input: State=" + value +
                      "\nscontrol: error: Acceptable State values are UP, DOWN, DRAIN and "
                      "INACTIVE\n");
      }
      setting = *state;
    } else if (found->name == "MaxTime" || found->name == "DefaultTime") {
      Result<int64_t> minutes = text::ParseDurationMinutes(value);
      if (!minutes.ok() || *minutes > 0xFFFFFFFE) {
        return refuse("scontrol: error: Invalid input " + key + "=" + value + "\n");
      }
    } else if (found->name == "Default") {
      const bool no = !value.empty() && Keyword(value, "NO", 1);
      if (!no && !(!value.empty() && Keyword(value, "YES", 1))) {
        return refuse("scontrol: error: Invalid input: Default=" + value +
                      "\nscontrol: error: Acceptable Default values are YES and NO\n");
      }
      setting = no ? "NO" : "YES";
    }
    (*request.mutable_settings())[std::string(found->name)] = setting;
  }
  if (request.settings().empty()) {
    *ctx_.err << "scontrol: error: No changes specified\n";
    return 1;
  }
  ControllerClient* client = Client("slurm_update error: ");
  if (client == nullptr) return 1;
  Result<v1::UpdatePartitionReply> reply = client->UpdatePartition(request);
  if (!reply.ok()) {
    *ctx_.err << "slurm_update error: " << reply.status().message() << "\n";
    return 1;
  }
  return 0;
}

// scontrol suspend|resume: each argument is a comma-separated job list, sent on its own (as
// Slurm's scontrol_suspend); an argument that is not a list of job ids is refused whole.
// Errors: "<text> for job <id>" ("<id>: <text>" for an array task), nothing with -Q.
int Scontrol::Suspend(bool suspend, const std::vector<std::string>& args) {
  int rc = 0;
  auto report = [&](const std::string& line) {
    rc = 1;
    if (!flags_.quiet) *ctx_.err << line << "\n";
  };
  for (std::string arg : args) {
    if (text::StartsWithIgnoreCase(arg, "jobid=")) {
      arg = arg.substr(6);
    } else if (text::StartsWithIgnoreCase(arg, "job=")) {
      arg = arg.substr(4);
    }
    const std::vector<std::string> ids = SplitList(arg);
    const bool valid = std::all_of(ids.begin(), ids.end(), [](const std::string& id) {
      const size_t underscore = id.find('_');
      if (!ParseUnsigned(id.substr(0, underscore))) return false;
      return underscore == std::string::npos || ParseUnsigned(id.substr(underscore + 1));
    });
    if (!valid) {
      report("Invalid job id specified for job " + arg);
      continue;
    }
    if (ids.empty()) continue;
    ControllerClient* client = Client("slurm_suspend error: ");
    if (client == nullptr) return 1;
    v1::UpdateJobRequest request;
    request.set_action(suspend ? "suspend" : "resume");
    for (const std::string& id : ids) request.add_job_ids(id);
    Result<v1::UpdateJobReply> reply = client->UpdateJob(request);
    if (!reply.ok()) {
      report(reply.status().message() + " for job " + arg);
      continue;
    }
    for (const v1::JobError& e : reply->errors()) {
      report(e.job_id().find('_') != std::string::npos ? e.job_id() + ": " + e.message()
                                                       : e.message() + " for job " + e.job_id());
    }
  }
  return rc;
}

int Scontrol::JobAction(const std::string& action, const std::vector<std::string>& args) {
  // hold/uhold/release report like Slurm's scontrol_hold (a second "slurm_suspend error:" line);
  // requeue like scontrol_requeue.
  const bool hold_style = action == "hold" || action == "uhold" || action == "release";
  std::vector<std::string> ids;
  for (const std::string& arg : args) {
    for (const std::string& item : SplitList(arg)) ids.push_back(item);
  }
  auto report = [&](const std::string& id, const std::string& message) {
    *ctx_.err << message << " for job " << id << "\n";
    if (hold_style) *ctx_.err << "slurm_suspend error: " << message << "\n";
  };
  for (const std::string& id : ids) {
    std::optional<uint64_t> n = ParseUnsigned(id.substr(0, id.find('_')));
    if (!n || *n == 0) {
      report(id, "Invalid job id specified");
      return 1;
    }
  }
  ControllerClient* client = Client(hold_style ? "slurm_suspend error: " : "slurm_requeue error: ");
  if (client == nullptr) return 1;
  v1::UpdateJobRequest request;
  request.set_action(action);
  for (const std::string& id : ids) request.add_job_ids(id);
  Result<v1::UpdateJobReply> reply = client->UpdateJob(request);
  if (!reply.ok()) {
    report(ids.front(), reply.status().message());
    return 1;
  }
  for (const v1::JobError& e : reply->errors()) report(e.job_id(), e.message());
  return reply->errors().empty() ? 0 : 1;
}

// Every controller in the configured order, as Slurm names them: primary, then backup (two in
// all) or backup1, backup2... A standby answers Ping: UP means the daemon runs and answers.
// Exit 0 when one answered.
int Scontrol::Ping() {
  std::vector<Result<std::unique_ptr<ControllerClient>>> clients;
  if (ctx_.connect_each) {
    clients = ctx_.connect_each();
  } else if (ctx_.connect) {
    clients.push_back(ctx_.connect());
  }
  if (clients.empty()) clients.emplace_back(Unavailable("no controller"));
  bool any_up = false;
  bool any_down = false;
  for (size_t i = 0; i < clients.size(); ++i) {
    std::string host = ctx_.hostname;
    bool up = false;
    if (clients[i].ok()) {
      ControllerClient& client = **clients[i];
      if (!client.controller_host().empty()) host = client.controller_host();
      client.timeout_seconds = 10;
      up = client.Ping().ok();
    }
    any_up = any_up || up;
    any_down = any_down || !up;
    const std::string mode = i == 0                            ? "primary"
                             : (i == 1 && clients.size() == 2) ? "backup"
                                                               : "backup" + std::to_string(i);
    *ctx_.out << "Slurmctld(" << mode << ") at " << host << " is " << (up ? "UP" : "DOWN") << "\n";
  }
  const bool up = any_up;
  if (any_down) {
    *ctx_.out << "*****************************************\n"
                 "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
                 "*****************************************\n";
  }
  return up ? 0 : 1;
}

// scontrol takeover [INDEX]: the backup at INDEX (1, the first, by default; as scontrol ping
// numbers them) takes the lead. Asked of the leader, which hands it over (decision 0017).
int Scontrol::Takeover(const std::vector<std::string>& rest) {
  constexpr char kPrefix[] = "slurm_takeover error: ";
  std::vector<Result<std::unique_ptr<ControllerClient>>> each;
  if (ctx_.connect_each) each = ctx_.connect_each();
  size_t index = 1;
  if (!rest.empty()) {
    const std::string& text = rest.front();
    if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != text.npos ||
        std::stoul(text) < 1 || std::stoul(text) >= std::max<size_t>(each.size(), 2)) {
      *ctx_.err << "takeover: invalid backup controller index " << text << "\n";
      return 1;
    }
    index = std::stoul(text);
  }
  if (each.size() <= index) {
    *ctx_.err << kPrefix << "this cluster has a single controller: no backup to take over\n";
    return 1;
  }
  std::string name;
  if (each[index].ok()) {
    (*each[index])->timeout_seconds = 10;
    Result<v1::PingReply> ping = (*each[index])->Ping();
    if (ping.ok()) name = ping->controller_name();
  }
  if (name.empty()) {
    *ctx_.err << kPrefix << kConnectFailure << "\n";
    return 1;
  }
  ControllerClient* client = Client(kPrefix);
  if (client == nullptr) return 1;
  v1::TakeoverRequest request;
  request.set_to(name);
  Result<v1::TakeoverReply> reply = client->Takeover(request);
  if (!reply.ok()) {
    *ctx_.err << kPrefix << reply.status().message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int RunScontrol(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kScontrolShort, kScontrolLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "scontrol", parsed.error);
    return 1;
  }
  Flags flags;
  for (const ParsedOption& o : parsed.options) {
    switch (o.id) {
      case 'a':
        flags.all = true;
        break;
      case 'd':
        flags.details = true;
        break;
      case 'o':
        flags.one_liner = true;
        break;
      case 'Q':
        flags.quiet = true;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kScontrolHelp:
      case 'h':
      case kScontrolUsage:
        *ctx.out << kScontrolHelpText;
        return 0;
      case 'v':
      case 'F':
      case kScontrolHide:
      case kScontrolLocal:
      case kScontrolSibling:
      case kScontrolFederation:
        break;
      default:
        *ctx.err << "scontrol: error: " << o.spelling << " is not supported by Gantry yet\n";
        return 1;
    }
  }
  if (parsed.operands.empty()) {
    *ctx.err << "scontrol: error: interactive mode is not supported by Gantry yet\n";
    return 1;
  }
  Scontrol scontrol(ctx, flags);
  return scontrol.Run(parsed.operands);
}

}  // namespace gantry::slurm
