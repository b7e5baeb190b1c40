#include "metrics/openmetrics.h"

#include <charconv>
#include <cmath>

namespace gantry::metrics {
namespace {

void AppendNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else if (value == std::floor(value) && std::fabs(value) < 9e15) {
    char buffer[24];
    out.append(buffer,
               std::to_chars(buffer, buffer + sizeof(buffer), static_cast<int64_t>(value)).ptr);
  } else {
    char buffer[32];
    out.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
  }
}

void AppendEscaped(std::string& out, std::string_view value) {
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

void MetricsText::Family(std::string_view name, std::string_view type, std::string_view help) {
  family_ = name;
  out_ += "# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += "\n# HELP ";
  out_ += name;
  out_ += ' ';
  AppendEscaped(out_, help);
  out_ += '\n';
}

void MetricsText::Gauge(std::string_view name, std::string_view help) {
  counter_ = false;
  Family(name, "gauge", help);
}

void MetricsText::Counter(std::string_view name, std::string_view help) {
  counter_ = true;
  Family(name, "counter", help);
}

void MetricsText::HistogramFamily(std::string_view name, std::string_view help) {
  counter_ = false;
  Family(name, "histogram", help);
}

void MetricsText::Line(std::string_view suffix, const Labels& labels, std::string_view extra_label,
                       std::string_view extra_value, double value) {
  out_ += family_;
  out_ += suffix;
  if (!labels.empty() || !extra_label.empty()) {
    out_ += '{';
    bool first = true;
    for (const auto& [name, label_value] : labels) {
      if (!first) out_ += ',';
      first = false;
      out_ += name;
      out_ += "=\"";
      AppendEscaped(out_, label_value);
      out_ += '"';
    }
    if (!extra_label.empty()) {
      if (!first) out_ += ',';
      out_ += extra_label;
      out_ += "=\"";
      out_ += extra_value;
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  AppendNumber(out_, value);
  out_ += '\n';
}

void MetricsText::Sample(double value, const Labels& labels) {
  Line(counter_ ? "_total" : "", labels, "", "", value);
}

void MetricsText::Histogram(const HistogramSnapshot& snapshot, const Labels& labels) {
  for (size_t i = 0; i < snapshot.cumulative.size(); ++i) {
    Line("_bucket", labels, "le", i < kLatencyBoundTexts.size() ? kLatencyBoundTexts[i] : "+Inf",
         static_cast<double>(snapshot.cumulative[i]));
  }
  Line("_count", labels, "", "", static_cast<double>(snapshot.cumulative.back()));
  Line("_sum", labels, "", "", snapshot.sum_seconds);
}

std::string MetricsText::Finish() {
  out_ += "# EOF\n";
  return std::move(out_);
}

}  // namespace gantry::metrics
