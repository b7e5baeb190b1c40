#include "sched/scheduler.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "sched/assoc_limits.h"
#include "state/records.h"
#include "state/resources.h"
#include "text/ascii.h"
#include "text/dependency.h"
#include "text/hostlist.h"

namespace gantry::sched {
namespace {

using model::NodeBaseState;
using model::NodeFlag;
using state::ClusterState;
using state::kUnlimited;
using state::NodeCapacity;
using state::NodeRequest;

constexpr char kResources[] = "Resources";
constexpr char kPriority[] = "Priority";

// Flags that keep a node from taking new work.
constexpr uint32_t kUnusableFlags =
    static_cast<uint32_t>(NodeFlag::kDrain) | static_cast<uint32_t>(NodeFlag::kFail) |
    static_cast<uint32_t>(NodeFlag::kNoRespond) | static_cast<uint32_t>(NodeFlag::kMaint) |
    static_cast<uint32_t>(NodeFlag::kRebootRequested) |
    static_cast<uint32_t>(NodeFlag::kRebootIssued) | static_cast<uint32_t>(NodeFlag::kPoweredDown) |
    static_cast<uint32_t>(NodeFlag::kPoweringDown) | static_cast<uint32_t>(NodeFlag::kPowerDown) |
    static_cast<uint32_t>(NodeFlag::kPoweringUp) | static_cast<uint32_t>(NodeFlag::kInvalidReg);

// Where a node stands during the pass.
enum class Slot : uint8_t {
  kFree,      // may be allocated
  kBusy,      // up, but has jobs or is completing
  kDown,      // down, drained, failed, not responding...
  kTaken,     // allocated by this pass
  kReserved,  // kept free for a job blocked earlier in this pass
};

}  // namespace

bool NodeIsUsable(const v1::Node& node) {
  const model::NodeState s = state::NodeStateOf(node);
  if (s.base == NodeBaseState::kDown || s.base == NodeBaseState::kUnknown ||
      s.base == NodeBaseState::kFuture || s.base == NodeBaseState::kError) {
    return false;
  }
  return (s.flags & kUnusableFlags) == 0;
}

namespace {

Slot InitialSlot(const v1::Node& node) {
  if (!NodeIsUsable(node)) return Slot::kDown;
  const model::NodeState s = state::NodeStateOf(node);
  if (s.base != NodeBaseState::kIdle || s.Has(NodeFlag::kCompleting) || !node.job_ids().empty()) {
    return Slot::kBusy;
  }
  return Slot::kFree;
}

// The nodes of a partition that could ever hold one node's share of a job.
struct Eligibility {
  bool valid = true;  // the request parsed
  NodeRequest need;
  std::vector<uint32_t> nodes;  // node indexes, partition order
  uint32_t up = 0;              // how many of them are up
};

// A partition's limits, read once per pass.
struct PartitionInfo {
  std::string_view name;
  bool down = false;
  bool inactive = false;
  uint32_t max_nodes = kUnlimited;
  uint32_t min_nodes = 0;
  uint32_t max_time = kUnlimited;
  uint32_t default_time = kUnlimited;  // DefaultTime, else MaxTime
};

// Cache key for jobs without -w/-x: the partition and the per-node request.
struct ShapeKey {
  uint32_t partition;
  uint32_t cpus;
  uint64_t mem;
  std::string_view gres;
  std::string_view features;

  friend bool operator<(const ShapeKey& a, const ShapeKey& b) {
    return std::tie(a.partition, a.cpus, a.mem, a.gres, a.features) <
           std::tie(b.partition, b.cpus, b.mem, b.gres, b.features);
  }
};

class Pass {
 public:
  Pass(const ClusterState& s, int64_t now) : s_(s), now_(now), limits_(s, now) {
    const size_t n = s.nodes.size();
    capacity_.reserve(n);
    slots_.reserve(n);
    for (const v1::Node& node : s.nodes) {
      capacity_.push_back(state::CapacityOf(node));
      slots_.push_back(InitialSlot(node));
    }
    blocked_.assign(s.partitions.size(), false);
    parts_.reserve(s.partitions.size());
    for (const v1::Partition& part : s.partitions) {
      PartitionInfo info;
      info.name = part.name();
      info.down = text::EqualsIgnoreCase(part.state(), "DOWN");
      info.inactive = text::EqualsIgnoreCase(part.state(), "INACTIVE");
      info.max_nodes = part.max_nodes() == 0 ? kUnlimited : part.max_nodes();
      info.min_nodes = part.min_nodes();
      info.max_time = part.max_time_min() == 0 ? kUnlimited : part.max_time_min();
      info.default_time = part.default_time_min() != 0 ? part.default_time_min() : info.max_time;
      parts_.push_back(info);
    }
  }

  Decisions Run() {
    for (const state::PendingKey& key : s_.pending) {
      if (key.priority == 0) break;  // held jobs sort last
      const v1::Job* job = s_.FindJob(key.job_id);
      if (job == nullptr || !state::IsPendingJob(*job)) continue;
      if (state::JobStateOf(*job).Has(model::JobFlag::kCompleting)) continue;
      if (job->request().begin_time() > now_) {
        SetReason(*job, "BeginTime");
        continue;
      }
      if (IsArrayRecord(*job)) {
        ConsiderArray(*job);
        continue;
      }
      if (!job->request().dependency().empty()) {
        const DependencyState dep = EvaluateDependency(*job, std::nullopt);
        if (dep == DependencyState::kNever && job->request().kill_on_invalid_dep() == 1) {
          out_.cancels.push_back(job->job_id());
          continue;
        }
        if (dep != DependencyState::kSatisfied) {
          SetReason(*job,
                    dep == DependencyState::kWaiting ? "Dependency" : "DependencyNeverSatisfied");
          continue;
        }
      }
      Consider(*job);
    }
    return std::move(out_);
  }

 private:
  enum class DependencyState { kSatisfied, kWaiting, kNever };

  // What a dependency term waits on, summed over its records: a plain job, every record of an
  // array (the array's own record counts as not started while it has pending tasks), or one
  // task of an array.
  struct Target {
    bool exists = false;
    bool ended = true;    // every record finished
    bool ok = true;       // every record COMPLETED
    bool started = true;  // every record started (or ended)
    int64_t latest_start = 0;

    void Add(const v1::Job& job) {
      const auto base = static_cast<model::JobBaseState>(job.state());
      exists = true;
      ended = ended && model::IsFinished(base);
      ok = ok && base == model::JobBaseState::kCompleted;
      started = started && (job.start_time() > 0 || model::IsFinished(base));
      latest_start = std::max(latest_start, job.start_time());
    }
  };

  Target TargetOf(uint32_t id, std::optional<uint32_t> task) const {
    Target t;
    const auto array = s_.arrays.find(id);
    if (array == s_.arrays.end()) {
      if (const v1::Job* job = s_.FindJob(id)) t.Add(*job);
      return t;
    }
    for (uint32_t record : array->second) {
      const v1::Job* job = s_.FindJob(record);
      if (job == nullptr) continue;
      if (!task ||
          (job->has_array_task_id() ? job->array_task_id() == *task
                                    : std::ranges::find(job->array_pending_tasks(), *task) !=
                                          job->array_pending_tasks().end())) {
        t.Add(*job);
      }
    }
    return t;
  }

  // One term of the job's dependency against the current state; `task` is the array task being
  // considered (aftercorr pairs it with the same task of the other array). Jobs the state no
  // longer holds have ended long ago and satisfy any term, as in Slurm.
  DependencyState EvaluateTerm(const v1::Job& job, const text::DependencyTerm& term,
                               std::optional<uint32_t> task) const {
    using text::DependencyType;
    if (term.type == DependencyType::kSingleton) {
      for (const auto& [id, other] : s_.jobs) {
        if (id == job.job_id() || other.user_id() != job.user_id() ||
            other.request().name() != job.request().name()) {
          continue;
        }
        const auto base = static_cast<model::JobBaseState>(other.state());
        if (model::IsActive(base) || (base == model::JobBaseState::kPending && id < job.job_id())) {
          return DependencyState::kWaiting;
        }
      }
      return DependencyState::kSatisfied;
    }
    std::optional<uint32_t> target_task;
    if (term.type == DependencyType::kAfterCorr) {
      target_task = job.has_array_task_id() ? std::optional(job.array_task_id()) : task;
    } else if (!term.array_task.empty() && term.array_task != "*") {
      uint32_t n = 0;
      const auto [end, ec] = std::from_chars(term.array_task.data(),
                                             term.array_task.data() + term.array_task.size(), n);
      if (ec == std::errc()) target_task = n;
    }
    const Target target = TargetOf(term.job_id, target_task);
    if (!target.exists) return DependencyState::kSatisfied;
    switch (term.type) {
      case DependencyType::kAfter:
        if (target.ended) return DependencyState::kSatisfied;
        return target.started &&
                       now_ >= target.latest_start + static_cast<int64_t>(term.minutes) * 60
                   ? DependencyState::kSatisfied
                   : DependencyState::kWaiting;
      case DependencyType::kAfterOk:
      case DependencyType::kAfterCorr:
        return !target.ended ? DependencyState::kWaiting
                             : (target.ok ? DependencyState::kSatisfied : DependencyState::kNever);
      case DependencyType::kAfterNotOk:
        return !target.ended ? DependencyState::kWaiting
                             : (target.ok ? DependencyState::kNever : DependencyState::kSatisfied);
      default:  // afterany (admission refuses burst-buffer kinds)
        return target.ended ? DependencyState::kSatisfied : DependencyState::kWaiting;
    }
  }

  // ',' needs every term, '?' any one; a term that can never hold decides accordingly. Also
  // records the job's dependency status (the open terms, as scontrol prints them).
  DependencyState EvaluateDependency(const v1::Job& job, std::optional<uint32_t> task) {
    Result<text::Dependency> dep = text::ParseDependency(job.request().dependency());
    if (!dep.ok()) return DependencyState::kNever;  // admission checked it: a damaged record
    bool waiting = false;
    bool never = false;
    bool any_met = false;
    std::string status;
    for (const text::DependencyTerm& term : dep->terms) {
      const DependencyState t = EvaluateTerm(job, term, task);
      waiting |= t == DependencyState::kWaiting;
      never |= t == DependencyState::kNever;
      any_met |= t == DependencyState::kSatisfied;
      if (t == DependencyState::kSatisfied) continue;
      if (!status.empty()) status += dep->any ? "?" : ",";
      status += text::FormatDependencyTerm(term) +
                (t == DependencyState::kNever ? "(failed)" : "(unfulfilled)");
    }
    DependencyState result;
    if (dep->any) {
      result = any_met ? DependencyState::kSatisfied
                       : (waiting ? DependencyState::kWaiting : DependencyState::kNever);
    } else {
      result = never ? DependencyState::kNever
                     : (waiting ? DependencyState::kWaiting : DependencyState::kSatisfied);
    }
    if (result == DependencyState::kSatisfied) status.clear();
    if (!job.has_dependency_status() || job.dependency_status() != status) {
      if (reported_.insert(job.job_id()).second) {
        out_.dependencies.push_back({job.job_id(), std::move(status)});
      }
    }
    return result;
  }

  static bool IsArrayRecord(const v1::Job& job) {
    return job.array_job_id() != 0 && !job.has_array_task_id();
  }

  // Tasks of the array that run now (JobArrayTaskLimit counts them against the throttle).
  uint32_t ActiveTasks(uint32_t array_job_id) const {
    uint32_t n = 0;
    const auto array = s_.arrays.find(array_job_id);
    if (array == s_.arrays.end()) return 0;
    for (uint32_t id : array->second) {
      const v1::Job* job = s_.FindJob(id);
      if (job != nullptr && model::IsActive(static_cast<model::JobBaseState>(job->state()))) ++n;
    }
    return n;
  }

  // An array's record: its pending tasks start one by one, in task order, while the throttle
  // allows, their dependency holds (aftercorr is per task) and they fit; the record keeps the
  // reason of the first task that could not start.
  void ConsiderArray(const v1::Job& job) {
    const uint32_t throttle = job.array_task_throttle();
    uint32_t running = throttle != 0 ? ActiveTasks(job.array_job_id()) : 0;
    const bool has_dependency = !job.request().dependency().empty();
    std::string_view dependency_reason;
    for (uint32_t task : job.array_pending_tasks()) {
      if (throttle != 0 && running >= throttle) {
        SetReason(job, "JobArrayTaskLimit");
        return;
      }
      if (has_dependency) {
        const DependencyState dep = EvaluateDependency(job, task);
        if (dep == DependencyState::kNever && job.request().kill_on_invalid_dep() == 1) {
          out_.cancels.push_back(job.job_id());
          return;
        }
        if (dep != DependencyState::kSatisfied) {
          if (dependency_reason.empty()) {
            dependency_reason =
                dep == DependencyState::kWaiting ? "Dependency" : "DependencyNeverSatisfied";
          }
          continue;
        }
      }
      const size_t before = out_.starts.size();
      Consider(job);
      if (out_.starts.size() == before) return;  // Consider gave the reason
      out_.starts.back().array_task_id = task;
      ++running;
    }
    if (!dependency_reason.empty()) SetReason(job, dependency_reason);
  }

  void SetReason(const v1::Job& job, std::string_view reason) {
    if (job.reason() != reason) out_.reasons.push_back({job.job_id(), std::string(reason)});
  }

  // Tries the job's partitions in order; starts it or records why it waits.
  void Consider(const v1::Job& job) {
    const v1::JobRequest& r = job.request();
    std::string_view config_reason;  // the first partition's permanent reason
    std::string_view wait_reason;    // the first partition's Resources/Priority
    auto try_partition = [&](std::string_view name) {
      const std::string_view reason = TryPartition(job, name);
      if (reason.empty()) return true;
      const bool waiting = reason == kResources || reason == kPriority;
      if (waiting && wait_reason.empty()) wait_reason = reason;
      if (!waiting && config_reason.empty()) config_reason = reason;
      return false;
    };
    bool started = false;
    if (r.partitions().empty()) {
      started = try_partition(job.partition());
    } else {
      for (const std::string& name : r.partitions()) {
        if ((started = try_partition(name))) break;
      }
    }
    if (started) return;
    SetReason(job, !wait_reason.empty() ? wait_reason : config_reason);
  }

  // Starts the job in partition `name` (returns ""), or returns why it cannot.
  std::string_view TryPartition(const v1::Job& job, std::string_view name) {
    const int p = PartitionOf(name);
    if (p < 0) return "PartitionConfig";
    const PartitionInfo& info = parts_[p];
    if (info.down) return "PartitionDown";
    if (info.inactive) return "PartitionInactive";
    const v1::JobRequest& r = job.request();
    const uint32_t min_nodes = state::MinNodesOf(r);
    const uint32_t max_nodes = state::MaxNodesOf(r);
    if (min_nodes > info.max_nodes || max_nodes < info.min_nodes) return "PartitionNodeLimit";
    uint32_t limit = job.time_limit_min();
    if (limit == 0) limit = info.default_time;
    if (info.max_time != kUnlimited && limit > info.max_time) return "PartitionTimeLimit";
    if (const std::string_view why = limits_.Blocks(job, name, limit); !why.empty()) return why;
    if (blocked_[p]) return kPriority;
    const v1::Partition& part = s_.partitions[p];

    std::vector<uint32_t> required;
    std::optional<Eligibility> own;  // for jobs with -w/-x (not cached)
    const Eligibility* elig = nullptr;
    if (r.req_nodes().empty() && r.exc_nodes().empty()) {
      elig = &Shape(static_cast<uint32_t>(p), r);
    } else {
      own = Compute(static_cast<uint32_t>(p), r, &required);
      elig = &*own;
    }
    if (!elig->valid) return "BadConstraints";
    if (elig->nodes.size() < min_nodes) return "PartitionConfig";
    std::vector<uint32_t> unavailable;
    for (uint32_t i : required) {
      if (slots_[i] == Slot::kDown) unavailable.push_back(i);
    }
    if (!unavailable.empty() || elig->up < min_nodes) {
      if (unavailable.empty()) {
        for (uint32_t i : elig->nodes) {
          if (slots_[i] == Slot::kDown) unavailable.push_back(i);
        }
      }
      return dynamic_.emplace_back("ReqNodeNotAvail, UNAVAILABLE:" + HostList(unavailable));
    }

    // Required nodes first, then the partition's eligible nodes in order.
    std::vector<uint32_t> picked;
    bool required_free = true;
    for (uint32_t i : required) {
      if (slots_[i] != Slot::kFree) required_free = false;
      picked.push_back(i);
    }
    if (required_free) {
      for (uint32_t i : elig->nodes) {
        if (picked.size() >= max_nodes) break;
        if (slots_[i] == Slot::kFree && !Contains(required, i)) picked.push_back(i);
      }
    }
    if (required_free && picked.size() >= min_nodes) {
      StartJob(job, part, *elig, std::move(picked), limit);
      return "";
    }

    // Blocked: would the nodes kept for earlier jobs have been enough?
    size_t could = 0;
    bool required_possible = true;
    for (uint32_t i : required) {
      if (slots_[i] != Slot::kFree && slots_[i] != Slot::kReserved) required_possible = false;
    }
    for (uint32_t i : elig->nodes) {
      if (slots_[i] == Slot::kFree || slots_[i] == Slot::kReserved) ++could;
    }
    Block(static_cast<uint32_t>(p));
    return required_possible && could >= min_nodes ? kPriority : kResources;
  }

  int PartitionOf(std::string_view name) const {
    for (size_t p = 0; p < parts_.size(); ++p) {
      if (parts_[p].name == name) return static_cast<int>(p);
    }
    return -1;
  }

  static bool Contains(const std::vector<uint32_t>& v, uint32_t x) {
    return std::ranges::find(v, x) != v.end();
  }

  // Keeps the partition's free nodes for the job that just blocked in it.
  void Block(uint32_t p) {
    blocked_[p] = true;
    for (uint32_t i : s_.partition_nodes[p]) {
      if (slots_[i] == Slot::kFree) slots_[i] = Slot::kReserved;
    }
  }

  void StartJob(const v1::Job& job, const v1::Partition& part, const Eligibility& elig,
                std::vector<uint32_t> picked, uint32_t limit) {
    std::ranges::sort(picked);  // configuration order; nodes[0] is the batch host
    Start start;
    start.job_id = job.job_id();
    start.partition = part.name();
    start.num_cpus = 0;
    start.alloc_mem_mb = 0;
    start.time_limit_min = limit;
    start.nodes.reserve(picked.size());
    for (uint32_t i : picked) {
      slots_[i] = Slot::kTaken;
      start.nodes.push_back(s_.nodes[i].name());
      start.num_cpus += capacity_[i].cpus;
      start.alloc_mem_mb += elig.need.mem_mb == 0 ? capacity_[i].mem_mb : elig.need.mem_mb;
    }
    limits_.Started(job, start);
    out_.starts.push_back(std::move(start));
  }

  std::string HostList(const std::vector<uint32_t>& indexes) const {
    std::vector<std::string> names;
    names.reserve(indexes.size());
    for (uint32_t i : indexes) names.push_back(s_.nodes[i].name());
    return text::CompressHostlistSorted(names);
  }

  // Eligibility for a job without -w/-x, cached by partition and per-node request.
  const Eligibility& Shape(uint32_t p, const v1::JobRequest& r) {
    const ShapeKey key{p, state::CpusPerNodeOf(r), state::MemPerNodeOf(r), r.gres(), r.features()};
    auto it = shapes_.find(key);
    if (it == shapes_.end()) it = shapes_.emplace(key, Compute(p, r, nullptr)).first;
    return it->second;
  }

  // The partition's nodes that fit the request, without -x nodes; *required gets the -w nodes
  // (a -w node outside the partition or not fitting makes the job impossible there).
  Eligibility Compute(uint32_t p, const v1::JobRequest& r, std::vector<uint32_t>* required) {
    Eligibility e;
    auto need = state::NodeRequestOf(r);
    if (!need.ok()) {
      e.valid = false;
      return e;
    }
    e.need = std::move(need).value();
    std::vector<uint32_t> excluded;
    if (required != nullptr) {
      std::optional<std::vector<uint32_t>> x = s_.NodeIndexesOf(r.exc_nodes());
      std::optional<std::vector<uint32_t>> w = s_.NodeIndexesOf(r.req_nodes());
      if (!x || !w) {
        e.valid = false;
        return e;
      }
      excluded = *std::move(x);
      *required = *std::move(w);
    }
    const std::vector<uint32_t>& members = s_.partition_nodes[p];
    for (uint32_t i : members) {
      if (Contains(excluded, i) || !state::Fits(capacity_[i], e.need)) continue;
      e.nodes.push_back(i);
      if (slots_[i] != Slot::kDown) ++e.up;
    }
    if (required != nullptr) {
      for (uint32_t i : *required) {
        if (!Contains(e.nodes, i)) {
          e.nodes.clear();  // a required node that can never be used here
          e.up = 0;
          break;
        }
      }
    }
    return e;
  }

  const ClusterState& s_;
  const int64_t now_;
  std::vector<NodeCapacity> capacity_;
  std::vector<Slot> slots_;
  std::vector<bool> blocked_;
  AssocLimits limits_;
  std::vector<PartitionInfo> parts_;
  std::map<ShapeKey, Eligibility> shapes_;
  std::deque<std::string> dynamic_;  // reasons built in this pass (ReqNodeNotAvail, ...)
  std::set<uint32_t> reported_;      // jobs whose dependency status this pass gave
  Decisions out_;
};

}  // namespace

Decisions Schedule(const state::ClusterState& state, int64_t now) { return Pass(state, now).Run(); }

}  // namespace gantry::sched
