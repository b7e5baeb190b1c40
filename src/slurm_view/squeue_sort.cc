#include "slurm_view/squeue_sort.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "model/job_state.h"
#include "slurm_view/job_view.h"

namespace gantry::slurm {
namespace {

// Jobs without an expected start sort after every job with one, as in the reference
// (squeue --start lists the BeginTime job first).
UnixTime StartKey(const v1::Job& job, UnixTime now, UnixTime* stale_at) {
  const UnixTime start = StartTimeOf(job);
  if (start == 0) return std::numeric_limits<UnixTime>::max();
  if (!IsPendingJob(job)) return start;
  // A start that has passed sorts as now.
  LowerStaleAt(std::max(start, now) + 1, stale_at);
  return std::max(start, now);
}

}  // namespace

std::optional<JobSorter::Key> JobSorter::KeyFor(char letter) {
  using Job = v1::Job;
  // Plain functions (no std::function): a listing calls them once per key and job.
  auto by_text = [](TextFn get) {
    Key key;
    key.text = get;
    return key;
  };
  auto by_number = [](NumberFn get) {
    Key key;
    key.number = get;
    return key;
  };
  using Text = std::string_view;
  switch (letter) {
    case 'a':
      return by_text([](const Job& j, std::string*) -> Text { return j.request().account(); });
    case 'i':  // an array task sorts by its array's id, then its task id
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t {
        const uint32_t task = j.has_array_task_id() ? j.array_task_id() : uint32_t{0xFFFFFFFE};
        return (static_cast<int64_t>(ArrayJobIdOf(j)) << 32) | task;
      });
    case 'A':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.job_id(); });
    case 'j':
      return by_text([](const Job& j, std::string*) -> Text { return j.request().name(); });
    case 'P':
      return by_text([](const Job& j, std::string*) -> Text { return j.partition(); });
    case 'q':
      return by_text([](const Job& j, std::string*) -> Text { return j.request().qos(); });
    case 't':
      return by_text(
          [](const Job& j, std::string*) -> Text { return model::JobStateCode(StateOf(j)); });
    case 'T':
      return by_text(
          [](const Job& j, std::string*) -> Text { return model::JobStateName(StateOf(j)); });
    case 'p':
    case 'Q':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.priority(); });
    case 'u':
      return by_text([](const Job& j, std::string* s) -> Text {
        if (!j.user_name().empty()) return j.user_name();
        return *s = std::to_string(j.user_id());
      });
    case 'U':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.user_id(); });
    case 'M':
      return by_number([](const Job& j, UnixTime now, UnixTime* stale_at) -> int64_t {
        return TimeUsed(j, now, stale_at);
      });
    case 'l':
      return by_number(
          [](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.time_limit_min(); });
    case 'L':
      return by_number([](const Job& j, UnixTime now, UnixTime* stale_at) -> int64_t {
        if (j.time_limit_min() == kInfiniteMinutes || j.time_limit_min() == 0) {
          return kInfiniteMinutes;
        }
        return static_cast<int64_t>(j.time_limit_min()) * 60 - TimeUsed(j, now, stale_at);
      });
    case 'D':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return NodeCount(j); });
    case 'C':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return CpuCount(j); });
    case 'N':
      return by_text([](const Job& j, std::string* s) -> Text { return *s = NodeList(j); });
    case 'S':
      return by_number([](const Job& j, UnixTime now, UnixTime* stale_at) -> int64_t {
        return StartKey(j, now, stale_at);
      });
    case 'V':
      return by_number(
          [](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.submit_time(); });
    case 'e':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.end_time(); });
    case 'B':
      return by_text([](const Job& j, std::string*) -> Text {
        return j.nodes().empty() ? std::string_view() : std::string_view{j.nodes(0)};
      });
    case 'g':
      return by_text([](const Job& j, std::string* s) -> Text { return *s = GroupLabel(j); });
    case 'G':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t { return j.group_id(); });
    case 'm':
      return by_number([](const Job& j, UnixTime, UnixTime*) -> int64_t {
        return static_cast<int64_t>(
            std::max(j.request().mem_per_cpu_mb(), j.request().mem_per_node_mb()));
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

model::JobRecordForm JobSorter::RecordForm(std::string_view sort) {
  if (sort.find('g') != std::string_view::npos) return model::JobRecordForm::kFull;
  for (char c : sort) {
    if (std::string_view("aqCGm").find(c) != std::string_view::npos) {
      return model::JobRecordForm::kBrief;
    }
  }
  return model::JobRecordForm::kSlim;
}

void JobSorter::Add(const v1::Job& job, UnixTime now, UnixTime* stale_at) {
  for (Key& key : keys_) {
    if (key.number) {
      flat_.push_back(key.number(job, now, stale_at));
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

std::vector<uint32_t> JobSorter::Order() const {
  const JobSorter* self = this;
  std::vector<uint32_t> order;
  order.reserve(rows_);
  for (const ListingRow& r : OrderParts(std::span(&self, 1), {})) order.push_back(r.row);
  return order;
}

std::vector<ListingRow> JobSorter::OrderParts(std::span<const JobSorter* const> parts,
                                              std::span<const std::span<const uint64_t>> ties) {
  if (parts.empty()) return {};
  const size_t width = parts[0]->keys_.size();
  // Texts become their rank among every part's values of the column and reversed keys change
  // sign: then sorting compares integers only. rank[part][key][text id].
  std::vector<std::vector<std::vector<int64_t>>> rank(parts.size(),
                                                      std::vector<std::vector<int64_t>>(width));
  for (size_t k = 0; k < width; ++k) {
    if (parts[0]->keys_[k].number) continue;
    std::map<std::string_view, int64_t> texts;
    for (const JobSorter* part : parts) {
      for (const auto& entry : part->keys_[k].ids) texts.emplace(entry.first, 0);
    }
    int64_t next = 0;
    for (auto& entry : texts) entry.second = next++;  // the map is in text order
    for (size_t p = 0; p < parts.size(); ++p) {
      std::vector<int64_t>& ranks = rank[p][k];
      ranks.resize(parts[p]->keys_[k].ids.size());
      for (const auto& [text, id] : parts[p]->keys_[k].ids) ranks[id] = texts.find(text)->second;
    }
  }
  // Every row of every part, numbered in part order: its values, then its tie.
  const size_t stride = width + 1;
  std::vector<ListingRow> rows;
  for (const JobSorter* part : parts) rows.reserve(rows.size() + part->rows_);
  std::vector<int64_t> values;
  values.reserve(rows.capacity() * stride);
  for (size_t p = 0; p < parts.size(); ++p) {
    const JobSorter& part = *parts[p];
    for (size_t row = 0; row < part.rows_; ++row) {
      for (size_t k = 0; k < width; ++k) {
        const Key& key = part.keys_[k];
        int64_t value = part.flat_[row * width + k];
        if (!key.number) value = rank[p][k][static_cast<size_t>(value)];
        values.push_back(key.reversed ? -value : value);
      }
      values.push_back(ties.empty() ? 0 : static_cast<int64_t>(ties[p][row]));
      rows.push_back(ListingRow{static_cast<uint32_t>(p), static_cast<uint32_t>(row)});
    }
  }
  std::vector<uint32_t> index(rows.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
  // Keys, then the tie, then the number: a total order, so no stable sort is needed. A listing
  // already in order (a queue of equal priorities, say) is only checked.
  auto less = [&values, stride](uint32_t a, uint32_t b) {
    const int64_t* fa = values.data() + size_t{a} * stride;
    const int64_t* fb = values.data() + size_t{b} * stride;
    for (size_t i = 0; i < stride; ++i) {
      if (fa[i] != fb[i]) return fa[i] < fb[i];
    }
    return a < b;
  };
  if (!std::is_sorted(index.begin(), index.end(), less)) {
    std::sort(index.begin(), index.end(), less);
  }
  std::vector<ListingRow> order;
  order.reserve(index.size());
  for (uint32_t i : index) order.push_back(rows[i]);
  return order;
}

ListedRecord ListedRecordOf(const v1::Job& job) {
  return {job.job_id(), job.array_job_id(),
          job.has_array_task_id() && job.job_id() != job.array_job_id()};
}

SlurmctldListOrder::SlurmctldListOrder(std::span<const std::span<const ListedRecord>> records) {
  for (std::span<const ListedRecord> some : records) {
    for (const ListedRecord& r : some) {
      if (r.split_task) splits_[r.array_job_id].push_back(r.job_id);
    }
  }
  for (auto& entry : splits_) std::sort(entry.second.begin(), entry.second.end());
}

// The id the record was created after, and whether it came after (1) or at (0) that id.
uint64_t SlurmctldListOrder::KeyOf(const ListedRecord& r) const {
  auto pack = [](uint32_t id, int after) { return (uint64_t{id} << 1) | after; };
  if (r.array_job_id == 0) return pack(r.job_id, 0);
  const auto it = splits_.find(r.array_job_id);
  if (it == splits_.end()) return pack(r.array_job_id, 0);
  const std::vector<uint32_t>& ids = it->second;
  if (r.job_id == r.array_job_id) return pack(ids.back(), 1);
  const auto self = std::lower_bound(ids.begin(), ids.end(), r.job_id);
  if (self == ids.begin()) return pack(r.array_job_id, 0);
  return pack(*(self - 1), 1);
}

void SortAsSlurmctldLists(std::vector<const v1::Job*>* jobs) {
  std::vector<ListedRecord> records;
  records.reserve(jobs->size());
  for (const v1::Job* job : *jobs) records.push_back(ListedRecordOf(*job));
  const std::span<const ListedRecord> all(records);
  const SlurmctldListOrder list_order(std::span(&all, 1));
  std::vector<uint64_t> keys;
  keys.reserve(records.size());
  for (const ListedRecord& r : records) keys.push_back(list_order.KeyOf(r));
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
