#include "slurm/squeue_sort.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>

#include "model/job_state.h"
#include "slurm/job_view.h"

namespace gantry::slurm {
namespace {

// Jobs without an expected start sort after every job with one, as in the reference
// (squeue --start lists the BeginTime job first).
UnixTime StartKey(const v1::Job& job, UnixTime now) {
  if (job.start_time() == 0) return std::numeric_limits<UnixTime>::max();
  if (IsPendingJob(job) && job.start_time() < now) return now;
  return job.start_time();
}

}  // namespace

std::optional<JobSorter::Key> JobSorter::KeyFor(char letter) {
  using Job = v1::Job;
  // A text the job holds, or one made into `scratch`.
  auto by_text = [](auto get) {
    Key key;
    key.text = [get](const Job& j, std::string* scratch) -> std::string_view {
      if constexpr (std::is_same_v<decltype(get(j)), std::string>) {
        *scratch = get(j);
        return *scratch;
      } else {
        return get(j);
      }
    };
    return key;
  };
  auto by_number = [](auto get) {
    Key key;
    key.number = [get](const Job& j, UnixTime now) { return static_cast<int64_t>(get(j, now)); };
    return key;
  };
  switch (letter) {
    case 'a':
      return by_text([](const Job& j) -> const std::string& { return j.request().account(); });
    case 'i':  // an array task sorts by its array's id, then its task id
      return by_number([](const Job& j, UnixTime) {
        const uint32_t task = j.has_array_task_id() ? j.array_task_id() : uint32_t{0xFFFFFFFE};
        return (static_cast<int64_t>(ArrayJobIdOf(j)) << 32) | task;
      });
    case 'A':
      return by_number([](const Job& j, UnixTime) { return j.job_id(); });
    case 'j':
      return by_text([](const Job& j) -> const std::string& { return j.request().name(); });
    case 'P':
      return by_text([](const Job& j) -> const std::string& { return j.partition(); });
    case 'q':
      return by_text([](const Job& j) -> const std::string& { return j.request().qos(); });
    case 't':
      return by_text([](const Job& j) { return model::JobStateCode(StateOf(j)); });
    case 'T':
      return by_text([](const Job& j) { return model::JobStateName(StateOf(j)); });
    case 'p':
    case 'Q':
      return by_number([](const Job& j, UnixTime) { return j.priority(); });
    case 'u':
      return by_text([](const Job& j) { return UserLabel(j); });
    case 'U':
      return by_number([](const Job& j, UnixTime) { return j.user_id(); });
    case 'M':
      return by_number([](const Job& j, UnixTime now) { return TimeUsed(j, now); });
    case 'l':
      return by_number([](const Job& j, UnixTime) { return j.time_limit_min(); });
    case 'L':
      return by_number([](const Job& j, UnixTime now) -> int64_t {
        if (j.time_limit_min() == kInfiniteMinutes || j.time_limit_min() == 0) {
          return kInfiniteMinutes;
        }
        return static_cast<int64_t>(j.time_limit_min()) * 60 - TimeUsed(j, now);
      });
    case 'D':
      return by_number([](const Job& j, UnixTime) { return NodeCount(j); });
    case 'C':
      return by_number([](const Job& j, UnixTime) { return CpuCount(j); });
    case 'N':
      return by_text([](const Job& j) { return NodeList(j); });
    case 'S':
      return by_number([](const Job& j, UnixTime now) { return StartKey(j, now); });
    case 'V':
      return by_number([](const Job& j, UnixTime) { return j.submit_time(); });
    case 'e':
      return by_number([](const Job& j, UnixTime) { return j.end_time(); });
    case 'B':
      return by_text([](const Job& j) {
        return j.nodes().empty() ? std::string_view() : std::string_view{j.nodes(0)};
      });
    case 'g':
      return by_text([](const Job& j) { return GroupLabel(j); });
    case 'G':
      return by_number([](const Job& j, UnixTime) { return j.group_id(); });
    case 'm':
      return by_number([](const Job& j, UnixTime) {
        return std::max(j.request().mem_per_cpu_mb(), j.request().mem_per_node_mb());
      });
    default:
      return std::nullopt;
  }
}

Result<JobSorter> JobSorter::Create(std::string_view sort) {
  // The spec's keys in order, then the expected start (latest first): what squeue's stable
  // passes from the last key to the first amount to.
  JobSorter sorter;
  for (size_t i = 0; i < sort.size(); ++i) {
    const char c = sort[i];
    if (c == ',' || c == '+' || c == '-') continue;
    if (std::string_view("bcdfhnOvzHIJ").find(c) != std::string_view::npos) continue;
    std::optional<Key> key = KeyFor(c);
    if (!key) return InvalidArgument("Invalid sort specification: " + std::string(1, c));
    key->reversed = i > 0 && sort[i - 1] == '-';
    sorter.keys_.push_back(std::move(*key));
  }
  sorter.keys_.push_back(*KeyFor('S'));
  sorter.keys_.back().reversed = true;
  return sorter;
}

void JobSorter::Add(const v1::Job& job, UnixTime now) {
  for (Key& key : keys_) {
    if (key.number) {
      flat_.push_back(key.number(job, now));
      continue;
    }
    const std::string_view text = key.text(job, &key.scratch);
    if (!key.last_id || text != key.last_text) {  // neighbours often share the text
      auto it = key.ids.find(text);
      if (it == key.ids.end()) {
        it = key.ids.emplace(std::string(text), static_cast<int64_t>(key.ids.size())).first;
      }
      key.last_text = text;
      key.last_id = it->second;
    }
    flat_.push_back(*key.last_id);
  }
  ++rows_;
}

void JobSorter::Append(JobSorter&& next) {
  const size_t width = keys_.size();
  // Each of next's text ids in this sorter's numbering.
  std::vector<std::vector<int64_t>> ids(width);
  for (size_t k = 0; k < width; ++k) {
    if (keys_[k].number) continue;
    ids[k].resize(next.keys_[k].ids.size());
    for (auto& [text, id] : next.keys_[k].ids) {
      const auto mine = static_cast<int64_t>(keys_[k].ids.size());
      ids[k][static_cast<size_t>(id)] = keys_[k].ids.emplace(text, mine).first->second;
    }
    keys_[k].last_id.reset();
  }
  flat_.reserve(flat_.size() + next.flat_.size());
  for (size_t i = 0; i < next.flat_.size(); ++i) {
    const size_t k = i % width;
    flat_.push_back(keys_[k].number ? next.flat_[i] : ids[k][static_cast<size_t>(next.flat_[i])]);
  }
  rows_ += next.rows_;
}

std::vector<uint32_t> JobSorter::Order(std::span<const uint64_t> ties) const {
  // Texts become their rank among the column's values and reversed keys change sign: then one
  // stable sort compares integers only.
  const size_t width = keys_.size();
  std::vector<int64_t> flat = flat_;
  for (size_t k = 0; k < width; ++k) {
    const Key& key = keys_[k];
    std::vector<int64_t> rank_of_id(key.ids.size());
    int64_t rank = 0;
    for (const auto& [text, id] : key.ids) rank_of_id[id] = rank++;  // the map is in text order
    const int64_t sign = key.reversed ? -1 : 1;
    for (size_t row = 0; row < rows_; ++row) {
      int64_t& value = flat[row * width + k];
      if (!key.number) value = rank_of_id[value];
      value *= sign;
    }
  }
  std::vector<uint32_t> order(rows_);
  for (size_t i = 0; i < rows_; ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const int64_t* fa = flat.data() + a * width;
    const int64_t* fb = flat.data() + b * width;
    for (size_t i = 0; i < width; ++i) {
      if (fa[i] != fb[i]) return fa[i] < fb[i];
    }
    return !ties.empty() && ties[a] < ties[b];
  });
  return order;
}

ListedRecord ListedRecordOf(const v1::Job& job) {
  return {job.job_id(), job.array_job_id(),
          job.has_array_task_id() && job.job_id() != job.array_job_id()};
}

std::vector<uint64_t> SlurmctldListKeys(std::span<const ListedRecord> all,
                                        std::span<const ListedRecord> rows) {
  std::map<uint32_t, std::vector<uint32_t>> splits;  // array id -> its split tasks' ids
  for (const ListedRecord& r : all) {
    if (r.split_task) splits[r.array_job_id].push_back(r.job_id);
  }
  for (auto& [array, ids] : splits) std::sort(ids.begin(), ids.end());
  // The id the record was created after, and whether it came after (1) or at (0) that id.
  auto key = [&splits](const ListedRecord& r) -> uint64_t {
    auto pack = [](uint32_t id, int after) { return (uint64_t{id} << 1) | after; };
    if (r.array_job_id == 0) return pack(r.job_id, 0);
    const auto it = splits.find(r.array_job_id);
    if (it == splits.end()) return pack(r.array_job_id, 0);
    const std::vector<uint32_t>& ids = it->second;
    if (r.job_id == r.array_job_id) return pack(ids.back(), 1);
    const auto self = std::lower_bound(ids.begin(), ids.end(), r.job_id);
    if (self == ids.begin()) return pack(r.array_job_id, 0);
    return pack(*(self - 1), 1);
  };
  std::vector<uint64_t> keys;
  keys.reserve(rows.size());
  for (const ListedRecord& r : rows) keys.push_back(key(r));
  return keys;
}

void SortAsSlurmctldLists(std::vector<const v1::Job*>* jobs) {
  std::vector<ListedRecord> records;
  records.reserve(jobs->size());
  for (const v1::Job* job : *jobs) records.push_back(ListedRecordOf(*job));
  const std::vector<uint64_t> keys = SlurmctldListKeys(records, records);
  std::vector<uint32_t> order(jobs->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&keys](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  const std::vector<const v1::Job*> before = *jobs;
  for (size_t i = 0; i < order.size(); ++i) (*jobs)[i] = before[order[i]];
}

Status SortJobs(std::vector<const v1::Job*>* jobs, std::string_view sort, UnixTime now) {
  GANTRY_ASSIGN_OR_RETURN(JobSorter sorter, JobSorter::Create(sort));
  for (const v1::Job* job : *jobs) sorter.Add(*job, now);
  const std::vector<uint32_t> order = sorter.Order();
  const std::vector<const v1::Job*> before = *jobs;
  for (size_t i = 0; i < order.size(); ++i) (*jobs)[i] = before[order[i]];
  return Status::Ok();
}

}  // namespace gantry::slurm
