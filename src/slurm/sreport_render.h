// How sreport prints, as Slurm 22.05's sreport does it (its print_fields layer and its usage
// values): a report is a banner (a title between dashed lines), a column header and one line per
// row, or the same with '|' between fields for -p/-P.
//
//  * Table layout: each cell is printed in its column's width followed by one space, right
//    aligned (left aligned for negative widths) and cut to the width. Text cells that are cut end
//    in '+' ("rese+"); numbers are cut plainly (sreport sizes number columns so this does not
//    happen). The header is the column names cut likewise, then a line of dashes per column.
//  * -p: every field followed by '|'; -P: '|' between fields only. No dashes line, nothing cut.
//  * Usage values (CPU seconds) print as seconds, minutes or hours rounded to the nearest whole
//    number ("%.0f", ties to even), as a percentage of a total with two decimals ("0.31%"), or as
//    both ("8(0.31%)"); a total of 0 counts as 1.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SREPORT_RENDER_H_
#define GANTRY_SLURM_SREPORT_RENDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::slurm {

enum class SreportLayout { kTable, kParsable, kParsable2 };

// -t: the unit of usage values.
enum class SreportTime {
  kSeconds,
  kMinutes,
  kHours,
  kPercent,
  kSecondsPercent,  // SecPer
  kMinutesPercent,  // MinPer
  kHoursPercent,    // HourPer
};

// True for the "N(P%)" forms (SecPer, MinPer, HourPer), whose columns are 9 wider.
bool IsCombinedTime(SreportTime format);

// The unit's name in banners: "Minutes", "Percentage of Total", "Hours/Percentage of Total"...
std::string_view SreportTimeName(SreportTime format);

// A usage value in the unit (slurmdb_report_print_time's text).
std::string FormatUsage(uint64_t value, uint64_t total, SreportTime format);

// The width sreport gives a usage column whose largest value (in seconds, whatever the unit) is
// `max_seconds`: 8, one more per digit beyond eight, 9 more for the combined forms.
int UsageColumnWidth(uint64_t max_seconds, SreportTime format);

enum class CellKind {
  kText,    // cut with a '+' mark
  kNumber,  // cut plainly
};

struct SreportColumn {
  std::string name;
  int width = 0;  // negative: left aligned
  CellKind kind = CellKind::kText;
};

// Lines of one report. Rows must have one cell per column.
class SreportTable {
 public:
  SreportTable(std::vector<SreportColumn> columns, SreportLayout layout)
      : columns_(std::move(columns)), layout_(layout) {}

  const std::vector<SreportColumn>& columns() const { return columns_; }
  // The column names, then (table layout) the dashes; each line ends in '\n'.
  std::string Header() const;
  // One row; ends in '\n'.
  std::string Row(const std::vector<std::string>& cells) const;

 private:
  std::string Field(const SreportColumn& column, std::string_view text, bool last,
                    bool header) const;

  std::vector<SreportColumn> columns_;
  SreportLayout layout_;
};

// The banner above a report: a line of 80 dashes, each of `lines`, 80 dashes again.
std::string SreportBanner(const std::vector<std::string>& lines);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SREPORT_RENDER_H_
