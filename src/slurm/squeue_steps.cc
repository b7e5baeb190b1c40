#include "slurm/squeue_steps.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "model/job_state.h"
#include "slurm/job_view.h"
#include "text/duration.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

constexpr uint32_t kBatchStep = 0xfffffffb;  // Slurm's SLURM_BATCH_SCRIPT: after every srun step

struct StepRow {
  uint32_t job_id = 0;
  uint32_t step_id = 0;
  std::string id;  // "12.0", "12.batch"
  std::string name;
  std::string partition;
  std::string user;
  int64_t seconds = 0;
  std::string nodes;
  uint32_t tasks = 0;
};

struct Column {
  char field = 0;  // 0: literal text
  std::string text;
  int width = 0;  // 0: as long as it is
  bool right = false;
};

Result<std::vector<Column>> ParseColumns(std::string_view format) {
  std::vector<Column> columns;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%' || i + 1 == format.size()) {
      if (columns.empty() || columns.back().field != 0) columns.emplace_back();
      columns.back().text += format[i++];
      continue;
    }
    Column c;
    ++i;
    if (format[i] == '.') {
      c.right = true;
      ++i;
    }
    while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
      c.width = std::min(c.width * 10 + (format[i++] - '0'), 1000);
    }
    if (i == format.size()) break;
    c.field = format[i++];
    if (std::string_view("ijPuMNAb").find(c.field) == std::string_view::npos) {
      return InvalidArgument(std::string("squeue -s has no field %") + c.field +
                             " (it takes %i %j %P %u %M %N %A %b)");
    }
    columns.push_back(c);
  }
  return columns;
}

std::string Title(char field) {
  switch (field) {
    case 'i':
      return "STEPID";
    case 'j':
      return "NAME";
    case 'P':
      return "PARTITION";
    case 'u':
      return "USER";
    case 'M':
      return "TIME";
    case 'N':
      return "NODELIST";
    case 'A':
      return "TASKS";
    default:
      return "TRES_PER_JOB";
  }
}

std::string Value(char field, const StepRow& row) {
  switch (field) {
    case 'i':
      return row.id;
    case 'j':
      return row.name;
    case 'P':
      return row.partition;
    case 'u':
      return row.user;
    case 'M':
      return text::FormatElapsed(row.seconds);
    case 'N':
      return row.nodes;
    case 'A':
      return std::to_string(row.tasks);
    default:
      return "(null)";
  }
}

void Append(const Column& c, const std::string& value, std::string* out) {
  if (c.field == 0) {
    *out += c.text;
    return;
  }
  std::string v = value;
  if (c.width > 0 && static_cast<int>(v.size()) > c.width) v.resize(static_cast<size_t>(c.width));
  const std::string pad(c.width > static_cast<int>(v.size()) ? c.width - v.size() : 0, ' ');
  *out += c.right ? pad + v : v + pad;
}

}  // namespace

Result<std::string> FormatSteps(const std::vector<const v1::Job*>& jobs, const StepListing& listing,
                                UnixTime now) {
  GANTRY_ASSIGN_OR_RETURN(std::vector<Column> columns, ParseColumns(listing.format));
  std::vector<StepRow> rows;
  for (const v1::Job* job : jobs) {
    const model::JobBaseState base = StateOf(*job).base;
    if (base != model::JobBaseState::kRunning && base != model::JobBaseState::kSuspended) continue;
    StepRow common;
    common.job_id = job->job_id();
    common.partition = job->partition();
    common.user = job->user_name().empty() ? std::to_string(job->user_id()) : job->user_name();
    if (job->batch_flag() && job->nodes_size() > 0) {
      StepRow batch = common;
      batch.step_id = kBatchStep;
      batch.id = std::to_string(job->job_id()) + ".batch";
      batch.name = "batch";
      batch.seconds = TimeUsed(*job, now);
      batch.nodes = job->nodes(0);
      batch.tasks = 1;
      rows.push_back(std::move(batch));
    }
    for (const v1::JobStep& step : job->steps()) {
      if (step.end_time() != 0) continue;
      StepRow row = common;
      row.step_id = step.step_id();
      row.id = std::to_string(job->job_id()) + "." + std::to_string(step.step_id());
      row.name = step.name();
      row.seconds = std::max<int64_t>(0, now - step.start_time());
      const std::vector<std::string> nodes(step.nodes().begin(), step.nodes().end());
      row.nodes = nodes.empty() ? step.node() : text::CompressHostlistSorted(nodes);
      row.tasks = step.num_tasks();
      rows.push_back(std::move(row));
    }
  }
  if (!listing.only.empty()) {
    std::erase_if(rows, [&](const StepRow& r) {
      return std::find(listing.only.begin(), listing.only.end(), r.id) == listing.only.end();
    });
  }
  std::sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
    return std::tie(a.job_id, a.step_id) < std::tie(b.job_id, b.step_id);
  });
  std::string out;
  if (listing.header) {
    for (const Column& c : columns) Append(c, Title(c.field), &out);
    out += '\n';
  }
  for (const StepRow& row : rows) {
    for (const Column& c : columns) Append(c, Value(c.field, row), &out);
    out += '\n';
  }
  return out;
}

}  // namespace gantry::slurm
