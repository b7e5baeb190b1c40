// sdiag: the controller's statistics, as Slurm 22.05's sdiag prints them (ctld/diag_stats.h
// says what Gantry counts under each line).
//
// -r/--reset starts the counters again (operators only); -i, -t, -T sort the RPC tables by id,
// total time or average time instead of by count (ties keep id order); -a is the default.
// Failures print "slurm_get_statistics: <reason>" (or slurm_reset_statistics) and exit 255,
// as sdiag's exit(-1) does.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "model/rpc_type.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm/option_parser.h"

namespace gantry::slurm {
namespace {

enum : int { kSdiagHelp = 256, kSdiagUsage, kSdiagJson, kSdiagYaml };

constexpr ShortOption kSdiagShort[] = {
    {'a', ArgKind::kNone}, {'h', ArgKind::kNone}, {'i', ArgKind::kNone}, {'M', ArgKind::kRequired},
    {'r', ArgKind::kNone}, {'t', ArgKind::kNone}, {'T', ArgKind::kNone}, {'V', ArgKind::kNone},
};

constexpr LongOption kSdiagLong[] = {
    {"all", ArgKind::kNone, 'a'},           {"help", ArgKind::kNone, kSdiagHelp},
    {"sort-by-id", ArgKind::kNone, 'i'},    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},  {"reset", ArgKind::kNone, 'r'},
    {"sort-by-time", ArgKind::kNone, 't'},  {"sort-by-time2", ArgKind::kNone, 'T'},
    {"usage", ArgKind::kNone, kSdiagUsage}, {"version", ArgKind::kNone, 'V'},
};

constexpr char kSdiagUsageText[] = "Usage: sdiag [-M cluster] [-aritT]\n";

constexpr char kSdiagHelpText[] =
    "Usage: sdiag [OPTIONS]\n"
    "  -a, --all           all statistics\n"
    "  -r, --reset         reset statistics\n"
    "  -M, --cluster       direct the request to a specific cluster\n"
    "  -i, --sort-by-id    sort RPCs by id\n"
    "  -t, --sort-by-time  sort RPCs by total run time\n"
    "  -T, --sort-by-time2 sort RPCs by average run time\n"
    "  -V, --version       display current version number\n"
    "\nHelp options:\n"
    "  --help          show this help message\n"
    "  --usage         display brief usage message\n";

enum class SortBy { kCount, kId, kTime, kAverage };

uint64_t Average(const v1::RpcStat& s) { return s.count() == 0 ? 0 : s.total_usec() / s.count(); }

// The table's rows in the order asked for: ids ascending, the rest descending, ties in the
// controller's order.
std::vector<v1::RpcStat> Sorted(const google::protobuf::RepeatedPtrField<v1::RpcStat>& stats,
                                SortBy by) {
  std::vector<v1::RpcStat> rows(stats.begin(), stats.end());
  if (by == SortBy::kId) {
    std::ranges::stable_sort(
        rows, [](const v1::RpcStat& a, const v1::RpcStat& b) { return a.id() < b.id(); });
    return rows;
  }
  auto key = [by](const v1::RpcStat& s) -> uint64_t {
    switch (by) {
      case SortBy::kTime:
        return s.total_usec();
      case SortBy::kAverage:
        return Average(s);
      default:
        return s.count();
    }
  };
  std::ranges::stable_sort(
      rows, [&](const v1::RpcStat& a, const v1::RpcStat& b) { return key(a) > key(b); });
  return rows;
}

// printf into a std::string.
template <typename... Args>
std::string Format(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<size_t>(std::max(n, 0)), '\0');
  std::snprintf(out.data(), out.size() + 1, format, args...);
  return out;
}

// " <date> (<seconds>)": sdiag's time stamps.
std::string Stamp(int64_t t, const TimeZone& tz) {
  std::string date = CtimeLine(t, tz);
  date.pop_back();  // the newline
  return date + " (" + std::to_string(t) + ")";
}

std::string Render(const v1::GetStatsReply& s, SortBy by, const CommandContext& ctx) {
  const TimeZone& tz = *ctx.time_zone;
  std::string out = "*******************************************************\n";
  out += "sdiag output at " + Stamp(s.time(), tz) + "\n";
  out += "Data since      " + Stamp(s.since(), tz) + "\n";
  out += "*******************************************************\n";
  out += Format("Server thread count:  %u\n", s.server_thread_count());
  out += Format("Agent queue size:     %u\n", s.agent_queue_size());
  out += Format("Agent count:          %u\n", s.agent_count());
  out += Format("Agent thread count:   %u\n", s.agent_thread_count());
  out += "DBD Agent queue size: 0\n\n";  // accounting is written in the controller's own commit
  out += Format("Jobs submitted: %u\n", s.jobs_submitted());
  out += Format("Jobs started:   %u\n", s.jobs_started());
  out += Format("Jobs completed: %u\n", s.jobs_completed());
  out += Format("Jobs canceled:  %u\n", s.jobs_canceled());
  out += Format("Jobs failed:    %u\n\n", s.jobs_failed());
  out += "Job states ts:  " + Stamp(s.job_states_time(), tz) + "\n";
  out += Format("Jobs pending:   %u\n", s.jobs_pending());
  out += Format("Jobs running:   %u\n", s.jobs_running());

  out += "\nMain schedule statistics (microseconds):\n";
  out += Format("\tLast cycle:   %u\n", s.schedule_cycle_last());
  out += Format("\tMax cycle:    %u\n", s.schedule_cycle_max());
  out += Format("\tTotal cycles: %u\n", s.schedule_cycle_counter());
  const uint64_t cycles = s.schedule_cycle_counter();
  if (cycles > 0) {
    out += Format("\tMean cycle:   %" PRIu64 "\n", s.schedule_cycle_sum() / cycles);
    out += Format("\tMean depth cycle:  %" PRIu64 "\n", s.schedule_cycle_depth() / cycles);
  }
  if (s.time() - s.since() > 60) {
    out += Format("\tCycles per minute: %" PRIu64 "\n",
                  cycles / static_cast<uint64_t>((s.time() - s.since()) / 60));
  }
  out += Format("\tLast queue length: %u\n", s.schedule_queue_len());

  out += "\nBackfilling stats\n";
  out += Format("\tTotal backfilled jobs (since last slurm start): %u\n", s.bf_backfilled_jobs());
  out += Format("\tTotal backfilled jobs (since last stats cycle start): %u\n",
                s.bf_last_backfilled_jobs());
  out += "\tTotal backfilled heterogeneous job components: 0\n";
  const uint64_t bf_cycles = s.bf_cycle_counter();
  out += Format("\tTotal cycles: %u\n", s.bf_cycle_counter());
  out += s.bf_when_last_cycle() > 0
             ? "\tLast cycle when: " + Stamp(s.bf_when_last_cycle(), tz) + "\n"
             : "\tLast cycle when: N/A\n";
  out += Format("\tLast cycle: %u\n", s.bf_cycle_last());
  out += Format("\tMax cycle:  %u\n", s.bf_cycle_max());
  if (bf_cycles > 0) out += Format("\tMean cycle: %" PRIu64 "\n", s.bf_cycle_sum() / bf_cycles);
  out += Format("\tLast depth cycle: %u\n", s.bf_last_depth());
  out += Format("\tLast depth cycle (try sched): %u\n", s.bf_last_depth_try());
  if (bf_cycles > 0) {
    out += Format("\tDepth Mean: %" PRIu64 "\n", s.bf_depth_sum() / bf_cycles);
    out += Format("\tDepth Mean (try depth): %" PRIu64 "\n", s.bf_depth_try_sum() / bf_cycles);
  }
  out += Format("\tLast queue length: %u\n", s.bf_queue_len());
  if (bf_cycles > 0) {
    out += Format("\tQueue length mean: %" PRIu64 "\n", s.bf_queue_len_sum() / bf_cycles);
  }
  out += Format("\tLast table size: %u\n", s.bf_table_size());
  if (bf_cycles > 0) {
    out += Format("\tMean table size: %" PRIu64 "\n", s.bf_table_size_sum() / bf_cycles);
  }

  out += Format("\nLatency for 1000 calls to gettimeofday(): %u microseconds\n",
                s.gettimeofday_latency_usec());

  out += "\nRemote Procedure Call statistics by message type\n";
  for (const v1::RpcStat& r : Sorted(s.rpc_types(), by)) {
    out +=
        Format("\t%-40s(%5u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
               model::RpcTypeName(r.id()).c_str(), r.id(), r.count(), Average(r), r.total_usec());
  }
  out += "\nRemote Procedure Call statistics by user\n";
  for (const v1::RpcStat& r : Sorted(s.rpc_users(), by)) {
    std::string user = std::to_string(r.id());
    if (ctx.user_name) user = ctx.user_name(r.id()).value_or(user);
    out += Format("\t%-16s(%8u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
                  user.c_str(), r.id(), r.count(), Average(r), r.total_usec());
  }
  out += "\nPending RPC statistics\n";
  if (s.pending_rpcs().empty()) out += "\tNo pending RPCs\n";
  for (const v1::RpcStat& r : s.pending_rpcs()) {
    out +=
        Format("\t%-40s(%5u) count:%-6u\n", model::RpcTypeName(r.id()).c_str(), r.id(), r.count());
  }
  return out;
}

}  // namespace

int RunSdiag(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, kSdiagShort, kSdiagLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "sdiag", parsed.error);
    return 1;
  }
  bool reset = false;
  SortBy by = SortBy::kCount;
  for (const ParsedOption& o : parsed.options) {
    switch (o.id) {
      case 'i':
        by = SortBy::kId;
        break;
      case 'r':
        reset = true;
        break;
      case 't':
        by = SortBy::kTime;
        break;
      case 'T':
        by = SortBy::kAverage;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case 'h':
      case kSdiagHelp:
        *ctx.out << kSdiagHelpText;
        return 0;
      case kSdiagUsage:
        *ctx.out << kSdiagUsageText;
        return 0;
      default:  // -a, -M (one cluster)
        break;
    }
  }
  const char* what = reset ? "slurm_reset_statistics: " : "slurm_get_statistics: ";
  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "sdiag", what);
  if (!client) return 255;
  v1::GetStatsRequest request;
  request.set_reset(reset);
  Result<v1::GetStatsReply> reply = client->GetStats(request);
  if (!reply.ok()) {
    *ctx.err << what << reply.status().message() << "\n";
    return 255;
  }
  *ctx.out << (reset ? std::string("Reset scheduling statistics\n") : Render(*reply, by, ctx));
  return 0;
}

}  // namespace gantry::slurm
