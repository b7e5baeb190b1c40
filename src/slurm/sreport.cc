// sreport: usage reports from Gantry's job records, accounting database and nodes, laid out as
// Slurm 22.05's sreport lays them out (slurm/sreport_reports.h).
//
// Options are sreport's (-a -M -h -n -p -P -Q -s -t -T -v -V and their long forms, GNU getopt
// order and errors); the words that follow are one command ("cluster utilization start=...").
// Without words, sreport reads commands from standard input, one per line (interactive mode:
// the same commands plus exit, quit, help, time, sort, parsable, parsable2, nonparsable, quiet,
// verbose, version and "!!"); read from anything but a terminal, each line is echoed after the
// prompt as readline does. Errors are sreport's texts; the exit code is 1 once any error was
// reported, else 0 (sreport reports some errors, such as "unknown time format", and carries on).
// Gantry differences: -T/--tres and SREPORT_TRES know "cpu" only; --sort without a value (which
// crashes Slurm's sreport) is refused; -V prints Gantry's version line like the other commands.
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/sreport_options.h"
#include "slurm/sreport_reports.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

enum : int { kSreportFederation = 0x100, kSreportLocal, kSortNoValue, kImmediate };

constexpr ShortOption kSreportShort[] = {
    {'a', ArgKind::kNone},     {'M', ArgKind::kRequired}, {'h', ArgKind::kNone},
    {'n', ArgKind::kNone},     {'p', ArgKind::kNone},     {'P', ArgKind::kNone},
    {'Q', ArgKind::kNone},     {'s', ArgKind::kRequired}, {'t', ArgKind::kRequired},
    {'T', ArgKind::kRequired}, {'v', ArgKind::kNone},     {'V', ArgKind::kNone},
};

// sreport 22.05's long options, in its table order.
constexpr LongOption kSreportLong[] = {
    {"all_clusters", ArgKind::kNone, 'a'},
    {"cluster", ArgKind::kRequired, 'M'},
    {"federation", ArgKind::kNone, kSreportFederation},
    {"help", ArgKind::kNone, 'h'},
    {"immediate", ArgKind::kNone, kImmediate},
    {"local", ArgKind::kNone, kSreportLocal},
    {"noheader", ArgKind::kNone, 'n'},
    {"parsable", ArgKind::kNone, 'p'},
    {"parsable2", ArgKind::kNone, 'P'},
    {"quiet", ArgKind::kNone, 'Q'},
    {"sort", ArgKind::kNone, kSortNoValue},
    {"tres", ArgKind::kRequired, 'T'},
    {"usage", ArgKind::kNone, 'h'},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
};

// sreport --help, byte for byte.
constexpr char kSreportHelpText[] =
    "sreport [<OPTION>] [<COMMAND>]                                             \n"
    "    Valid <OPTION> values are:                                             \n"
    "     -a or --all_clusters: Use all clusters instead of current             \n"
    "     --federation: Generate reports for the federation if a member of one  \n"
    "     -h or --help: equivalent to \"help\" command                          \n"
    "     --local: Report local cluster, even when in federation of clusters    \n"
    "     -n or --noheader: equivalent to \"noheader\" command                  \n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end  \n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -Q or --quiet: equivalent to \"quiet\" command                        \n"
    "     -t <time_format>: Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
    "     -T or --tres: comma separated list of TRES, or 'ALL' for all TRES     \n"
    "     -v or --verbose: equivalent to \"verbose\" command                    \n"
    "     -V or --version: equivalent to \"version\" command                    \n"
    "                                                                           \n"
    "  <keyword> may be omitted from the execute line and sreport will execute  \n"
    "  in interactive mode. It will process commands as entered until explicitly\n"
    "  terminated.                                                              \n"
    "                                                                           \n"
    "    Valid <COMMAND> values are:                                            \n"
    "     exit                Terminate sreport                                 \n"
    "     help                Print this description of use.                    \n"
    "     nonparsable         Return output to normal                           \n"
    "     parsable            Output will be | delimited with an ending '|'     \n"
    "     parsable2           Output will be | delimited without an ending '|'  \n"
    "     quiet               Print no messages other than error messages.      \n"
    "     quit                Terminate this command.                           \n"
    "     time <time_format>  Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
    "     verbose             Enable detailed logging.                          \n"
    "     version             Display tool version number.                      \n"
    "     !!                  Repeat the last command entered.                  \n"
    "                                                                           \n"
    "    Valid report types are:                                                \n"
    "     cluster <REPORT> <OPTIONS>                                            \n"
    "     job <REPORT> <OPTIONS>                                                \n"
    "     user <REPORT> <OPTIONS>                                               \n"
    "                                                                           \n"
    "  <REPORT> is different for each report type.                              \n"
    "     cluster - AccountUtilizationByUser, UserUtilizationByAccount,         \n"
    "               UserUtilizationByWckey, Utilization, WCKeyUtilizationByUser \n"
    "     job     - SizesByAccount, SizesByAccountAndWckey, SizesByWckey        \n"
    "     reservation                                                           \n"
    "             - Utilization                                                 \n"
    "     user    - TopUsage                                                    \n"
    "                                                                           \n"
    "  <OPTIONS> are different for each report type.                            \n"
    "                                                                           \n"
    "     COMMON FOR ALL TYPES                                                  \n"
    "             - All_Clusters     - Use all monitored clusters default is    \n"
    "                                  local cluster.                           \n"
    "             - Clusters=<OPT>   - List of clusters to include in report    \n"
    "                                  Default is local cluster.                \n"
    "             - End=<OPT>        - Period ending for report.                \n"
    "                                  Default is 23:59:59 of previous day.     \n"
    "             - Format=<OPT>     - Comma separated list of fields to display\n"
    "                                  in report.                               \n"
    "             - Start=<OPT>      - Period start for report.                 \n"
    "                                  Default is 00:00:00 of previous day.     \n"
    "                                                                           \n"
    "     cluster - Accounts=<OPT>   - When used with the UserUtilizationByAccount,\n"
    "                                  or AccountUtilizationByUser, List of accounts\n"
    "                                  to include in report.  Default is all.   \n"
    "             - Tree             - When used with the AccountUtilizationByUser\n"
    "                                  report will span the accounts as they    \n"
    "                                  in the hierarchy.                        \n"
    "             - Users=<OPT>      - When used with any report other than     \n"
    "                                  Utilization, List of users to include in \n"
    "                                  report.  Default is all.                 \n"
    "             - Wckeys=<OPT>     - When used with the UserUtilizationByWckey\n"
    "                                  or WCKeyUtilizationByUser, List of wckeys\n"
    "                                  to include in report.  Default is all.   \n"
    "                                                                           \n"
    "     job     - Accounts=<OPT>   - List of accounts to use for the report.  \n"
    "                                  Default is all, which will show only     \n"
    "                                  one line corresponding to the totals of  \n"
    "                                  all accounts in the hierarchy.           \n"
    "                                  This explanation does not apply when ran \n"
    "                                  with the FlatView or AcctAsParent option.\n"
    "             - AcctAsParent     - When used with the SizesbyAccount(*)     \n"
    "                                  will take specified accounts as parents  \n"
    "                                  and the next layer of accounts under     \n"
    "                                  those specified will be displayed.       \n"
    "                                  Default is root if no Accounts specified.\n"
    "                                  When FlatView is used, this option is    \n"
    "                                  ignored.                                 \n"
    "             - FlatView         - When used with the SizesbyAccount(*)     \n"
    "                                  will not group accounts in a             \n"
    "                                  hierarchical level, but print each       \n"
    "                                  account where jobs ran on a separate     \n"
    "                                  line without any hierarchy.              \n"
    "             - GID=<OPT>        - List of group ids to include in report.  \n"
    "                                  Default is all.                          \n"
    "             - Grouping=<OPT>   - Comma separated list of size groupings.  \n"
    "                                  (i.e. 50,100,150 would group job cpu count\n"
    "                                   1-49, 50-99, 100-149, > 150).           \n"
    "                                  grouping=individual will result in a     \n"
    "                                  single column for each job size found.   \n"
    "             - Jobs=<OPT>       - List of jobs/steps to include in report. \n"
    "                                  Default is all.                          \n"
    "             - Nodes=<OPT>      - Only show jobs that ran on these nodes.  \n"
    "                                  Default is all.                          \n"
    "             - Partitions=<OPT> - List of partitions jobs ran on to include\n"
    "                                  in report.  Default is all.              \n"
    "             - PrintJobCount    - When used with the any Sizes report      \n"
    "                                  will print number of jobs ran instead of \n"
    "                                  time used.                               \n"
    "             - Users=<OPT>      - List of users jobs to include in report. \n"
    "                                  Default is all.                          \n"
    "             - Wckeys=<OPT>     - List of wckeys to use for the report.    \n"
    "                                  Default is all.  The SizesbyWckey        \n"
    "                                  report all users summed together.  If    \n"
    "                                  you want only certain users specify them \n"
    "                                  them with the Users= option.             \n"
    "                                                                           \n"
    "     reservation                                                           \n"
    "             - Names=<OPT>      - List of reservations to use for the report\n"
    "                                  Default is all.                          \n"
    "             - Nodes=<OPT>      - Only show reservations that used these   \n"
    "                                  nodes.  Default is all.                  \n"
    "                                                                           \n"
    "     user    - Accounts=<OPT>   - List of accounts to use for the report   \n"
    "                                  Default is all.                          \n"
    "             - Group            - Group all accounts together for each user.\n"
    "                                  Default is a separate entry for each user\n"
    "                                  and account reference.                   \n"
    "             - TopCount=<OPT>   - Used in the TopUsage report.  Change the \n"
    "                                  number of users displayed.  Default is 10.\n"
    "             - Users=<OPT>      - List of users jobs to include in report. \n"
    "                                  Default is all.                          \n"
    "                                                                           \n"
    "  Below are the format options for each report.                            \n"
    "                                                                           \n"
    "  One can get an number of characters by following the field option with   \n"
    "  a %NUMBER option.  i.e. format=name%30 will print 30 chars of field name.\n"
    "                                                                           \n"
    "       Cluster                                                             \n"
    "       - AccountUtilizationByUser                                          \n"
    "       - UserUtilizationByAccount                                          \n"
    "             - Accounts, Cluster, Count, Login, Proper, Used               \n"
    "       - UserUtilizationByWckey                                            \n"
    "       - WCKeyUtilizationByUser                                            \n"
    "             - Cluster, Count, Login, Proper, Used, Wckey                  \n"
    "       - Utilization                                                       \n"
    "             - Allocated, Cluster, Count, Down, Idle, Overcommitted,       \n"
    "               Planned, PlannedDown, Reported                              \n"
    "                                                                           \n"
    "       Job                                                                 \n"
    "       - Sizes                                                             \n"
    "             - Account, Cluster                                            \n"
    "                                                                           \n"
    "       Reservation                                                         \n"
    "       - Utilization                                                       \n"
    "             - Allocated, Associations, Cluster, Count, CPUTime,           \n"
    "               End, Flags, Idle, Name, Nodes, ReservationId, Start, TotalTime \n"
    "                                                                           \n"
    "       User                                                                \n"
    "       - TopUsage                                                          \n"
    "             - Account, Cluster, Login, Proper, Used                       \n"
    "                                                                           \n"
    "                                                                           \n"
    "  Note, valid start/end time formats are...                                \n"
    "       HH:MM[:SS] [AM|PM]                                                  \n"
    "       MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]                                \n"
    "       MM/DD[/YY]-HH:MM[:SS]                                               \n"
    "       YYYY-MM-DD[THH:MM[:SS]]                                             \n"
    "       now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]          \n"
    "                                                                           \n"
    "                                                                           \n"
    "  All commands and options are case-insensitive.                         \n"
    "\n";

constexpr char kDatabaseError[] = "sreport: error: Problem talking to the database: ";

// TRES names Slurm knows but Gantry does not report on (-T accepts only cpu).
bool IsOtherSlurmTres(std::string_view name) {
  for (std::string_view known : {"mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
                                 "fs/lustre", "ic/ofed", "all"}) {
    if (text::EqualsIgnoreCase(name, known)) return true;
  }
  return text::StartsWithIgnoreCase(name, "gres/") ||
         text::StartsWithIgnoreCase(name, "license/") || text::StartsWithIgnoreCase(name, "bb/");
}

// Splits an interactive line as sreport does: blanks separate words, quotes keep blanks inside a
// word (and stay in it).
std::vector<std::string> SreportWords(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    if (text::IsAsciiSpace(line[i])) {
      ++i;
      continue;
    }
    const size_t begin = i;
    bool double_quote = false;
    bool single_quote = false;
    for (; i < line.size(); ++i) {
      if (line[i] == '"') double_quote = !double_quote;
      if (line[i] == '\'') single_quote = !single_quote;
      if (!double_quote && !single_quote && text::IsAsciiSpace(line[i])) break;
    }
    words.emplace_back(line.substr(begin, i - begin));
  }
  return words;
}

// One sreport process: its settings, the controller it talks to and its exit code.
class Session {
 public:
  explicit Session(CommandContext& ctx) : ctx_(ctx) {
    tz_ = ctx.time_zone != nullptr ? ctx.time_zone : &TimeZone::Utc();
  }

  // Options; returns the exit code when sreport ends with them (help, version, errors).
  std::optional<int> ApplyOptions(const ParsedArgs& parsed) {
    std::optional<std::string> tres = ctx_.GetEnv("SREPORT_TRES");
    for (const ParsedOption& o : parsed.options) {
      const std::string value = o.value.value_or("");
      switch (o.id) {
        case 'a':
          settings_.all_clusters = true;
          break;
        case 'M':
          settings_.clusters = value;
          break;
        case 'h':
          *ctx_.out << kSreportHelpText;
          return exit_code_;
        case 'n':
          settings_.header = false;
          break;
        case 'p':
          settings_.layout = SreportLayout::kParsable;
          break;
        case 'P':
          settings_.layout = SreportLayout::kParsable2;
          break;
        case 'Q':
          quiet_ = 1;
          break;
        case 's':
          SetSort(value);
          break;
        case 't':
          SetTime(value);
          break;
        case 'T':
          tres = value;
          break;
        case 'v':
          quiet_ = -1;
          break;
        case 'V':
          *ctx_.out << kVersionLine;
          return exit_code_;
        case kImmediate:
          *ctx_.err << "getopt error, returned i\n";
          return 1;
        case kSortNoValue:
          *ctx_.err << "sreport: error: --sort needs a value, which Slurm's sreport cannot take "
                       "here: use -s name or -s time\n";
          return 1;
        default:
          break;  // --federation, --local: one cluster
      }
    }
    if (!parsed.error.empty()) {
      ReportUsageError(ctx_, "sreport", parsed.error);
      return 1;
    }
    if (tres.has_value()) {
      bool cpu = false;
      for (const std::string& name : SreportList(*tres)) {
        if (text::EqualsIgnoreCase(name, "cpu")) {
          cpu = true;
        } else if (IsOtherSlurmTres(name)) {
          *ctx_.err << "sreport: error: TRES " << name
                    << " is not supported by Gantry yet (only cpu)\n";
          return 1;
        }
      }
      if (!cpu) {
        *ctx_.err << "sreport: fatal: No valid TRES given\n";
        return 1;
      }
      settings_.tres_named = true;
    }
    return std::nullopt;
  }

  // One command; true when sreport should stop reading commands (exit, quit).
  bool Process(const std::vector<std::string>& words) {
    if (words.empty()) {
      exit_code_ = 1;
      if (quiet_ == -1) *ctx_.err << "no input";
      return false;
    }
    const std::string& w = words[0];
    auto no_more = [&](bool keyword_first) {
      if (words.size() <= 1) return;
      exit_code_ = 1;
      if (keyword_first) {
        *ctx_.err << "too many arguments for keyword:" << w << "\n";
      } else {
        *ctx_.err << "too many arguments for " << w << " keyword\n";
      }
    };
    if (Keyword(w, "cluster", 2)) {
      Report("cluster", words);
    } else if (Keyword(w, "help", 2)) {
      no_more(true);
      *ctx_.out << kSreportHelpText;
    } else if (Keyword(w, "job", 1)) {
      Report("job", words);
    } else if (Keyword(w, "quiet", 4)) {
      no_more(true);
      quiet_ = 1;
    } else if (Keyword(w, "exit", 1) || Keyword(w, "\\q", 2) || Keyword(w, "quit", 4)) {
      no_more(true);
      return true;
    } else if (Keyword(w, "nonparsable", 4)) {
      no_more(true);
      settings_.layout = SreportLayout::kTable;
    } else if (Keyword(w, "parsable", 8)) {
      no_more(true);
      settings_.layout = SreportLayout::kParsable;
    } else if (Keyword(w, "parsable2", 9)) {
      no_more(true);
      settings_.layout = SreportLayout::kParsable2;
    } else if (Keyword(w, "reservation", 2) || Keyword(w, "resv", 2)) {
      Report("reservation", words);
    } else if (Keyword(w, "sort", 1)) {
      if (words.size() < 2) {
        exit_code_ = 1;
        *ctx_.err << "too few arguments for keyword:" << w << "\n";
      } else {
        SetSort(words[1]);
      }
    } else if (Keyword(w, "time", 1)) {
      if (words.size() < 2) {
        exit_code_ = 1;
        *ctx_.err << "too few arguments for keyword:" << w << "\n";
      } else {
        SetTime(words[1]);
      }
    } else if (Keyword(w, "verbose", 4)) {
      no_more(false);
      quiet_ = -1;
    } else if (Keyword(w, "version", 4)) {
      no_more(false);
      *ctx_.out << kVersionLine;
    } else if (Keyword(w, "user", 1)) {
      Report("user", words);
    } else {
      exit_code_ = 1;
      *ctx_.err << "invalid keyword: " << w << "\n";
    }
    return false;
  }

  int exit_code() const { return exit_code_; }

 private:
  void SetTime(const std::string& value) {
    if (std::optional<SreportTime> t = ParseSreportTime(value)) {
      settings_.time = *t;
    } else {
      *ctx_.err << "unknown time format " << value;
    }
  }

  void SetSort(const std::string& value) {
    if (Keyword(value, "Name", 1)) {
      settings_.sort_by_name = true;
    } else if (Keyword(value, "Time", 6)) {
      settings_.sort_by_name = false;
    } else {
      *ctx_.err << "unknown timesort format " << value;
    }
  }

  void Report(std::string_view type, const std::vector<std::string>& words) {
    if (words.size() < 2) {
      exit_code_ = 1;
      if (quiet_ != 1) *ctx_.err << "too few arguments for keyword:" << words[0] << "\n";
      return;
    }
    const std::optional<SreportReport> report = FindSreportReport(type, words[1]);
    if (!report.has_value()) {
      exit_code_ = 1;
      *ctx_.err << InvalidReportText(type, words[1]);
      return;
    }
    const std::vector<std::string> conditions_words(words.begin() + 2, words.end());
    SreportConditionsParse parse =
        ParseSreportConditions(*report, conditions_words, ctx_.now, *tz_, ctx_.uid_of);
    *ctx_.err << parse.errors;
    if (parse.failed) exit_code_ = 1;
    SreportSettings settings = settings_;
    if (parse.conditions.all_clusters) settings.all_clusters = true;
    const SreportPeriod period = ReportPeriod(parse.conditions, ctx_.now, *tz_);
    std::optional<SreportData> data = Fetch(*report, period);
    if (!data.has_value()) {
      exit_code_ = 1;
      return;
    }
    const ProperNameFn proper_name = [this](std::string_view user) -> std::string {
      if (!ctx_.user_comment) return "";
      const std::optional<std::string> comment = ctx_.user_comment(user);
      if (!comment.has_value()) return "";
      return comment->substr(0, comment->find(','));
    };
    const SreportOutput output =
        BuildSreportReport(*report, parse.conditions, settings, *data, *tz_, proper_name);
    *ctx_.out << output.out;
    *ctx_.err << output.err;
    if (output.failed) exit_code_ = 1;
  }

  // The controller's records for a report over `period`; nullopt (after saying why) when the
  // controller cannot be asked.
  std::optional<SreportData> Fetch(SreportReport report, const SreportPeriod& period) {
    if (!client_) {
      client_ = ConnectOrReport(ctx_, "sreport", kDatabaseError);
      if (!client_) return std::nullopt;
    }
    auto failed = [&](const Status& status) {
      *ctx_.err << kDatabaseError << status.message() << "\n";
      return std::nullopt;
    };
    SreportData data;
    data.now = ctx_.now;
    Result<v1::GetConfigReply> config = client_->GetConfig(v1::GetConfigRequest());
    if (!config.ok()) return failed(config.status());
    data.cluster.name = config->cluster_name();
    UnixTime since = config->boot_time();
    Result<v1::GetNodesReply> nodes = client_->GetNodes(v1::GetNodesRequest());
    if (!nodes.ok()) return failed(nodes.status());
    for (const v1::Node& node : nodes->nodes()) {
      data.cluster.cpus += node.cpus();
      data.cluster.nodes.push_back(node);
    }
    if (ReportNeedsAccounting(report)) {
      Result<v1::AccountingDb> db = client_->GetAccounting();
      if (!db.ok()) return failed(db.status());
      data.accounting = std::move(db).value();
    }
    if (ReportNeedsJobs(report)) {
      v1::GetJobsRequest request;
      request.set_history(true);
      request.set_window_start(period.start);
      request.set_window_end(period.end);
      JobsReplyVisitor visitor;
      visitor.job = [&](const v1::Job& job) {
        if (job.submit_time() > 0 && (since == 0 || job.submit_time() < since)) {
          since = job.submit_time();
        }
        data.jobs.push_back(ToUsageJob(job, data.now));
        return Status::Ok();
      };
      Result<JobsReplyHead> listed = client_->ListJobs(request, visitor);
      if (!listed.ok()) return failed(listed.status());
    }
    // The cluster began no later than its first job (the archive keeps every job).
    v1::GetJobsRequest first;
    first.set_history(true);
    first.add_job_ids(1);
    Result<v1::GetJobsReply> first_job = client_->GetJobs(first);
    if (first_job.ok()) {
      for (const v1::Job& job : first_job->jobs()) {
        if (job.submit_time() > 0 && (since == 0 || job.submit_time() < since)) {
          since = job.submit_time();
        }
      }
    }
    data.cluster.since = since;
    return data;
  }

  CommandContext& ctx_;
  const TimeZone* tz_ = nullptr;
  SreportSettings settings_;
  int quiet_ = 0;  // 1 quiet, -1 verbose
  int exit_code_ = 0;
  std::unique_ptr<ControllerClient> client_;
};

}  // namespace

int RunSreport(const std::vector<std::string>& args, CommandContext& ctx) {
  Session session(ctx);
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kSreportShort, kSreportLong, ArgOrder::kPermute);
  if (std::optional<int> rc = session.ApplyOptions(parsed)) return *rc;
  if (!parsed.operands.empty()) {
    session.Process(parsed.operands);
    return session.exit_code();
  }
  std::string last;
  while (true) {
    *ctx.out << "sreport: ";
    std::string line;
    if (ctx.in == nullptr || !std::getline(*ctx.in, line)) {
      *ctx.out << "\n";
      break;
    }
    if (!ctx.stdin_is_terminal) *ctx.out << line << "\n";
    if (line.rfind('#', 0) == 0) continue;
    if (line == "!!") {
      line = last;
    } else {
      last = line;
    }
    if (session.Process(SreportWords(line))) break;
  }
  return session.exit_code();
}

}  // namespace gantry::slurm
