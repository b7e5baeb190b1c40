#include "slurm/squeue_steps.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <tuple>

#include "model/job_state.h"
#include "slurm_view/format_spec.h"
#include "slurm_view/job_view.h"
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

std::string SqueueStepsValue(char field, const StepRow& row) {
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

// One line: the format's prefix, then each field padded as squeue pads it (times and node
// lists are not cut) and its suffix.
std::string SqueueStepsLine(const FormatSpec& format,
                            const std::function<std::string(char)>& value) {
  std::string out = format.prefix;
  for (const FieldSpec& f : format.fields) {
    out += PadField(value(f.letter), f.width, f.right, f.letter != 'M' && f.letter != 'N');
    out += f.suffix;
  }
  return out + '\n';
}

}  // namespace

Result<std::string> FormatSteps(const std::vector<const v1::Job*>& jobs, const StepListing& listing,
                                UnixTime now) {
  const FormatSpec format = ParseFormatSpec(listing.format);
  for (const FieldSpec& f : format.fields) {
    if (std::string_view("ijPuMNAb").find(f.letter) == std::string_view::npos) {
      return InvalidArgument(std::string("squeue -s has no field %") + f.letter +
                             " (it takes %i %j %P %u %M %N %A %b)");
    }
  }
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
  if (listing.header) out += SqueueStepsLine(format, Title);
  for (const StepRow& row : rows) {
    out += SqueueStepsLine(format, [&row](char field) { return SqueueStepsValue(field, row); });
  }
  return out;
}

}  // namespace gantry::slurm
