// scancel: cancels or signals jobs through the controller's SignalJob call. The controller applies
// the filters (-u -p -n -t) and answers one error per job it could not signal; like Slurm's
// scancel, "Invalid job id specified" and "Job/step already completing or completed" are silent
// (shown with -v) and do not fail a plain cancel; the exit code is the largest Slurm error number
// seen, modulo 256 (Access/permission denied = 2002 -> 210, controller unreachable = 1800 -> 8).
#include <algorithm>
#include <istream>
#include <ostream>
#include <string>

#include "model/job_state.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/slurm_errors.h"
#include "text/ascii.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

enum : int {
  kScancelHelp = 0x100,
  kScancelUsage,
  kCtld,
  kScancelMe,
  kScancelSibling,
  kScancelWckey,
};

constexpr ShortOption kScancelShort[] = {
    {'b', ArgKind::kNone},     {'f', ArgKind::kNone},     {'i', ArgKind::kNone},
    {'n', ArgKind::kRequired}, {'p', ArgKind::kRequired}, {'q', ArgKind::kRequired},
    {'s', ArgKind::kRequired}, {'t', ArgKind::kRequired}, {'u', ArgKind::kRequired},
    {'v', ArgKind::kNone},     {'w', ArgKind::kRequired}, {'A', ArgKind::kRequired},
    {'H', ArgKind::kNone},     {'M', ArgKind::kRequired}, {'Q', ArgKind::kNone},
    {'R', ArgKind::kRequired}, {'V', ArgKind::kNone},
};

// scancel 22.05's long options, in its table order.
constexpr LongOption kScancelLong[] = {
    {"account", ArgKind::kRequired, 'A'},
    {"batch", ArgKind::kNone, 'b'},
    {"ctld", ArgKind::kNone, kCtld},
    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},
    {"full", ArgKind::kNone, 'f'},
    {"help", ArgKind::kNone, kScancelHelp},
    {"hurry", ArgKind::kNone, 'H'},
    {"interactive", ArgKind::kNone, 'i'},
    {"jobname", ArgKind::kRequired, 'n'},
    {"me", ArgKind::kNone, kScancelMe},
    {"name", ArgKind::kRequired, 'n'},
    {"nodelist", ArgKind::kRequired, 'w'},
    {"partition", ArgKind::kRequired, 'p'},
    {"qos", ArgKind::kRequired, 'q'},
    {"quiet", ArgKind::kNone, 'Q'},
    {"reservation", ArgKind::kRequired, 'R'},
    {"sibling", ArgKind::kRequired, kScancelSibling},
    {"signal", ArgKind::kRequired, 's'},
    {"state", ArgKind::kRequired, 't'},
    {"usage", ArgKind::kNone, kScancelUsage},
    {"user", ArgKind::kRequired, 'u'},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
    {"wckey", ArgKind::kRequired, kScancelWckey},
};

constexpr char kScancelUsageText[] =
    "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
    "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
    "               [job_id[_array_id][.step_id]]\n";

constexpr char kScancelHelpText[] =
    "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
    "  -b, --batch                     signal batch shell for specified job\n"
    "  -f, --full                      signal batch shell and all steps for specified job\n"
    "      --me                        equivalent to --user=<my username>\n"
    "  -n, --name=job_name             act only on jobs with this name\n"
    "  -p, --partition=partition       act only on jobs in this partition\n"
    "  -Q, --quiet                     disable warnings\n"
    "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n"
    "  -t, --state=states              act only on jobs in this state.  Valid job\n"
    "                                  states are PENDING, RUNNING and SUSPENDED\n"
    "  -u, --user=user_name            act only on jobs of this user\n"
    "  -V, --version                   output version information and exit\n"
    "  -v, --verbose                   verbosity level\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display brief usage message\n";

// job_id[_array_id][.step_id] (arrays and steps are passed on as written).
bool ValidJobId(std::string_view id) {
  size_t i = 0;
  while (i < id.size() && text::IsAsciiDigit(id[i])) ++i;
  if (i == 0) return false;
  if (i == id.size()) return true;
  if (id[i] == '_' || id[i] == '.' || id[i] == '+') return i + 1 < id.size();
  return false;
}

// scancel -i's question for one job: "Cancel job_id=N name=X partition=P [y/n]? " until the
// answer starts with y or n; no answer (end of input) is no.
bool Confirm(ControllerClient& client, uint32_t id, CommandContext& ctx) {
  v1::GetJobsRequest request;
  request.add_job_ids(id);
  std::string name;
  std::string partition;
  if (Result<v1::GetJobsReply> jobs = client.GetJobs(request); jobs.ok()) {
    for (const v1::Job& job : jobs->jobs()) {
      if (job.job_id() != id) continue;
      name = job.request().name();
      partition = job.partition();
    }
  }
  for (;;) {
    *ctx.out << "Cancel job_id=" << id << " name=" << name << " partition=" << partition
             << " [y/n]? " << std::flush;
    std::string line;
    if (ctx.in == nullptr || !std::getline(*ctx.in, line)) return false;
    if (!line.empty() && (line[0] == 'y' || line[0] == 'Y')) return true;
    if (!line.empty() && (line[0] == 'n' || line[0] == 'N')) return false;
  }
}

}  // namespace

int RunScancel(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kScancelShort, kScancelLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "scancel", parsed.error);
    return 1;
  }
  v1::SignalJobRequest request;
  bool verbose = false;
  bool interactive = false;
  bool filtered = false;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'b':
        request.set_batch_only(true);
        break;
      case 'f':
        request.set_full(true);
        break;
      case 'n':
        request.set_name(value);
        filtered = true;
        break;
      case 'p':
        request.set_partition(value);
        filtered = true;
        break;
      case 'A':
        request.set_account(value);
        filtered = true;
        break;
      case 'q':
        request.set_qos(value);
        filtered = true;
        break;
      case 'w': {
        // A list that does not parse matches no job, as in scancel.
        Result<std::vector<std::string>> nodes = text::ExpandHostlist(value);
        for (const std::string& n : nodes.ok() ? *nodes : std::vector<std::string>{value}) {
          request.add_nodes(n);
        }
        filtered = true;
        break;
      }
      case 'i':
        interactive = true;
        break;
      case 's': {
        std::optional<int> sig = ParseSignal(value);
        if (!sig) {
          *ctx.err << "Unknown job signal: " << value << "\n";
          return 1;
        }
        request.set_signal(*sig);
        break;
      }
      case 't':
        request.clear_states();
        for (const std::string& word : SplitList(value)) {
          Result<model::JobStateSelector> s = model::ParseJobStateSelector(word);
          const bool ok = s.ok() && !s->is_flag &&
                          (s->base == model::JobBaseState::kPending ||
                           s->base == model::JobBaseState::kRunning ||
                           s->base == model::JobBaseState::kSuspended);
          if (!ok) {
            *ctx.err << "Invalid job state specified: " << word << "\n"
                     << "Valid job states are PENDING, RUNNING, and SUSPENDED\n";
            return 1;
          }
          request.add_states(std::string(model::JobBaseStateName(s->base)));
        }
        filtered = true;
        break;
      case 'u': {
        const std::optional<uint32_t> uid = ResolveUser(ctx, value);
        if (!uid.has_value()) {
          *ctx.err << "scancel: error: Invalid user name: " << value << "\n";
          return 1;
        }
        request.set_user(std::to_string(uid.value_or(0)));
        filtered = true;
        break;
      }
      case kScancelMe:
        request.set_user(std::to_string(ctx.uid));
        filtered = true;
        break;
      case 'v':
        verbose = true;
        break;
      case 'Q':
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kScancelHelp:
        *ctx.out << kScancelHelpText;
        return 0;
      case kScancelUsage:
        *ctx.out << kScancelUsageText;
        return 0;
      default:
        *ctx.err << "scancel: error: " << o.spelling << " is not supported by Gantry yet\n";
        return 1;
    }
  }
  for (const std::string& id : parsed.operands) {
    if (!ValidJobId(id)) {
      *ctx.err << "scancel: error: Invalid job id " << id << "\n";
      return 1;
    }
    request.add_job_ids(id);
  }
  if (request.job_ids().empty() && !filtered) {
    *ctx.err << "scancel: error: No job identification provided\n";
    return 1;
  }
  if (verbose) {
    for (const std::string& id : request.job_ids()) {
      if (request.signal() == 0) {
        *ctx.err << "scancel: Terminating job " << id << "\n";
      } else {
        *ctx.err << "scancel: Signal " << request.signal() << " to job " << id << "\n";
      }
    }
  }

  // With filters or a signal, Slurm's scancel first loads the job list; otherwise it sends one
  // kill request per job. The connect-failure texts differ accordingly.
  const bool loads_jobs = filtered || request.signal() != 0;
  auto connect_failed = [&](const std::string& message) {
    if (loads_jobs) {
      *ctx.err << "slurm_load_jobs error: " << message << "\n";
      return 1;
    }
    for (const std::string& id : request.job_ids()) {
      *ctx.err << "scancel: error: Kill job error on job id " << id << ": " << message << "\n";
    }
    return SlurmErrno(message, StatusCode::kUnavailable) & 0xff;
  };
  Result<std::unique_ptr<ControllerClient>> client =
      ctx.connect ? ctx.connect() : Result<std::unique_ptr<ControllerClient>>(Unavailable(""));
  if (!client.ok()) {
    if (client.status().code() != StatusCode::kUnavailable) {
      *ctx.err << "scancel: error: " << client.status().message() << "\n";
    }
    return connect_failed(kConnectFailure);
  }
  // -i: the jobs it would signal first (nothing changes), each confirmed on the terminal.
  std::vector<v1::JobError> listing_errors;
  if (interactive) {
    v1::SignalJobRequest dry = request;
    dry.set_dry_run(true);
    Result<v1::SignalJobReply> listed = (*client)->SignalJob(dry);
    if (!listed.ok()) {
      if (listed.status().code() == StatusCode::kUnavailable) {
        return connect_failed(listed.status().message());
      }
      *ctx.err << "scancel: error: " << listed.status().message() << "\n";
      return 1;
    }
    listing_errors.assign(listed->errors().begin(), listed->errors().end());
    v1::SignalJobRequest confirmed;
    confirmed.set_signal(request.signal());
    confirmed.set_batch_only(request.batch_only());
    confirmed.set_full(request.full());
    for (uint32_t id : listed->signalled()) {
      if (Confirm(**client, id, ctx)) confirmed.add_job_ids(std::to_string(id));
    }
    request = std::move(confirmed);
  }
  Result<v1::SignalJobReply> reply = !interactive || !request.job_ids().empty()
                                         ? (*client)->SignalJob(request)
                                         : Result<v1::SignalJobReply>(v1::SignalJobReply());
  if (reply.ok() && !listing_errors.empty()) {
    google::protobuf::RepeatedPtrField<v1::JobError> errors(listing_errors.begin(),
                                                            listing_errors.end());
    errors.MergeFrom(reply->errors());
    *reply->mutable_errors() = std::move(errors);
  }
  if (!reply.ok()) {
    if (reply.status().code() == StatusCode::kUnavailable) {
      return connect_failed(reply.status().message());
    }
    *ctx.err << "scancel: error: " << reply.status().message() << "\n";
    return 1;
  }
  int rc = 0;
  for (const v1::JobError& e : reply->errors()) {
    const int number = SlurmErrno(e.message(), static_cast<StatusCode>(0));
    const int code = number != kSlurmError
                         ? number
                         : SlurmErrno(e.message(), e.code() == 7   ? StatusCode::kPermissionDenied
                                                   : e.code() == 5 ? StatusCode::kNotFound
                                                   : e.code() == 9 ? StatusCode::kFailedPrecondition
                                                   : e.code() == 14 ? StatusCode::kUnavailable
                                                                    : StatusCode::kInternal);
    // Unknown and finished jobs are quiet, except with -i (scancel loaded the jobs first).
    const bool quiet_error =
        !interactive && (code == kEslurmInvalidJobId || code == kEslurmAlreadyDone);
    const int exit_code = code < 0 || interactive ? 1 : code;
    if (verbose || !quiet_error) {
      *ctx.err << "scancel: error: Kill job error on job id " << e.job_id() << ": " << e.message()
               << "\n";
    }
    if (quiet_error && request.signal() == 0) continue;
    rc = std::max(rc, exit_code);
  }
  return rc & 0xff;
}

}  // namespace gantry::slurm
