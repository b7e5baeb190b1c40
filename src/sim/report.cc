#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "nlohmann/json.hpp"

namespace gantry::sim {
namespace {

std::string Fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

// A CSV cell: quoted when it holds a comma, a quote or a line break.
std::string Cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string EscapeHtml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The value at fraction q of sorted `values` (nearest rank).
int64_t Percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// "1d 02:03:04" style for the page's axis labels and the text summary.
std::string Duration(int64_t s) {
  char buf[64];
  if (s >= 86400) {
    std::snprintf(buf, sizeof buf, "%lldd %02lld:%02lld:%02lld", static_cast<long long>(s / 86400),
                  static_cast<long long>(s % 86400 / 3600), static_cast<long long>(s % 3600 / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60), static_cast<long long>(s % 60));
  }
  return buf;
}

}  // namespace

Summary Summarize(const SimulationResult& result) {
  Summary s;
  s.jobs = result.jobs.size();
  s.cycles = result.cycles;
  int64_t first_submit = -1;
  int64_t last_end = 0;
  double cpu_seconds = 0;
  double slowdown = 0;
  uint64_t ended = 0;
  std::vector<int64_t> waits;
  std::map<std::string, AccountUsage> accounts;
  for (const auto& [name, target] : result.account_targets) {
    accounts[name].account = name;
    accounts[name].target_share = target;
  }
  for (const JobOutcome& job : result.jobs) {
    ++s.states[job.state];
    s.preemptions += job.preemptions;
    if (job.submit >= 0) {
      first_submit = first_submit < 0 ? job.submit : std::min(first_submit, job.submit);
    }
    AccountUsage& account = accounts[job.account.empty() ? "root" : job.account];
    account.account = job.account.empty() ? "root" : job.account;
    ++account.jobs;
    if (job.start < 0) continue;
    waits.push_back(job.start - job.submit);
    if (job.end < 0) continue;
    const int64_t ran = job.end - job.start;
    const double used = static_cast<double>(job.cpus) * static_cast<double>(ran);
    cpu_seconds += used;
    account.cpu_seconds += used;
    last_end = std::max(last_end, job.end);
    const double wait = static_cast<double>(job.start - job.submit);
    slowdown +=
        std::max(1.0, (wait + static_cast<double>(ran)) / std::max(static_cast<double>(ran), 10.0));
    ++ended;
  }
  s.makespan_s = first_submit < 0 ? 0 : std::max<int64_t>(0, last_end - first_submit);
  if (s.makespan_s > 0 && result.total_cpus > 0) {
    s.utilization =
        cpu_seconds / (static_cast<double>(result.total_cpus) * static_cast<double>(s.makespan_s));
  }
  std::sort(waits.begin(), waits.end());
  if (!waits.empty()) {
    double sum = 0;
    for (int64_t w : waits) sum += static_cast<double>(w);
    s.wait_mean_s = sum / static_cast<double>(waits.size());
    s.wait_p50_s = Percentile(waits, 0.5);
    s.wait_p95_s = Percentile(waits, 0.95);
    s.wait_max_s = waits.back();
  }
  if (ended > 0) s.bounded_slowdown_mean = slowdown / static_cast<double>(ended);
  for (auto& [name, usage] : accounts) {
    usage.usage_share = cpu_seconds > 0 ? usage.cpu_seconds / cpu_seconds : 0;
    s.accounts.push_back(usage);
  }
  return s;
}

std::string JobsCsv(const SimulationResult& result) {
  std::string out =
      "job_id,trace_id,user,account,partition,state,submit,start,end,wait,run,nodes,cpus,"
      "node_list,preemptions\n";
  for (const JobOutcome& j : result.jobs) {
    const int64_t wait = j.start >= 0 ? j.start - j.submit : -1;
    out += Cell(j.job_id) + "," + std::to_string(j.trace_id) + "," + Cell(j.user) + "," +
           Cell(j.account) + "," + Cell(j.partition) + "," + j.state + "," +
           std::to_string(j.submit) + "," + std::to_string(j.start) + "," + std::to_string(j.end) +
           "," + std::to_string(wait) + "," + std::to_string(j.run) + "," +
           std::to_string(j.nodes) + "," + std::to_string(j.cpus) + "," + Cell(j.node_list) + "," +
           std::to_string(j.preemptions) + "\n";
  }
  return out;
}

std::string SummaryJson(const Summary& s) {
  nlohmann::ordered_json j;
  j["jobs"] = s.jobs;
  nlohmann::ordered_json states = nlohmann::ordered_json::object();
  for (const auto& [state, count] : s.states) states[state] = count;
  j["states"] = states;
  j["makespan_s"] = s.makespan_s;
  j["utilization"] = std::round(s.utilization * 1e6) / 1e6;
  j["wait_mean_s"] = std::round(s.wait_mean_s * 1e3) / 1e3;
  j["wait_p50_s"] = s.wait_p50_s;
  j["wait_p95_s"] = s.wait_p95_s;
  j["wait_max_s"] = s.wait_max_s;
  j["bounded_slowdown_mean"] = std::round(s.bounded_slowdown_mean * 1e3) / 1e3;
  j["preemptions"] = s.preemptions;
  j["cycles"] = s.cycles;
  nlohmann::ordered_json accounts = nlohmann::ordered_json::array();
  for (const AccountUsage& a : s.accounts) {
    nlohmann::ordered_json row;
    row["account"] = a.account;
    row["jobs"] = a.jobs;
    row["cpu_seconds"] = std::round(a.cpu_seconds);
    row["usage_share"] = std::round(a.usage_share * 1e6) / 1e6;
    row["target_share"] = std::round(a.target_share * 1e6) / 1e6;
    accounts.push_back(std::move(row));
  }
  j["accounts"] = accounts;
  return j.dump(2) + "\n";
}

std::string SummaryText(const Summary& s) {
  std::string out = "jobs " + std::to_string(s.jobs) + " (";
  bool first = true;
  for (const auto& [state, count] : s.states) {
    out += std::string(first ? "" : ", ") + std::to_string(count) + " " + state;
    first = false;
  }
  out += ")\n";
  out += "makespan " + Duration(s.makespan_s) + "  utilization " + Fixed(100 * s.utilization, 1) +
         " %  preemptions " + std::to_string(s.preemptions) + "\n";
  out += "wait mean " + Duration(static_cast<int64_t>(std::llround(s.wait_mean_s))) + "  p50 " +
         Duration(s.wait_p50_s) + "  p95 " + Duration(s.wait_p95_s) + "  max " +
         Duration(s.wait_max_s) + "  bounded slowdown " + Fixed(s.bounded_slowdown_mean, 2) + "\n";
  return out;
}

std::string CompareText(const std::string& a_name, const SimulationResult& a,
                        const std::string& b_name, const SimulationResult& b) {
  const Summary sa = Summarize(a);
  const Summary sb = Summarize(b);
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %16s %16s %12s\n", "", a_name.c_str(), b_name.c_str(),
                "change");
  out += line;
  auto row = [&](const char* what, double x, double y, int digits) {
    std::snprintf(line, sizeof line, "%-24s %16s %16s %12s\n", what, Fixed(x, digits).c_str(),
                  Fixed(y, digits).c_str(), ((y >= x ? "+" : "") + Fixed(y - x, digits)).c_str());
    out += line;
  };
  row("makespan (s)", static_cast<double>(sa.makespan_s), static_cast<double>(sb.makespan_s), 0);
  row("utilization (%)", 100 * sa.utilization, 100 * sb.utilization, 2);
  row("wait mean (s)", sa.wait_mean_s, sb.wait_mean_s, 1);
  row("wait p50 (s)", static_cast<double>(sa.wait_p50_s), static_cast<double>(sb.wait_p50_s), 0);
  row("wait p95 (s)", static_cast<double>(sa.wait_p95_s), static_cast<double>(sb.wait_p95_s), 0);
  row("wait max (s)", static_cast<double>(sa.wait_max_s), static_cast<double>(sb.wait_max_s), 0);
  row("bounded slowdown", sa.bounded_slowdown_mean, sb.bounded_slowdown_mean, 3);
  row("preemptions", static_cast<double>(sa.preemptions), static_cast<double>(sb.preemptions), 0);
  std::map<std::string, const AccountUsage*> b_accounts;
  for (const AccountUsage& u : sb.accounts) b_accounts[u.account] = &u;
  for (const AccountUsage& u : sa.accounts) {
    const auto other = b_accounts.find(u.account);
    if (other == b_accounts.end()) continue;
    row(("usage % " + u.account).substr(0, 24).c_str(), 100 * u.usage_share,
        100 * other->second->usage_share, 2);
  }
  size_t moved = 0;
  size_t elsewhere = 0;
  const size_t n = std::min(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < n; ++i) {
    moved += a.jobs[i].start != b.jobs[i].start;
    elsewhere += a.jobs[i].node_list != b.jobs[i].node_list;
  }
  out += std::to_string(moved) + " of " + std::to_string(n) + " jobs started at another time, " +
         std::to_string(elsewhere) + " on other nodes\n";
  return out;
}

namespace {

// A line plot of (x, y) points as an SVG polyline, x and y scaled into the box.
std::string LinePlot(const std::string& title, const std::vector<std::pair<double, double>>& pts,
                     double y_max, const std::string& y_label, int64_t x_end) {
  constexpr double kW = 720;
  constexpr double kH = 220;
  constexpr double kLeft = 60;
  constexpr double kBottom = 30;
  std::string svg = "<h2>" + EscapeHtml(title) + "</h2>\n<svg width=\"" + Fixed(kW + kLeft, 0) +
                    "\" height=\"" + Fixed(kH + kBottom + 10, 0) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  svg += "<rect x=\"" + Fixed(kLeft, 0) + "\" y=\"10\" width=\"" + Fixed(kW, 0) + "\" height=\"" +
         Fixed(kH, 0) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  const double x_scale = x_end > 0 ? kW / static_cast<double>(x_end) : 0;
  const double y_scale = y_max > 0 ? kH / y_max : 0;
  std::string points;
  double last_y = 0;
  for (const auto& [x, y] : pts) {
    // A step plot: the value holds until the next point.
    const double px = kLeft + x * x_scale;
    if (!points.empty()) points += Fixed(px, 1) + "," + Fixed(10 + kH - last_y * y_scale, 1) + " ";
    points += Fixed(px, 1) + "," + Fixed(10 + kH - y * y_scale, 1) + " ";
    last_y = y;
  }
  svg += "<polyline fill=\"none\" stroke=\"#2060c0\" stroke-width=\"1.2\" points=\"" + points +
         "\"/>\n";
  svg += "<text x=\"4\" y=\"20\" font-size=\"11\">" + EscapeHtml(Fixed(y_max, 0)) + "</text>\n";
  svg += "<text x=\"4\" y=\"" + Fixed(10 + kH, 0) + "\" font-size=\"11\">0</text>\n";
  svg += "<text x=\"4\" y=\"" + Fixed(kH / 2, 0) + "\" font-size=\"11\">" + EscapeHtml(y_label) +
         "</text>\n";
  svg += "<text x=\"" + Fixed(kLeft, 0) + "\" y=\"" + Fixed(kH + kBottom + 5, 0) +
         "\" font-size=\"11\">0</text>\n";
  svg += "<text x=\"" + Fixed(kLeft + kW - 90, 0) + "\" y=\"" + Fixed(kH + kBottom + 5, 0) +
         "\" font-size=\"11\">" + EscapeHtml(Duration(x_end)) + "</text>\n";
  return svg + "</svg>\n";
}

}  // namespace

std::string HtmlReport(const std::string& title, const SimulationResult& result) {
  const Summary s = Summarize(result);
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                     EscapeHtml(title) +
                     "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
                     "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
                     "text-align:right}th{background:#eee}</style></head><body>\n<h1>" +
                     EscapeHtml(title) + "</h1>\n<pre>" + EscapeHtml(SummaryText(s)) + "</pre>\n";
  const int64_t x_end =
      std::max<int64_t>(1, result.timeline.empty() ? 1 : result.timeline.back().t);
  // At most kColumns points a plot: per column the longest queue, and the mean utilization.
  constexpr int64_t kColumns = 720;
  const int64_t width = std::max<int64_t>(1, (x_end + kColumns - 1) / kColumns);
  std::vector<std::pair<double, double>> queue;
  std::vector<std::pair<double, double>> used;
  double queue_max = 1;
  const std::vector<Sample>& line = result.timeline;
  size_t i = 0;
  for (int64_t from = 0; from < x_end && i < line.size(); from += width) {
    const int64_t to = from + width;
    // The sample in force at `from`, then those that start inside [from, to).
    while (i + 1 < line.size() && line[i + 1].t <= from) ++i;
    uint32_t longest = 0;
    double busy_area = 0;
    for (size_t k = i; k < line.size() && line[k].t < to; ++k) {
      const int64_t begin = std::max(from, line[k].t);
      const int64_t end = k + 1 < line.size() ? std::min(to, line[k + 1].t) : to;
      longest = std::max(longest, line[k].pending);
      busy_area += static_cast<double>(line[k].busy_cpus) * static_cast<double>(end - begin);
    }
    queue.emplace_back(static_cast<double>(from), static_cast<double>(longest));
    queue_max = std::max(queue_max, static_cast<double>(longest));
    used.emplace_back(static_cast<double>(from), result.total_cpus == 0
                                                     ? 0.0
                                                     : 100.0 * busy_area /
                                                           (static_cast<double>(result.total_cpus) *
                                                            static_cast<double>(width)));
  }
  html += LinePlot("Jobs waiting (the most in each stretch of " + Duration(width) + ")", queue,
                   queue_max, "jobs", x_end);
  html += LinePlot("Utilization (mean over each stretch)", used, 100, "% CPUs", x_end);
  // Waits in buckets that double: under a minute, 1-2 min, 2-4 min...
  std::vector<uint64_t> buckets;
  buckets.push_back(0);
  for (const JobOutcome& job : result.jobs) {
    if (job.start < 0) continue;
    const int64_t wait = job.start - job.submit;
    size_t b = 0;
    for (int64_t edge = 60; wait >= edge; edge *= 2) ++b;
    if (b >= buckets.size()) buckets.resize(b + 1, 0);
    ++buckets[b];
  }
  html += "<h2>Waits</h2>\n<table><tr><th>wait</th><th>jobs</th><th></th></tr>\n";
  uint64_t most = 1;
  for (uint64_t count : buckets) most = std::max(most, count);
  for (size_t b = 0; b < buckets.size(); ++b) {
    const int64_t low = b == 0 ? 0 : int64_t{60} << (b - 1);
    const int64_t high = int64_t{60} << b;
    const std::string label =
        b == 0 ? "under " + Duration(high) : Duration(low) + " to " + Duration(high);
    html += "<tr><td>" + EscapeHtml(label) + "</td><td>" + std::to_string(buckets[b]) +
            "</td><td style=\"text-align:left\"><svg width=\"300\" height=\"12\"><rect width=\"" +
            Fixed(300.0 * static_cast<double>(buckets[b]) / static_cast<double>(most), 1) +
            "\" height=\"12\" fill=\"#2060c0\"/></svg></td></tr>\n";
  }
  html +=
      "</table>\n<h2>Accounts</h2>\n<table><tr><th>account</th><th>jobs</th><th>CPU hours</th>"
      "<th>usage share</th><th>fair-share target</th></tr>\n";
  for (const AccountUsage& a : s.accounts) {
    html += "<tr><td>" + EscapeHtml(a.account) + "</td><td>" + std::to_string(a.jobs) +
            "</td><td>" + Fixed(a.cpu_seconds / 3600, 1) + "</td><td>" +
            Fixed(100 * a.usage_share, 2) + " %</td><td>" + Fixed(100 * a.target_share, 2) +
            " %</td></tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

}  // namespace gantry::sim
