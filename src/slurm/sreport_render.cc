#include "slurm/sreport_render.h"

#include <cstdio>
#include <cstdlib>

namespace gantry::slurm {
namespace {

std::string SreportRenderPrintf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string Percent(uint64_t value, uint64_t total) {
  return SreportRenderPrintf("%.2f%%",
                             static_cast<double>(value) / static_cast<double>(total) * 100);
}

}  // namespace

bool IsCombinedTime(SreportTime format) {
  return format == SreportTime::kSecondsPercent || format == SreportTime::kMinutesPercent ||
         format == SreportTime::kHoursPercent;
}

std::string_view SreportTimeName(SreportTime format) {
  switch (format) {
    case SreportTime::kSeconds:
      return "Seconds";
    case SreportTime::kMinutes:
      return "Minutes";
    case SreportTime::kHours:
      return "Hours";
    case SreportTime::kPercent:
      return "Percentage of Total";
    case SreportTime::kSecondsPercent:
      return "Seconds/Percentage of Total";
    case SreportTime::kMinutesPercent:
      return "Minutes/Percentage of Total";
    case SreportTime::kHoursPercent:
      return "Hours/Percentage of Total";
  }
  return "Minutes";
}

std::string FormatUsage(uint64_t value, uint64_t total, SreportTime format) {
  if (total == 0) total = 1;
  const auto v = static_cast<double>(value);
  switch (format) {
    case SreportTime::kSeconds:
      return std::to_string(value);
    case SreportTime::kMinutes:
      return SreportRenderPrintf("%.0f", v / 60);
    case SreportTime::kHours:
      return SreportRenderPrintf("%.0f", v / 3600);
    case SreportTime::kPercent:
      return Percent(value, total);
    case SreportTime::kSecondsPercent:
      return std::to_string(value) + "(" + Percent(value, total) + ")";
    case SreportTime::kMinutesPercent:
      return SreportRenderPrintf("%.0f", v / 60) + "(" + Percent(value, total) + ")";
    case SreportTime::kHoursPercent:
      return SreportRenderPrintf("%.0f", v / 3600) + "(" + Percent(value, total) + ")";
  }
  return std::to_string(value);
}

int UsageColumnWidth(uint64_t max_seconds, SreportTime format) {
  int width = 8;
  for (uint64_t order = 100000000; width < 8 + 17 && max_seconds >= order; order *= 10) {
    ++width;
    if (order > UINT64_MAX / 10) break;
  }
  return IsCombinedTime(format) ? width + 9 : width;
}

std::string SreportTable::Field(const SreportColumn& column, std::string_view text, bool last,
                                bool header) const {
  if (layout_ == SreportLayout::kParsable2 && last) return std::string(text);
  if (layout_ != SreportLayout::kTable) return std::string(text) + "|";
  const auto width = static_cast<size_t>(std::abs(column.width));
  std::string cell(text.substr(0, width));
  if (!header && column.kind == CellKind::kText && text.size() > width && width > 0) {
    cell.back() = '+';
  }
  const std::string pad(width - cell.size(), ' ');
  return (column.width < 0 ? cell + pad : pad + cell) + " ";
}

std::string SreportTable::Header() const {
  std::string out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    out += Field(columns_[i], columns_[i].name, i + 1 == columns_.size(), true);
  }
  out += "\n";
  if (layout_ != SreportLayout::kTable) return out;
  for (const SreportColumn& c : columns_) {
    out += std::string(static_cast<size_t>(std::abs(c.width)), '-') + " ";
  }
  out += "\n";
  return out;
}

std::string SreportTable::Row(const std::vector<std::string>& cells) const {
  std::string out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    out += Field(columns_[i], i < cells.size() ? cells[i] : std::string(), i + 1 == columns_.size(),
                 false);
  }
  out += "\n";
  return out;
}

std::string SreportBanner(const std::vector<std::string>& lines) {
  const std::string dashes(80, '-');
  std::string out = dashes + "\n";
  for (const std::string& line : lines) out += line + "\n";
  out += dashes + "\n";
  return out;
}

}  // namespace gantry::slurm
