// `gantry nodes health [-v] [NODES]`: for each node, its state, when its health checks last
// ran, their result, who drained it (a health check or an operator) and why; with -v, every
// check of the last run and what it found.

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/health_report.h"
#include "model/node_state.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "state/records.h"
#include "text/begin_time.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

constexpr char kUsage[] =
    "usage: gantry nodes health [-v] [NODES]   (NODES: a hostlist, e.g. demo-a4-[0-1])\n";

std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size() + 1, ' ');
}

}  // namespace

int RunNodesHealth(const std::vector<std::string>& args, CommandContext& ctx) {
  bool verbose = false;
  std::set<std::string> wanted;
  for (const std::string& arg : args) {
    if (arg == "-v" || arg == "--verbose") {
      verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      *ctx.out << kUsage;
      return 0;
    } else if (arg.starts_with("-")) {
      *ctx.err << "gantry nodes health: unknown option \"" << arg << "\"\n" << kUsage;
      return 2;
    } else {
      Result<std::vector<std::string>> names = text::ExpandHostlist(arg);
      if (!names.ok()) {
        *ctx.err << "gantry nodes health: \"" << arg << "\": " << names.status().message() << "\n";
        return 2;
      }
      wanted.insert(names->begin(), names->end());
    }
  }
  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "gantry nodes health", "");
  if (!client) return 1;
  v1::GetNodesRequest request;
  request.set_with_health(true);
  Result<v1::GetNodesReply> reply = client->GetNodes(request);
  if (!reply.ok()) {
    *ctx.err << "gantry nodes health: " << reply.status().message() << "\n";
    return 1;
  }
  std::map<std::string, const v1::HealthReport*> health;
  for (const v1::HealthReport& report : reply->health()) health[report.node()] = &report;
  for (const std::string& name : wanted) {
    const bool known = std::any_of(reply->nodes().begin(), reply->nodes().end(),
                                   [&](const v1::Node& n) { return n.name() == name; });
    if (!known) {
      *ctx.err << "gantry nodes health: Invalid node name specified: " << name << "\n";
      return 1;
    }
  }
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  struct Row {
    std::string node, state, checked, result, drain, reason;
    const v1::HealthReport* report;
  };
  std::vector<Row> rows;
  for (const v1::Node& node : reply->nodes()) {
    if (!wanted.empty() && !wanted.contains(node.name())) continue;
    const model::NodeState state = state::NodeStateOf(node);
    const auto found = health.find(node.name());
    const v1::HealthReport* report = found == health.end() ? nullptr : found->second;
    const std::string failure = report ? model::HealthDrainReason(*report) : "";
    const bool drained = state.Has(model::NodeFlag::kDrain) || state.Has(model::NodeFlag::kFail);
    Row row{node.name(),
            model::SinfoStateLong(state),
            report
                ? text::FormatIsoTime(report->time(), tz) + (report->at_start() ? " (start)" : "")
                : "-",
            report ? (failure.empty() ? "passed" : "failed") : "-",
            !drained                ? "-"
            : node.health_drained() ? "health"
                                    : "operator",
            drained ? node.reason() : failure,
            report};
    rows.push_back(std::move(row));
  }
  size_t w[5] = {4, 5, 7, 6, 7};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.node.size());
    w[1] = std::max(w[1], r.state.size());
    w[2] = std::max(w[2], r.checked.size());
    w[3] = std::max(w[3], r.result.size());
    w[4] = std::max(w[4], r.drain.size());
  }
  std::ostream& out = *ctx.out;
  out << Pad("NODE", w[0]) << Pad("STATE", w[1]) << Pad("CHECKED", w[2]) << Pad("RESULT", w[3])
      << Pad("DRAINED", w[4]) << "REASON\n";
  for (const Row& r : rows) {
    std::string line = Pad(r.node, w[0]) + Pad(r.state, w[1]) + Pad(r.checked, w[2]) +
                       Pad(r.result, w[3]) + Pad(r.drain, w[4]) + r.reason;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (!verbose || r.report == nullptr) continue;
    for (const v1::HealthCheck& check : r.report->checks()) {
      out << "  " << Pad(check.name(), 8) << Pad(check.ok() ? "ok" : "FAILED", 6)
          << Pad(std::to_string(check.duration_ms()) + " ms", 9) << check.message() << "\n";
    }
  }
  return 0;
}

}  // namespace gantry::slurm
