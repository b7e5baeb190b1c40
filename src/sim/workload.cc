#include "sim/workload.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "text/array_spec.h"

namespace gantry::sim {
namespace {

// "Queue: N name" header lines: queue number -> name.
std::map<int64_t, std::string> QueueNames(const SwfTrace& trace) {
  std::map<int64_t, std::string> names;
  for (const auto& [key, value] : trace.header) {
    if (key != "Queue") continue;
    std::istringstream in(value);
    int64_t number = 0;
    std::string name;
    if (in >> number >> name) names.emplace(number, name);
  }
  return names;
}

}  // namespace

bool operator==(const WorkloadJob& a, const WorkloadJob& b) {
  auto fields = [](const WorkloadJob& j) {
    return std::tie(j.id, j.submit_s, j.run_s, j.time_limit_s, j.nodes, j.cpus, j.user, j.account,
                    j.partition, j.qos, j.array, j.exclusive, j.after, j.after_delay_s, j.uid,
                    j.task_run_s, j.preempted_runs, j.task_preempted_runs, j.submit_order,
                    j.end_order, j.task_end_order, j.releases, j.task_releases, j.task_job_ids);
  };
  if (fields(a) != fields(b) || a.request.has_value() != b.request.has_value()) return false;
  return !a.request || a.request->SerializeAsString() == b.request->SerializeAsString();
}

Result<Workload> WorkloadFromSwf(const SwfTrace& trace, const SwfConversion& conversion) {
  if (conversion.cpus_per_node == 0) {
    return InvalidArgument("cpus per node: 0: must be 1 or more");
  }
  const std::map<int64_t, std::string> queues = QueueNames(trace);
  Workload workload;
  std::set<uint64_t> held;  // jobs already in the workload
  const int64_t start = trace.jobs.empty() ? 0 : trace.jobs.front().submit_s;
  for (const SwfJob& line : trace.jobs) {
    const std::string what = "job " + std::to_string(line.job_number) + ": ";
    if (line.run_s < 0 || (line.run_s == 0 && line.status == 5)) {
      ++workload.never_ran;
      continue;
    }
    const int64_t cpus = line.requested_procs >= 1 ? line.requested_procs : line.allocated_procs;
    if (cpus < 1) {
      return InvalidArgument(what +
                             "field 8 (requested processors) and field 5 (allocated processors): "
                             "neither is known; a job needs at least one");
    }
    if (cpus > UINT32_MAX) {
      return InvalidArgument(what + "field 8 (requested processors): " + std::to_string(cpus) +
                             ": more than a job may ask for");
    }
    WorkloadJob job;
    job.id = static_cast<uint64_t>(line.job_number);
    job.submit_s = line.submit_s - start;
    job.run_s = line.run_s;
    job.time_limit_s = std::max(line.requested_time_s, line.run_s);
    job.cpus = static_cast<uint32_t>(cpus);
    job.nodes =
        static_cast<uint32_t>((cpus + conversion.cpus_per_node - 1) / conversion.cpus_per_node);
    job.exclusive = conversion.whole_nodes;
    job.user = line.user >= 0 ? "u" + std::to_string(line.user) : "unknown";
    job.account = line.group >= 0 ? "g" + std::to_string(line.group) : "unknown";
    if (line.queue >= 0) {
      auto named = queues.find(line.queue);
      job.partition = named != queues.end() ? named->second : "q" + std::to_string(line.queue);
    }
    if (line.preceding_job >= 1) {
      if (held.count(static_cast<uint64_t>(line.preceding_job)) != 0) {
        job.after = static_cast<uint64_t>(line.preceding_job);
        job.after_delay_s = std::max<int64_t>(line.think_time_s, 0);
      } else {
        ++workload.dropped_dependencies;
      }
    }
    held.insert(job.id);
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

}  // namespace gantry::sim

namespace gantry::sim {
namespace {

using Json = nlohmann::json;

// A whole number in `value` at least `min`; `out` untouched and an error otherwise.
Status ReadInteger(const Json& value, const std::string& where, int64_t min, int64_t* out) {
  if (!value.is_number_integer()) {
    return InvalidArgument(where + ": " + value.dump() + ": not a whole number");
  }
  const int64_t number = value.get<int64_t>();
  if (number < min || (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX)) {
    return InvalidArgument(where + ": " + value.dump() + ": must be " + std::to_string(min) +
                           " or more");
  }
  *out = number;
  return Status::Ok();
}

Status ReadString(const Json& value, const std::string& where, std::string* out) {
  if (!value.is_string()) return InvalidArgument(where + ": " + value.dump() + ": not a string");
  *out = value.get<std::string>();
  return Status::Ok();
}

}  // namespace

Result<Workload> ParseWorkloadJson(std::string_view text, std::string_view name) {
  const std::string file(name);
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for 1e400
    return InvalidArgument(file + ": not JSON: " + e.what());
  }
  if (!root.is_object()) return InvalidArgument(file + ": not a JSON object with \"jobs\"");
  for (const auto& [key, value] : root.items()) {
    if (key != "jobs") return InvalidArgument(file + ": " + key + ": unknown key (only \"jobs\")");
  }
  if (!root.contains("jobs") || !root["jobs"].is_array()) {
    return InvalidArgument(file + ": jobs: a list of jobs is required");
  }
  Workload workload;
  std::map<uint64_t, size_t> index_of;  // job id -> its position in the file
  const Json& jobs = root["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string where = file + ": jobs[" + std::to_string(i) + "]";
    const Json& entry = jobs[i];
    if (!entry.is_object()) return InvalidArgument(where + ": not a JSON object");
    WorkloadJob job;
    int64_t id = static_cast<int64_t>(i) + 1;
    int64_t nodes = 1;
    int64_t cpus = -1;
    int64_t time_limit = -1;
    int64_t after = -1;
    bool has_submit = false;
    bool has_run = false;
    for (const auto& [key, value] : entry.items()) {
      const std::string at = where + "." + key;
      Status read = Status::Ok();
      if (key == "id") {
        read = ReadInteger(value, at, 1, &id);
      } else if (key == "submit") {
        read = ReadInteger(value, at, 0, &job.submit_s);
        has_submit = true;
      } else if (key == "run") {
        read = ReadInteger(value, at, 0, &job.run_s);
        has_run = true;
      } else if (key == "time_limit") {
        read = ReadInteger(value, at, 1, &time_limit);
      } else if (key == "nodes") {
        read = ReadInteger(value, at, 1, &nodes);
      } else if (key == "cpus") {
        read = ReadInteger(value, at, 1, &cpus);
      } else if (key == "user") {
        read = ReadString(value, at, &job.user);
      } else if (key == "account") {
        read = ReadString(value, at, &job.account);
      } else if (key == "partition") {
        read = ReadString(value, at, &job.partition);
      } else if (key == "qos") {
        read = ReadString(value, at, &job.qos);
      } else if (key == "array") {
        read = ReadString(value, at, &job.array);
        if (read.ok()) {
          Result<text::ArraySpec> spec = text::ParseArraySpec(job.array, text::kMaxArraySizeLimit);
          if (!spec.ok())
            read = InvalidArgument(at + ": \"" + job.array + "\": " + spec.status().message());
        }
      } else if (key == "exclusive") {
        if (value.is_boolean()) {
          job.exclusive = value.get<bool>();
        } else {
          read = InvalidArgument(at + ": " + value.dump() + ": not true or false");
        }
      } else if (key == "after") {
        read = ReadInteger(value, at, 1, &after);
      } else if (key == "after_delay") {
        read = ReadInteger(value, at, 0, &job.after_delay_s);
      } else {
        read = InvalidArgument(at +
                               ": unknown key (id, submit, run, time_limit, nodes, cpus, user, "
                               "account, partition, qos, array, exclusive, after, after_delay)");
      }
      GANTRY_RETURN_IF_ERROR(read);
    }
    if (!has_submit) return InvalidArgument(where + ".submit: required");
    if (!has_run) return InvalidArgument(where + ".run: required");
    if (job.user.empty()) return InvalidArgument(where + ".user: required (a user name)");
    if (nodes > UINT32_MAX || cpus > UINT32_MAX) {
      return InvalidArgument(where + ": more nodes or CPUs than a job may ask for");
    }
    if (cpus >= 0 && cpus < nodes) {
      return InvalidArgument(where + ".cpus: " + std::to_string(cpus) + ": fewer than its nodes (" +
                             std::to_string(nodes) + ")");
    }
    job.id = static_cast<uint64_t>(id);
    job.nodes = static_cast<uint32_t>(nodes);
    job.cpus = static_cast<uint32_t>(cpus >= 0 ? cpus : nodes);
    job.time_limit_s = time_limit >= 0 ? time_limit : std::max<int64_t>(job.run_s, 1);
    if (after >= 1) job.after = static_cast<uint64_t>(after);
    if (auto [it, added] = index_of.emplace(job.id, i); !added) {
      return InvalidArgument(where + ".id: " + std::to_string(job.id) + ": jobs[" +
                             std::to_string(it->second) + "] has it too");
    }
    workload.jobs.push_back(std::move(job));
  }
  // In submit order (ties keep the file's order); a dependency names a job submitted before.
  std::vector<size_t> order(workload.jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return workload.jobs[a].submit_s < workload.jobs[b].submit_s;
  });
  std::set<uint64_t> submitted;
  std::vector<WorkloadJob> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) {
    const WorkloadJob& job = workload.jobs[i];
    if (job.after && submitted.count(*job.after) == 0) {
      const std::string at =
          file + ": jobs[" + std::to_string(i) + "].after: " + std::to_string(*job.after) + ": ";
      if (index_of.count(*job.after) == 0) return InvalidArgument(at + "no job has that id");
      return InvalidArgument(at +
                             "that job is not submitted before this one (a dependency names "
                             "a job that exists)");
    }
    submitted.insert(job.id);
    sorted.push_back(job);
  }
  workload.jobs = std::move(sorted);
  return workload;
}

}  // namespace gantry::sim
