// sinfo: lists partitions and nodes (see sinfo_format.h for the listing itself).
#include <ostream>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/openapi_json.h"
#include "slurm/sinfo_format.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

enum : int {
  kSinfoHelp = 0x100,
  kSinfoUsage,
  kSinfoHide,
  kSinfoNoConvert,
  kSinfoLocal,
  kSinfoFederation,
  kSinfoJson,
  kSinfoYaml,
};

constexpr ShortOption kSinfoShort[] = {
    {'a', ArgKind::kNone},     {'d', ArgKind::kNone},     {'e', ArgKind::kNone},
    {'h', ArgKind::kNone},     {'i', ArgKind::kRequired}, {'l', ArgKind::kNone},
    {'n', ArgKind::kRequired}, {'o', ArgKind::kRequired}, {'p', ArgKind::kRequired},
    {'r', ArgKind::kNone},     {'s', ArgKind::kNone},     {'t', ArgKind::kRequired},
    {'v', ArgKind::kNone},     {'M', ArgKind::kRequired}, {'N', ArgKind::kNone},
    {'O', ArgKind::kRequired}, {'R', ArgKind::kNone},     {'S', ArgKind::kRequired},
    {'T', ArgKind::kNone},     {'V', ArgKind::kNone},
};

// sinfo 22.05's long options, in its table order.
constexpr LongOption kSinfoLong[] = {
    {"all", ArgKind::kNone, 'a'},
    {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},
    {"dead", ArgKind::kNone, 'd'},
    {"exact", ArgKind::kNone, 'e'},
    {"federation", ArgKind::kNone, kSinfoFederation},
    {"format", ArgKind::kRequired, 'o'},
    {"Format", ArgKind::kRequired, 'O'},
    {"help", ArgKind::kNone, kSinfoHelp},
    {"hide", ArgKind::kNone, kSinfoHide},
    {"iterate", ArgKind::kRequired, 'i'},
    {"json", ArgKind::kNone, kSinfoJson},
    {"local", ArgKind::kNone, kSinfoLocal},
    {"long", ArgKind::kNone, 'l'},
    {"list-reasons", ArgKind::kNone, 'R'},
    {"nodes", ArgKind::kRequired, 'n'},
    {"noconvert", ArgKind::kNone, kSinfoNoConvert},
    {"noheader", ArgKind::kNone, 'h'},
    {"Node", ArgKind::kNone, 'N'},
    {"partition", ArgKind::kRequired, 'p'},
    {"responding", ArgKind::kNone, 'r'},
    {"reservation", ArgKind::kNone, 'T'},
    {"summarize", ArgKind::kNone, 's'},
    {"sort", ArgKind::kRequired, 'S'},
    {"states", ArgKind::kRequired, 't'},
    {"usage", ArgKind::kNone, kSinfoUsage},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
    {"yaml", ArgKind::kNone, kSinfoYaml},
};

constexpr char kSinfoUsageText[] =
    "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
    "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n";

constexpr char kSinfoHelpText[] =
    "Usage: sinfo [OPTIONS]\n"
    "  -a, --all                  show all partitions (including hidden ones)\n"
    "  -d, --dead                 show only non-responding nodes\n"
    "  -e, --exact                group nodes only on exact match of configuration\n"
    "  -h, --noheader             no headers on output\n"
    "  --hide                     do not show hidden partitions\n"
    "  -l, --long                 long output - displays more information\n"
    "  -n, --nodes=NODES          report on specific node(s)\n"
    "  -N, --Node                 Node-centric format\n"
    "  -o, --format=format        format specification\n"
    "  -p, --partition=PARTITION  report on specific partition\n"
    "  -r, --responding           report only responding nodes\n"
    "  -R, --list-reasons         list reason nodes are down or drained\n"
    "  -s, --summarize            report state summary only\n"
    "  -S, --sort=fields          comma separated list of fields to sort on\n"
    "  -t, --states=node_state    specify the what states of nodes to view\n"
    "  -v, --verbose              verbosity level\n"
    "  -V, --version              output version information and exit\n"
    "\n"
    "Help options:\n"
    "  --help                     show this help message\n"
    "  --usage                    display brief usage message\n";

constexpr char kSinfoValidStates[] =
    "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,"
    "perfctrs,cloud,completing,powering_down,powered_down,power_down,powering_up,fail,maint,"
    "reboot,reboot^,unknown";

}  // namespace

int RunSinfo(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, kSinfoShort, kSinfoLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "sinfo", parsed.error);
    return 1;
  }
  SinfoQuery query;
  bool no_header = false;
  bool long_output = false;
  bool summarize = false;
  std::optional<std::string> format;
  bool long_form = false;  // -O given: the format is parsed as -O even if -o comes later (sinfo)
  bool json = false;
  std::optional<std::string> sort;
  std::optional<std::string> states;
  std::optional<std::string> partitions;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'a':
        query.all = true;
        break;
      case kSinfoHide:
        query.all = false;
        break;
      case 'd':
        query.dead_only = true;
        break;
      case 'e':
        query.exact = true;
        break;
      case 'h':
        no_header = true;
        break;
      case 'l':
        long_output = true;
        break;
      case 'n': {
        Result<std::vector<std::string>> nodes = text::ExpandHostlist(value);
        if (!nodes.ok()) {
          *ctx.err << "sinfo: error: '" << value << "' invalid entry for --nodes\n";
          return 1;
        }
        query.nodes = std::move(nodes).value();
        break;
      }
      case 'N':
        query.node_oriented = true;
        break;
      case 'o':
        format = value;
        break;
      case 'O':
        long_form = true;
        format = value;
        break;
      case kSinfoJson:
        json = true;
        break;
      case 'p':
        partitions = value;
        break;
      case 'r':
        query.responding_only = true;
        break;
      case 'R':
        query.reasons_only = true;
        break;
      case 's':
        summarize = true;
        break;
      case 'S':
        sort = value;
        break;
      case 't':
        states = value;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kSinfoHelp:
        *ctx.out << kSinfoHelpText;
        return 0;
      case kSinfoUsage:
        *ctx.out << kSinfoUsageText;
        return 0;
      case 'v':
      case kSinfoNoConvert:
      case kSinfoLocal:
      case kSinfoFederation:
        break;
      default:
        *ctx.err << "sinfo: error: " << o.spelling << " is not supported by Gantry yet\n";
        return 1;
    }
  }
  if (!partitions) partitions = ctx.GetEnv("SINFO_PARTITION");
  if (partitions) {
    query.partitions = SplitList(*partitions);
    query.all = true;
  }
  if (!sort) sort = ctx.GetEnv("SINFO_SORT");
  if (!format) format = ctx.GetEnv("SINFO_FORMAT");
  if (states) {
    Result<model::SinfoStateFilter> filter = model::ParseSinfoStateFilter(*states);
    if (!filter.ok()) {
      std::string bad = *states;
      for (const std::string& word : SplitList(*states)) {
        if (!model::ParseSinfoStateSelector(word).ok()) {
          bad = word;
          break;
        }
      }
      *ctx.err << "sinfo: error: Bad state string: \"" << bad << "\"\n"
               << "sinfo: error: valid states: " << kSinfoValidStates << "\n";
      return 1;
    }
    query.states = std::move(filter).value();
  }
  if (!format) {
    if (query.reasons_only) {
      format = long_output ? kSinfoReasonsLongFormat : kSinfoReasonsFormat;
    } else if (summarize) {
      format = kSinfoSummarizeFormat;
    } else if (query.node_oriented) {
      format = long_output ? kSinfoNodeLongFormat : kSinfoNodeFormat;
    } else {
      format = long_output ? kSinfoLongFormat : kSinfoDefaultFormat;
    }
  }
  const SinfoFormat parsed_format =
      long_form ? ParseSinfoLongFormat(*format) : ParseSinfoFormat(*format);
  if (!json) {
    for (const std::string& e : parsed_format.errors) *ctx.err << e << "\n";
  }

  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "sinfo", "slurm_load_partitions: ");
  if (!client) return 1;
  Result<v1::GetNodesReply> reply = client->GetNodes(v1::GetNodesRequest());
  if (!reply.ok()) {
    *ctx.err << "slurm_load_partitions: " << reply.status().message() << "\n";
    return 1;
  }
  if (json) {
    // Every node, whatever the other options say (Slurm 22.05 ignores them).
    OpenapiNodeContext json_ctx;
    json_ctx.user_name = ctx.user_name;
    nlohmann::ordered_json doc = OpenapiDocument();
    doc["nodes"] = nlohmann::ordered_json::array();
    for (const v1::Node& node : reply->nodes()) {
      doc["nodes"].push_back(NodeToOpenapi(node, json_ctx));
    }
    *ctx.out << DumpSlurmJson(doc);
    return 0;
  }
  const UnixTime now = reply->now() != 0 ? reply->now() : ctx.now;
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  std::vector<SinfoRecord> records = BuildSinfoRecords(*reply, query, parsed_format);
  SortSinfoRecords(&records, sort ? *sort : (query.node_oriented ? "N" : "#P,-t"));
  SinfoPrintContext print;
  print.tz = &tz;
  print.user_name = ctx.user_name;
  if (long_output && !no_header) *ctx.out << CtimeLine(now, tz);
  *ctx.out << RenderSinfo(parsed_format, records, no_header, print);
  return 0;
}

}  // namespace gantry::slurm
