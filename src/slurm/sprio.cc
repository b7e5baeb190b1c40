// sprio: pending jobs' priorities and their factors, as Slurm 22.05's sprio prints them.
//
// Columns come from a format of "%[.][width]letter" fields ('.' right-justifies, values are cut
// to the width): i job id, r partition, u user, o account, n QOS name, Y/y priority
// (weighted/normalised), S site, A/a age, B/b association, F/f fair-share, J/j job size,
// P/p partition, Q/q QOS, T/t TRES, N nice. Weighted factors print as whole numbers,
// normalised ones with 7 decimals (the priority as %16.14f cut to the width), TRES as
// "name=value" for each TRES whose factor is not 0. The default format has only the factors
// with a weight; -l has all. Jobs are sorted by id unless -S says otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm/option_parser.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

enum : int { kSprioHelp = 256, kSprioUsage };

constexpr ShortOption kSprioShort[] = {
    {'h', ArgKind::kNone},     {'j', ArgKind::kRequired}, {'l', ArgKind::kNone},
    {'M', ArgKind::kRequired}, {'n', ArgKind::kNone},     {'o', ArgKind::kRequired},
    {'p', ArgKind::kRequired}, {'S', ArgKind::kRequired}, {'u', ArgKind::kRequired},
    {'v', ArgKind::kNone},     {'V', ArgKind::kNone},     {'w', ArgKind::kNone},
};

constexpr LongOption kSprioLong[] = {
    {"noheader", ArgKind::kNone, 'h'},      {"jobs", ArgKind::kRequired, 'j'},
    {"long", ArgKind::kNone, 'l'},          {"cluster", ArgKind::kRequired, 'M'},
    {"clusters", ArgKind::kRequired, 'M'},  {"norm", ArgKind::kNone, 'n'},
    {"format", ArgKind::kRequired, 'o'},    {"partition", ArgKind::kRequired, 'p'},
    {"sort", ArgKind::kRequired, 'S'},      {"user", ArgKind::kRequired, 'u'},
    {"verbose", ArgKind::kNone, 'v'},       {"version", ArgKind::kNone, 'V'},
    {"weights", ArgKind::kNone, 'w'},       {"help", ArgKind::kNone, kSprioHelp},
    {"usage", ArgKind::kNone, kSprioUsage},
};

constexpr char kSprioUsageText[] =
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "     [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

struct Field {
  char letter;
  bool right;
  int width;
};

struct SprioOptions {
  bool no_header = false;
  bool long_list = false;
  bool normalized = false;
  bool weights = false;
  std::optional<std::string> format;
  std::optional<std::string> sort;
  std::vector<uint32_t> jobs;
  std::vector<std::string> users;
  std::vector<std::string> partitions;
};

std::vector<Field> ParseFormat(const std::string& format) {
  std::vector<Field> out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    Field f{0, false, 0};
    size_t j = i + 1;
    if (j < format.size() && format[j] == '.') {
      f.right = true;
      ++j;
    }
    while (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j])) != 0) {
      f.width = f.width * 10 + (format[j] - '0');
      ++j;
    }
    if (j < format.size()) f.letter = format[j];
    out.push_back(f);
    i = j;
  }
  return out;
}

// The default formats (only weighted factors, except with -l).
std::string DefaultFormat(const SprioOptions& opt, const v1::PriorityWeights& w) {
  const bool n = opt.normalized;
  std::string f = "%.15i %9r ";
  if (opt.long_list || !opt.users.empty()) f += "%.8u ";
  f += n ? "%10y " : "%.10Y %.10S ";
  auto add = [&](bool weighted, char letter) {
    if (!opt.long_list && !weighted) return;
    f += n ? std::string("%10") + static_cast<char>(std::tolower(letter)) + " "
           : std::string("%.10") + letter + " ";
  };
  add(w.age() > 0, 'A');
  add(w.assoc() > 0, 'B');
  add(w.fairshare() > 0, 'F');
  add(w.job_size() > 0, 'J');
  add(w.partition() > 0, 'P');
  add(w.qos() > 0, 'Q');
  if (opt.long_list && !n) f += "%.11N ";
  if (opt.long_list || w.tres_names_size() > 0) f += n ? "%20t " : "%.20T ";
  f.pop_back();
  return f;
}

std::string Header(char letter) {
  switch (letter) {
    case 'i':
      return "JOBID";
    case 'r':
      return "PARTITION";
    case 'u':
      return "USER";
    case 'o':
      return "ACCOUNT";
    case 'n':
      return "QOSNAME";
    case 'y':
    case 'Y':
      return "PRIORITY";
    case 'S':
      return "SITE";
    case 'a':
    case 'A':
      return "AGE";
    case 'b':
    case 'B':
      return "ASSOC";
    case 'f':
    case 'F':
      return "FAIRSHARE";
    case 'j':
    case 'J':
      return "JOBSIZE";
    case 'p':
    case 'P':
      return "PARTITION";
    case 'q':
    case 'Q':
      return "QOS";
    case 't':
    case 'T':
      return "TRES";
    case 'N':
      return "NICE";
    default:
      return "";
  }
}

std::string SprioPrintf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string Weighted(double weighted) { return SprioPrintf("%.0f", weighted); }
std::string Norm(double factor) { return SprioPrintf("%.7f", factor); }

// "cpu=12,mem=9": each TRES whose factor is not 0.
std::string SprioTresText(const v1::PriorityWeights& w, const v1::JobPriority& p, bool normalized) {
  std::string out;
  for (int i = 0; i < w.tres_names_size() && i < p.tres_size(); ++i) {
    if (p.tres(i) == 0) continue;
    if (!out.empty()) out += ',';
    out += w.tres_names(i) + "=" +
           (normalized ? SprioPrintf("%.2f", p.tres(i)) : Weighted(p.tres(i) * w.tres_weights(i)));
  }
  return out;
}

std::string JobIdText(const v1::JobPriority& p) {
  if (p.has_array_task_id()) {
    return std::to_string(p.array_job_id()) + "_" + std::to_string(p.array_task_id());
  }
  return std::to_string(p.job_id());
}

std::string SprioValue(char letter, const v1::JobPriority& p, const v1::PriorityWeights& w) {
  switch (letter) {
    case 'i':
      return JobIdText(p);
    case 'r':
      return p.partition();
    case 'u':
      return p.user();
    case 'o':
      return p.account();
    case 'n':
      return p.qos();
    case 'Y':
      return std::to_string(p.priority());
    case 'y':
      return SprioPrintf("%16.14f", p.priority() / 4294967295.0);
    case 'S':
      return "0";
    case 'A':
      return Weighted(p.age() * w.age());
    case 'a':
      return Norm(p.age());
    case 'B':
      return Weighted(p.assoc() * w.assoc());
    case 'b':
      return Norm(p.assoc());
    case 'F':
      return Weighted(p.fairshare() * w.fairshare());
    case 'f':
      return Norm(p.fairshare());
    case 'J':
      return Weighted(p.job_size() * w.job_size());
    case 'j':
      return Norm(p.job_size());
    case 'P':
      return Weighted(p.partition_factor() * w.partition());
    case 'p':
      return Norm(p.partition_factor());
    case 'Q':
      return Weighted(p.qos_factor() * w.qos());
    case 'q':
      return Norm(p.qos_factor());
    case 'T':
      return SprioTresText(w, p, false);
    case 't':
      return SprioTresText(w, p, true);
    case 'N':
      return std::to_string(p.nice());
    default:
      return "";
  }
}

// The -w row: the weights where the factors go.
std::string WeightValue(char letter, const v1::PriorityWeights& w) {
  auto number = [](uint32_t n) { return std::to_string(n); };
  switch (letter) {
    case 'i':
      return "Weights";
    case 'S':
      return "1";
    case 'A':
    case 'a':
      return number(w.age());
    case 'B':
    case 'b':
      return number(w.assoc());
    case 'F':
    case 'f':
      return number(w.fairshare());
    case 'J':
    case 'j':
      return number(w.job_size());
    case 'P':
    case 'p':
      return number(w.partition());
    case 'Q':
    case 'q':
      return number(w.qos());
    case 'T': {
      std::string out;
      for (int i = 0; i < w.tres_names_size(); ++i) {
        if (!out.empty()) out += ',';
        out += w.tres_names(i) + "=" + SprioPrintf("%.0f", w.tres_weights(i));
      }
      return out;
    }
    default:
      return "";
  }
}

void SprioPad(std::string* line, const Field& f, std::string value) {
  if (f.width > 0 && value.size() > static_cast<size_t>(f.width)) {
    value.resize(static_cast<size_t>(f.width));
  }
  const size_t pad =
      f.width > 0 && value.size() < static_cast<size_t>(f.width) ? f.width - value.size() : 0;
  if (f.right) line->append(pad, ' ');
  *line += value;
  if (!f.right) line->append(pad, ' ');
}

std::string SprioLine(const std::vector<Field>& fields,
                      const std::function<std::string(char)>& value) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ' ';
    SprioPad(&line, fields[i], value(fields[i].letter));
  }
  return line + "\n";
}

// -S: letters of the format, '-' before one sorts it descending; ties by job id.
void SprioSort(std::vector<v1::JobPriority>* jobs, const std::string& spec,
               const v1::PriorityWeights& w) {
  struct Key {
    char letter;
    bool descending;
  };
  std::vector<Key> keys;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == ',' || spec[i] == '+' || spec[i] == '-') continue;
    keys.push_back({spec[i], i > 0 && spec[i - 1] == '-'});
  }
  auto number = [&w](char letter, const v1::JobPriority& p) -> std::optional<double> {
    switch (std::tolower(letter)) {
      case 'i':
        return p.job_id();
      case 'y':
        return p.priority();
      case 'a':
        return p.age() * w.age();
      case 'b':
        return p.assoc() * w.assoc();
      case 'f':
        return p.fairshare() * w.fairshare();
      case 'j':
        return p.job_size() * w.job_size();
      case 'p':
        return p.partition_factor() * w.partition();
      case 'q':
        return p.qos_factor() * w.qos();
      case 'n':
        return letter == 'N' ? std::optional<double>(p.nice()) : std::nullopt;
      default:
        return std::nullopt;
    }
  };
  std::stable_sort(jobs->begin(), jobs->end(),
                   [&](const v1::JobPriority& a, const v1::JobPriority& b) {
                     for (const Key& k : keys) {
                       std::optional<double> x = number(k.letter, a);
                       std::optional<double> y = number(k.letter, b);
                       int c = 0;
                       if (x && y) {
                         c = *x < *y ? -1 : (*x > *y ? 1 : 0);
                       } else {
                         const std::string s = SprioValue(k.letter, a, w);
                         const std::string t = SprioValue(k.letter, b, w);
                         c = s < t ? -1 : (s > t ? 1 : 0);
                       }
                       if (c != 0) return k.descending ? c > 0 : c < 0;
                     }
                     return false;
                   });
}

}  // namespace

int RunSprio(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, kSprioShort, kSprioLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "sprio", parsed.error);
    return 1;
  }
  SprioOptions opt;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'h':
        opt.no_header = true;
        break;
      case 'j':
        for (const std::string& id : SplitList(value)) {
          std::optional<uint64_t> n = ParseUnsigned(id);
          if (!n || *n == 0 || *n > 0xFFFFFFFFu) {
            *ctx.err << "Invalid job id: " << id << "\n";
            return 1;
          }
          opt.jobs.push_back(static_cast<uint32_t>(*n));
        }
        break;
      case 'l':
        opt.long_list = true;
        break;
      case 'n':
        opt.normalized = true;
        break;
      case 'o':
        opt.format = value;
        break;
      case 'p':
        opt.partitions = SplitList(value);
        break;
      case 'S':
        opt.sort = value;
        break;
      case 'u':
        opt.users = SplitList(value);
        break;
      case 'w':
        opt.weights = true;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kSprioHelp:
      case kSprioUsage:
        *ctx.out << kSprioUsageText;
        return 0;
      default:
        break;
    }
  }
  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "sprio", "sprio: error: Unable to contact slurm controller: ");
  if (!client) return 1;
  v1::GetPrioritiesRequest request;
  request.set_jobs(!opt.weights);
  Result<v1::GetPrioritiesReply> reply = client->GetPriorities(request);
  if (!reply.ok()) {
    *ctx.err << "sprio: error: " << reply.status().message() << "\n";
    return 1;
  }
  const v1::PriorityWeights& w = reply->weights();
  if (!w.multifactor()) {
    *ctx.err << "You are not running a supported priority plugin\n(priority/basic).\n"
                "Only 'priority/multifactor' is supported.\n";
    return 1;
  }
  for (const std::string& user : opt.users) {
    if (!ctx.uid_of || !ctx.uid_of(user)) {
      *ctx.err << "sprio: error: Invalid user: " << user << "\n";
    }
  }
  std::vector<v1::JobPriority> jobs;
  for (const v1::JobPriority& p : reply->jobs()) {
    auto named = [](const std::vector<std::string>& list, const std::string& v) {
      return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
    };
    if (!opt.jobs.empty() &&
        std::find(opt.jobs.begin(), opt.jobs.end(), p.job_id()) == opt.jobs.end()) {
      continue;
    }
    if (!named(opt.users, p.user()) || !named(opt.partitions, p.partition())) continue;
    jobs.push_back(p);
  }
  if (!opt.jobs.empty() && jobs.empty()) {
    *ctx.out << "Unable to find jobs matching user/id(s) specified\n";
    return 0;
  }
  std::sort(jobs.begin(), jobs.end(), [](const v1::JobPriority& a, const v1::JobPriority& b) {
    return a.job_id() < b.job_id();
  });
  if (opt.sort) SprioSort(&jobs, *opt.sort, w);
  const std::vector<Field> fields = ParseFormat(opt.format ? *opt.format : DefaultFormat(opt, w));
  if (!opt.no_header) *ctx.out << SprioLine(fields, [](char letter) { return Header(letter); });
  if (opt.weights) {
    *ctx.out << SprioLine(fields, [&](char letter) {
      return opt.normalized && (letter == 't' || letter == 'T') ? "" : WeightValue(letter, w);
    });
    return 0;
  }
  for (const v1::JobPriority& p : jobs) {
    *ctx.out << SprioLine(fields, [&](char letter) { return SprioValue(letter, p, w); });
  }
  return 0;
}

}  // namespace gantry::slurm
