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
#include "model/pending_reason.h"
#include "sched/assoc_limits.h"
#include "sched/node_plans.h"
#include "sched/node_tables.h"
#include "sched/partition_check.h"
#include "sched/preemptor.h"
#include "state/records.h"
#include "state/resources.h"
#include "state/shares.h"
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

using model::PendingReason;

// A reason's name (model/pending_reason.h: the one table).
constexpr std::string_view Name(PendingReason reason) { return model::PendingReasonName(reason); }
constexpr std::string_view kResources = Name(PendingReason::kResources);
constexpr std::string_view kPriority = Name(PendingReason::kPriority);

// A partition's limits, read once per pass.
using PartitionInfo = PartitionLimits;

constexpr int64_t kNoTime = NodePlans::kNever;  // never free, no end

class Pass {
 public:
  Pass(const ClusterState& s, int64_t now, const SchedulerOptions& options, PassYield* yield,
       NodeTables& tables)
      : s_(s),
        now_(now),
        options_(options),
        yield_(yield),
        t_(tables),
        limits_(s, now),
        preemptor_(MakePreemptor(s, options.preempt, options.time_slice_sec)) {
    t_.Refresh(s, now, options.whole_nodes);
    blocked_.assign(s.partitions.size(), false);
    parts_.reserve(s.partitions.size());
    for (const v1::Partition& part : s.partitions) parts_.push_back(PartitionLimits::Of(part));
  }
  // The tables go back to what the state says for every node the pass changed.
  ~Pass() {
    std::ranges::sort(touched_);
    const auto [end, last] = std::ranges::unique(touched_);
    for (auto it = touched_.begin(); it != end; ++it) t_.Restore(s_, *it);
  }
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;

  Decisions Run() {
    const std::vector<const v1::Job*> order = Order();
    out_.stats.queue_length = static_cast<uint32_t>(order.size());
    for (const v1::Job* job : order) {
      GiveWay();
      // Capacity or limits may have gone (the accounting records limits_ points into among
      // them): the pass ends here; the next one starts over.
      if (CapacityGone()) break;
      // After giving way, a job may no longer wait (ended, held, started by no one else: only
      // passes start jobs); what changed about the others is dropped at the end.
      if (Yielded() && (!state::IsPendingJob(*job) || job->priority() == 0)) continue;
      if (state::JobStateOf(*job).Has(model::JobFlag::kCompleting)) continue;
      if (job->request().begin_time() > now_) {
        SetReason(*job, Name(PendingReason::kBeginTime));
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
          SetReason(*job, DependencyReason(dep));
          continue;
        }
      }
      Consider(*job);
    }
    out_.stats.bf_planned = planned_jobs_;
    out_.stats.bf_reservations = static_cast<uint32_t>(plans_.keeps());
    if (Yielded()) DropInterfered(yield_->interference());
    return std::move(out_);
  }

 private:
  enum class DependencyState { kSatisfied, kWaiting, kNever };

  // Gives way to others when the yield says so (PassYield); whether it did.
  bool GiveWay() {
    if (yield_ == nullptr || !yield_->Due()) return false;
    yield_->Yield();
    ++out_.stats.yields;
    return true;
  }
  bool Yielded() const { return out_.stats.yields > 0; }
  bool CapacityGone() const { return Yielded() && yield_->interference().capacity; }

  // PassYield's contract: decisions about jobs changed while the pass gave way go, and so do
  // starts and preemptions when capacity may have gone.
  void DropInterfered(const Interference& changed) {
    const std::set<uint32_t> jobs(changed.jobs.begin(), changed.jobs.end());
    auto touched = [&jobs](uint32_t id) { return jobs.contains(id); };
    std::set<uint32_t> dropped;  // preemptors whose start goes
    for (const Preemption& p : out_.preemptions) {
      if (changed.capacity || touched(p.victim) || touched(p.preemptor)) {
        dropped.insert(p.preemptor);
      }
    }
    for (const Start& start : out_.starts) {
      if (changed.capacity || touched(start.job_id)) dropped.insert(start.job_id);
    }
    std::erase_if(out_.preemptions,
                  [&](const Preemption& p) { return dropped.contains(p.preemptor); });
    std::erase_if(out_.starts, [&](const Start& start) { return dropped.contains(start.job_id); });
    std::erase_if(out_.expected_starts, [&](const ExpectedStart& e) { return touched(e.job_id); });
    std::erase_if(out_.reasons, [&](const ReasonChange& r) { return touched(r.job_id); });
    std::erase_if(out_.dependencies, [&](const DependencyChange& d) { return touched(d.job_id); });
    std::erase_if(out_.cancels, touched);
  }

  // The pending jobs (not held) in the order they are considered: the pending index's order
  // (priority, submit time, id), except that where partitions have different PriorityTiers a
  // job of a higher tier (its best partition's) goes first, as Slurm evaluates them.
  std::vector<const v1::Job*> Order() {
    std::vector<const v1::Job*> jobs;
    jobs.reserve(s_.pending.size());
    // Records by id from one walk over the job map (ids are dense) when many jobs wait, rather
    // than a map lookup per pending job.
    std::vector<const v1::Job*> by_id;
    uint32_t first_id = 0;
    if (!s_.jobs.empty() && s_.pending.size() * 8 >= s_.jobs.size()) {
      first_id = s_.jobs.begin()->first;
      const uint64_t span = uint64_t{s_.jobs.rbegin()->first} - first_id + 1;
      if (span <= 4 * s_.jobs.size() + 4096) {
        by_id.assign(span, nullptr);
        // The walk may give way: map nodes stay put (jobs are erased only between passes) and
        // jobs added meanwhile have higher ids, past the span.
        for (const auto& [id, job] : s_.jobs) {
          if (id - first_id >= span) break;
          by_id[id - first_id] = &job;
          if ((id & 63) == 0) GiveWay();
        }
      }
    }
    // The pending index in order. The walk may give way; the index may then have lost the next
    // key, so the walk goes on from the first key not before it. A job whose key changed
    // meanwhile may come twice: the pass drops its decisions about it anyway (PassYield).
    for (auto it = s_.pending.begin(); it != s_.pending.end();) {
      const state::PendingKey key = *it;
      if (key.priority == 0) break;  // held jobs sort last
      const uint64_t slot = uint64_t{key.job_id} - first_id;
      const v1::Job* job = slot < by_id.size() ? by_id[slot] : s_.FindJob(key.job_id);
      if (job != nullptr && state::IsPendingJob(*job)) jobs.push_back(job);
      if (++it == s_.pending.end() || (key.job_id & 63) != 0) continue;
      const state::PendingKey next = *it;
      if (GiveWay()) it = s_.pending.lower_bound(next);
    }
    bool tiers = false;
    for (const v1::Partition& p : s_.partitions) {
      tiers = tiers || p.priority_tier() != s_.partitions.front().priority_tier();
    }
    if (!tiers) return jobs;
    auto tier_of = [this](const v1::Job& job) {
      uint32_t tier = 0;
      auto see = [&](std::string_view name) {
        if (const v1::Partition* p = s_.FindPartition(name)) {
          tier = std::max(tier, p->priority_tier());
        }
      };
      if (job.request().partitions().empty()) see(job.partition());
      for (const std::string& name : job.request().partitions()) see(name);
      return tier;
    };
    std::vector<std::pair<uint32_t, const v1::Job*>> tiered;
    tiered.reserve(jobs.size());
    for (const v1::Job* job : jobs) tiered.emplace_back(tier_of(*job), job);
    std::ranges::stable_sort(tiered,
                             [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < jobs.size(); ++i) jobs[i] = tiered[i].second;
    return jobs;
  }

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
        SetReason(job, Name(PendingReason::kJobArrayTaskLimit));
        return;
      }
      if (has_dependency) {
        const DependencyState dep = EvaluateDependency(job, task);
        if (dep == DependencyState::kNever && job.request().kill_on_invalid_dep() == 1) {
          out_.cancels.push_back(job.job_id());
          return;
        }
        if (dep != DependencyState::kSatisfied) {
          if (dependency_reason.empty()) dependency_reason = DependencyReason(dep);
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

  static std::string_view DependencyReason(DependencyState dep) {
    return Name(dep == DependencyState::kWaiting ? PendingReason::kDependency
                                                 : PendingReason::kDependencyNeverSatisfied);
  }

  void SetReason(const v1::Job& job, std::string_view reason) {
    if (job.reason() != reason) out_.reasons.push_back({job.job_id(), std::string(reason)});
  }

  // Tries the job's partitions in order; starts it or records why it waits.
  void Consider(const v1::Job& job) {
    ++out_.stats.depth;
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
    if (p < 0) return Name(PendingReason::kPartitionConfig);
    const PartitionInfo& info = parts_[p];
    if (const std::string_view why = PartitionRefusal(info, job); !why.empty()) return why;
    const v1::JobRequest& r = job.request();
    const uint32_t min_nodes = state::MinNodesOf(r);
    const uint32_t max_nodes = state::MaxNodesOf(r);
    const uint32_t limit = TimeLimitIn(info, job);
    if (const std::string_view why = limits_.Blocks(job, name, limit); !why.empty()) return why;
    if (blocked_[p] && (!options_.backfill || planned_jobs_ >= options_.bf_max_job_test)) {
      return kPriority;  // strict order, or past the jobs backfill looks at
    }
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
    if (!elig->valid) return Name(PendingReason::kBadConstraints);
    if (elig->nodes.size() < min_nodes) return Name(PendingReason::kPartitionConfig);
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
      return dynamic_.emplace_back(std::string(Name(PendingReason::kReqNodeNotAvail)) +
                                   ", UNAVAILABLE:" + HostList(unavailable));
    }

    // Required nodes first, then the partition's eligible nodes in order: free now and not
    // planned for an earlier job before this one would end.
    const int64_t end = EndOf(now_, limit);
    const bool whole = options_.whole_nodes || r.exclusive() ||
                       text::EqualsIgnoreCase(part.oversubscribe(), "EXCLUSIVE");
    auto usable = [&](uint32_t i) {
      return slots_[i] == Slot::kFree && FitsNow(i, elig->need, whole) &&
             !plans_.Kept(i, now_, end);
    };
    std::vector<uint32_t> picked;
    bool required_free = true;
    for (uint32_t i : required) {
      if (!usable(i)) required_free = false;
      picked.push_back(i);
    }
    // Free nodes where one node's share fits now (plans aside): the walk stops early once
    // enough usable ones are found in partition order, and is skipped for a request shape that
    // found too few before in this pass (what is free only shrinks during a pass).
    size_t fit_now = 0;
    const auto shape = std::make_tuple(elig, whole, min_nodes);
    const bool exhausted = required.empty() && own == std::nullopt && exhausted_.contains(shape);
    if (required_free && !exhausted) {
      std::vector<uint32_t> others;
      const bool one_type =
          required.empty() && OneGpuTypeApplies(*elig, max_nodes, min_nodes, own == std::nullopt);
      const bool ordered = in_index_order_[p] && !one_type;
      for (uint32_t i : free_now_) {
        if (!elig->member[i] || !FitsNow(i, elig->need, whole) || Contains(required, i)) continue;
        ++fit_now;
        if (plans_.Kept(i, now_, end)) continue;
        others.push_back(i);
        if (ordered && picked.size() + others.size() >= max_nodes) break;
      }
      InPartitionOrder(static_cast<uint32_t>(p), &others);
      if (one_type) others = OneGpuType(std::move(others), min_nodes);
      for (uint32_t i : others) {
        if (picked.size() >= max_nodes) break;
        picked.push_back(i);
      }
      if (required.empty() && own == std::nullopt && fit_now < min_nodes) {
        exhausted_.insert(shape);
      }
    }
    if (required_free && picked.size() >= min_nodes) {
      if (blocked_[p]) ++out_.stats.backfilled;
      StartJob(job, part, *elig, whole, std::move(picked), limit);
      return "";
    }

    if (preemptor_->MayPreempt(job, static_cast<uint32_t>(p)) &&
        Preempt(job, static_cast<uint32_t>(p), *elig, whole, required, min_nodes, limit)) {
      return "";
    }

    // Blocked: would the nodes kept for earlier jobs have been enough?
    size_t could = fit_now;
    bool required_possible = true;
    for (uint32_t i : required) {
      if (slots_[i] != Slot::kFree && slots_[i] != Slot::kReserved) required_possible = false;
    }
    if (!required.empty()) {
      could = 0;
      for (uint32_t i : free_now_) {
        could += elig->member[i] && FitsNow(i, elig->need, whole) ? 1 : 0;
      }
    }
    for (uint32_t i : reserved_now_) could += elig->member[i] ? 1 : 0;
    const bool behind = blocked_[p];
    if (options_.backfill) {
      blocked_[p] = true;
      if (planned_jobs_ < options_.bf_max_job_test && UnderPlanLimits(job, p)) {
        ++out_.stats.bf_tried;
        Plan(job, static_cast<uint32_t>(p), *elig, required, min_nodes, limit);
      }
    } else {
      Block(static_cast<uint32_t>(p));
    }
    return behind || (required_possible && could >= min_nodes) ? kPriority : kResources;
  }

  struct Victim {
    const v1::Job* job;
    PreemptAction action;
  };

  // The running jobs on node i that `job` (to run in `part`) may preempt, oldest first.
  std::vector<Victim> CandidatesOn(uint32_t i, const v1::Job& job, const v1::Partition& part) {
    std::vector<Victim> out;
    for (uint32_t id : s_.nodes[i].job_ids()) {
      const v1::Job* v = s_.FindJob(id);
      if (v == nullptr || victims_.contains(id) ||
          state::JobStateOf(*v).base != model::JobBaseState::kRunning) {
        continue;
      }
      const v1::Partition* vp = s_.FindPartition(v->partition());
      if (vp == nullptr) continue;
      if (const std::optional<PreemptAction> action =
              preemptor_->ActionOn(job, part, *v, *vp, now_)) {
        out.push_back({v, *action});
      }
    }
    std::ranges::sort(out, [](const Victim& a, const Victim& b) {
      return std::pair(a.job->start_time(), a.job->job_id()) <
             std::pair(b.job->start_time(), b.job->job_id());
    });
    return out;
  }

  // What `v` holds on node i, and what leaves with it: its CPUs, and its memory and GRES unless
  // it is suspended.
  void TakeOff(const Victim& v, uint32_t i, Used* u) const {
    const state::NodeShares shares = state::SharesOf(s_, *v.job);
    for (size_t k = 0; k < shares.nodes.size(); ++k) {
      if (shares.nodes[k] != i) continue;
      if (v.action == PreemptAction::kSuspend) {
        u->Remove(shares.cpus[k], 0, {});
      } else {
        std::vector<text::GresSpec> gres;
        if (auto parsed = text::ParseGres(v.job->request().gres(), text::GresSyntax::kJobRequest);
            parsed.ok()) {
          gres = std::move(parsed).value();
        }
        u->Remove(shares.cpus[k], shares.mem[k], gres);
      }
    }
  }

  // Whether node i has room for the job's memory and GRES with what it holds now (victims that
  // are suspended keep theirs).
  bool MemoryAndGresFit(uint32_t i, const NodeRequest& need, bool whole) const {
    const Used& u = used_[i];
    if (whole || need.mem_mb == 0) return u.mem_mb == 0 && u.gres.empty();
    return MemoryAndGresLeft(u, i, need);
  }

  // What placing one node's share of `job` on node i takes: the candidates that must go
  // (oldest first; with gantry_minimal_victims the fewest, lowest-priority ones), and whether
  // the node is still completing (earlier victims leaving); nullopt when it cannot fit there.
  struct NodeChoice {
    std::vector<Victim> victims;
    bool completing = false;
  };
  std::optional<NodeChoice> ChooseOn(uint32_t i, const v1::Job& job, const v1::Partition& part,
                                     const Eligibility& elig, bool whole, int64_t end) {
    if (slots_[i] == Slot::kDown || slots_[i] == Slot::kReserved || plans_.Kept(i, now_, end)) {
      return std::nullopt;
    }
    if (preemptor_->SuspendsOnly() && !MemoryAndGresFit(i, elig.need, whole)) {
      return std::nullopt;
    }
    NodeChoice choice;
    choice.completing = state::NodeStateOf(s_.nodes[i]).Has(NodeFlag::kCompleting);
    if (FitsIn(used_[i], i, elig.need, whole)) return choice;
    if (const uint32_t shares = ForceShares(part); TimeSliced(options_.preempt, part)) {
      // At most `shares` jobs to a CPU: the running and suspended jobs' CPUs here.
      uint64_t stacked = 0;
      for (uint32_t id : s_.nodes[i].job_ids()) {
        const v1::Job* v = s_.FindJob(id);
        if (v == nullptr || !model::IsActive(state::JobStateOf(*v).base)) continue;
        const state::NodeShares theirs = state::SharesOf(s_, *v);
        for (size_t k = 0; k < theirs.nodes.size(); ++k) {
          if (theirs.nodes[k] == i) stacked += theirs.cpus[k];
        }
      }
      if (stacked + elig.need.cpus > uint64_t{capacity_[i].cpus} * shares) return std::nullopt;
    }
    std::vector<Victim> candidates = CandidatesOn(i, job, part);
    if (options_.minimal_victims) {
      // Lowest priority first; then the greedy set is pruned of jobs it does not need.
      std::ranges::stable_sort(candidates, [](const Victim& a, const Victim& b) {
        return a.job->priority() < b.job->priority();
      });
    }
    Used u = used_[i];
    for (const Victim& v : candidates) {
      TakeOff(v, i, &u);
      choice.victims.push_back(v);
      if (FitsIn(u, i, elig.need, whole)) break;
    }
    if (!FitsIn(u, i, elig.need, whole)) return std::nullopt;
    if (options_.minimal_victims) {
      for (size_t k = choice.victims.size(); k-- > 0;) {
        Used without = used_[i];
        for (size_t j = 0; j < choice.victims.size(); ++j) {
          if (j != k) TakeOff(choice.victims[j], i, &without);
        }
        if (FitsIn(without, i, elig.need, whole)) {
          choice.victims.erase(choice.victims.begin() + static_cast<ptrdiff_t>(k));
        }
      }
    }
    return choice;
  }

  // Without GANG, Slurm's preempt plugins' order: the candidates by their partition's tier, then
  // their node count (partition_prio), or by their QOS's priority (qos); each is taken off in
  // turn until `wanted` nodes fit; the job goes on the first of those in partition order, and
  // the candidates taken there are its victims, less any the nodes fit without.
  void PlaceByCandidateOrder(const v1::Job& job, const v1::Partition& part, const Eligibility& elig,
                             bool whole, int64_t end, const std::vector<uint32_t>& order,
                             size_t wanted, std::vector<uint32_t>* picked,
                             std::vector<Victim>* victims, bool* waits) {
    std::vector<uint32_t> position(s_.nodes.size(), UINT32_MAX);  // in `order`, usable nodes
    std::vector<Victim> candidates;
    std::set<uint32_t> seen;
    for (size_t k = 0; k < order.size(); ++k) {
      const uint32_t i = order[k];
      if (slots_[i] == Slot::kDown || slots_[i] == Slot::kReserved || plans_.Kept(i, now_, end) ||
          (preemptor_->SuspendsOnly() && !MemoryAndGresFit(i, elig.need, whole))) {
        continue;
      }
      position[i] = static_cast<uint32_t>(k);
      for (const Victim& v : CandidatesOn(i, job, part)) {
        if (seen.insert(v.job->job_id()).second) candidates.push_back(v);
      }
    }
    std::ranges::stable_sort(candidates, [&](const Victim& a, const Victim& b) {
      return preemptor_->CandidateRank(*a.job) < preemptor_->CandidateRank(*b.job);
    });
    std::map<uint32_t, Used> as_if;  // node -> what it holds once the taken candidates are gone
    std::set<uint32_t> fitting;      // positions of usable nodes where the job fits that way
    for (uint32_t i : order) {
      if (position[i] != UINT32_MAX && FitsIn(used_[i], i, elig.need, whole)) {
        fitting.insert(position[i]);
      }
    }
    std::vector<Victim> taken;
    for (const Victim& v : candidates) {
      if (fitting.size() >= wanted) break;
      taken.push_back(v);
      for (uint32_t i : state::SharesOf(s_, *v.job).nodes) {
        if (position[i] == UINT32_MAX) continue;
        auto it = as_if.try_emplace(i, used_[i]).first;
        TakeOff(v, i, &it->second);
        if (FitsIn(it->second, i, elig.need, whole)) fitting.insert(position[i]);
      }
    }
    if (fitting.size() < wanted) return;
    std::set<uint32_t> chosen;
    for (uint32_t k : fitting) {
      if (chosen.size() >= wanted) break;
      chosen.insert(order[k]);
      picked->push_back(order[k]);
      *waits = *waits || state::NodeStateOf(s_.nodes[order[k]]).Has(NodeFlag::kCompleting);
    }
    // The taken candidates on the chosen nodes, latest first dropped where not needed.
    std::vector<Victim> needed;
    for (const Victim& v : taken) {
      const std::vector<uint32_t> nodes = state::SharesOf(s_, *v.job).nodes;
      if (std::ranges::any_of(nodes, [&](uint32_t i) { return chosen.contains(i); })) {
        needed.push_back(v);
      }
    }
    for (size_t k = needed.size(); k-- > 0;) {
      bool fits_without = true;
      for (uint32_t i : chosen) {
        Used u = used_[i];
        for (size_t j = 0; j < needed.size(); ++j) {
          if (j != k) TakeOff(needed[j], i, &u);
        }
        fits_without = fits_without && FitsIn(u, i, elig.need, whole);
      }
      if (fits_without) needed.erase(needed.begin() + static_cast<ptrdiff_t>(k));
    }
    victims->insert(victims->end(), needed.begin(), needed.end());
  }

  // Preemption (see the file comment); returns whether the job started.
  bool Preempt(const v1::Job& job, uint32_t p, const Eligibility& elig, bool whole,
               const std::vector<uint32_t>& required, uint32_t min_nodes, uint32_t limit) {
    const v1::Partition& part = s_.partitions[p];
    // A placement that found too few nodes stays impossible for the rest of the pass (the
    // candidates only become fewer).
    const auto shape =
        std::make_tuple(&elig, whole, min_nodes, std::string_view{job.request().qos()});
    // (Only for cached eligibilities: jobs without -w/-x.)
    const bool cacheable = job.request().req_nodes().empty() && job.request().exc_nodes().empty();
    if (cacheable && no_victims_.contains(shape)) return false;
    const int64_t end = EndOf(now_, limit);
    const size_t wanted = std::max<size_t>(min_nodes, required.size());
    std::vector<uint32_t> picked;
    std::vector<Victim> victims;
    bool waits = false;  // a picked node is still completing (earlier victims leaving)
    auto take = [&](uint32_t i, NodeChoice&& choice) {
      picked.push_back(i);
      waits = waits || choice.completing;
      victims.insert(victims.end(), choice.victims.begin(), choice.victims.end());
    };
    for (uint32_t i : required) {
      std::optional<NodeChoice> choice = ChooseOn(i, job, part, elig, whole, end);
      if (!choice) return false;
      take(i, *std::move(choice));
    }
    std::vector<uint32_t> all = elig.nodes;
    InPartitionOrder(p, &all);
    auto select = [&](const std::vector<uint32_t>& order) {
      if (!options_.preempt.gang && !options_.minimal_victims && required.empty()) {
        PlaceByCandidateOrder(job, part, elig, whole, end, order, wanted, &picked, &victims,
                              &waits);
      } else if (!options_.minimal_victims) {
        for (uint32_t i : order) {
          if (picked.size() >= wanted) break;
          if (Contains(required, i)) continue;
          if (std::optional<NodeChoice> choice = ChooseOn(i, job, part, elig, whole, end)) {
            take(i, *std::move(choice));
          }
        }
      } else {
        // gantry_minimal_victims: the nodes that cost the fewest victims, then the lowest
        // priorities, then partition order.
        std::vector<std::pair<std::tuple<size_t, uint64_t, size_t>, uint32_t>> costs;
        std::map<uint32_t, NodeChoice> choices;
        for (size_t k = 0; k < order.size(); ++k) {
          const uint32_t i = order[k];
          if (Contains(required, i)) continue;
          std::optional<NodeChoice> choice = ChooseOn(i, job, part, elig, whole, end);
          if (!choice) continue;
          uint64_t priorities = 0;
          for (const Victim& v : choice->victims) priorities += v.job->priority();
          costs.push_back({{choice->victims.size(), priorities, k}, i});
          choices.emplace(i, *std::move(choice));
        }
        std::ranges::sort(costs);
        for (const auto& [cost, i] : costs) {
          if (picked.size() >= wanted) break;
          take(i, std::move(choices.at(i)));
        }
      }
    };
    // A job with untyped GPUs stays on one GPU type: each type's nodes are tried in turn.
    const bool one_type =
        required.empty() &&
        OneGpuTypeApplies(elig, state::MaxNodesOf(job.request()), min_nodes, cacheable);
    const std::vector<std::vector<uint32_t>> groups =
        one_type ? GpuTypeGroups(all) : std::vector<std::vector<uint32_t>>{};
    if (groups.size() <= 1) {
      select(all);
    } else {
      for (const std::vector<uint32_t>& group : groups) {
        picked.clear();
        victims.clear();
        waits = false;
        select(group);
        if (picked.size() >= wanted) break;
      }
    }
    if (picked.size() < wanted) {
      if (cacheable) no_victims_.insert(shape);
      return false;
    }
    if (victims.empty()) return false;

    bool all_suspend = !waits;
    std::set<uint32_t> seen;
    for (const Victim& v : victims) {
      if (!seen.insert(v.job->job_id()).second) continue;
      victims_.insert(v.job->job_id());
      out_.preemptions.push_back({v.job->job_id(), job.job_id(), v.action});
      all_suspend = all_suspend && v.action == PreemptAction::kSuspend;
    }
    if (!all_suspend) return false;
    // The victims stop now: their CPUs, on every node of theirs, are the job's to take.
    for (uint32_t id : seen) {
      const v1::Job* v = s_.FindJob(id);
      for (uint32_t i : state::SharesOf(s_, *v).nodes) {
        touched_.push_back(i);
        TakeOff({v, PreemptAction::kSuspend}, i, &used_[i]);
        if ((slots_[i] == Slot::kBusy || slots_[i] == Slot::kTaken) &&
            used_[i].cpus < capacity_[i].cpus &&
            !state::NodeStateOf(s_.nodes[i]).Has(NodeFlag::kCompleting)) {
          slots_[i] = Slot::kFree;
          free_now_.insert(i);
        }
      }
    }
    StartJob(job, part, elig, whole, std::move(picked), limit);
    return true;
  }

  // bf_max_job_user, bf_max_job_part: how many jobs of one user, of one partition, backfill
  // plans in a pass (0: no limit).
  bool UnderPlanLimits(const v1::Job& job, int p) const {
    if (options_.bf_max_job_user > 0) {
      const auto it = planned_by_user_.find(job.user_id());
      if (it != planned_by_user_.end() && it->second >= options_.bf_max_job_user) return false;
    }
    if (options_.bf_max_job_part > 0) {
      const auto it = planned_by_partition_.find(static_cast<uint32_t>(p));
      if (it != planned_by_partition_.end() && it->second >= options_.bf_max_job_part) {
        return false;
      }
    }
    return true;
  }

  // When a job started at `start` with `limit` minutes ends (never without a limit).
  static int64_t EndOf(int64_t start, uint32_t limit) {
    return limit == kUnlimited || limit == 0 ? kNoTime : start + int64_t{limit} * 60;
  }

  // Sorts nodes of partition p into the partition's order.
  // Whether the per-node request names GPUs without a type: such a job's nodes are all of one
  // GPU type (a job is not split across GPU models unless it names them, or its nodes with -w).
  static bool UntypedGpus(const NodeRequest& need) {
    return std::ranges::any_of(
        need.gres, [](const text::GresSpec& g) { return g.name == "gpu" && g.type.empty(); });
  }
  // The GPU types of node i ("b200", "a100,h100"; "" without typed GPUs).
  std::string GpuTypesOf(uint32_t i) const {
    std::string types;
    for (const text::GresSpec& g : capacity_[i].gres) {
      if (g.name == "gpu") types += (types.empty() ? "" : ",") + g.type;
    }
    return types;
  }
  // Whether a job of this shape keeps to one GPU type: it asks for untyped GPUs on more than
  // one node, and some type has enough of the eligible nodes (else it could never start, and
  // may mix them).
  // `cached`: elig is a shared (per-shape) eligibility whose answer may be kept for the pass.
  bool OneGpuTypeApplies(const Eligibility& elig, uint32_t max_nodes, uint32_t min_nodes,
                         bool cached) {
    if (max_nodes <= 1 || !UntypedGpus(elig.need)) return false;
    const auto key = std::make_pair(&elig, min_nodes);
    if (auto it = one_type_applies_.find(key); cached && it != one_type_applies_.end()) {
      return it->second;
    }
    bool applies = false;
    for (const std::vector<uint32_t>& group : GpuTypeGroups(elig.nodes)) {
      applies = applies || group.size() >= min_nodes;
    }
    if (cached) one_type_applies_.emplace(key, applies);
    return applies;
  }

  // `nodes` (in order) grouped by GPU type, the groups in the order of their first node.
  std::vector<std::vector<uint32_t>> GpuTypeGroups(const std::vector<uint32_t>& nodes) const {
    std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
    for (uint32_t i : nodes) {
      std::string type = GpuTypesOf(i);
      auto it = std::ranges::find_if(groups, [&](const auto& g) { return g.first == type; });
      if (it == groups.end()) {
        groups.emplace_back(std::move(type), std::vector<uint32_t>{i});
      } else {
        it->second.push_back(i);
      }
    }
    std::vector<std::vector<uint32_t>> out;
    for (auto& [type, members] : groups) out.push_back(std::move(members));
    return out;
  }
  // Of `nodes` (in order), those of the first GPU type that has at least `min` of them; all of
  // them when they are of one type; none when no type has enough.
  std::vector<uint32_t> OneGpuType(std::vector<uint32_t> nodes, uint32_t min) const {
    std::vector<std::vector<uint32_t>> groups = GpuTypeGroups(nodes);
    if (groups.size() <= 1) return nodes;
    for (std::vector<uint32_t>& members : groups) {
      if (members.size() >= min) return std::move(members);
    }
    return {};
  }

  void InPartitionOrder(uint32_t p, std::vector<uint32_t>* nodes) const {
    const std::vector<uint32_t>& pos = position_[p];
    std::ranges::sort(*nodes, [&pos](uint32_t a, uint32_t b) { return pos[a] < pos[b]; });
  }

  // The first `count` nodes of partition p's order (eligible, up, not in `required`) free and
  // not kept over [t, until); fewer when there are not so many. Two walks in step, one over the
  // partition's order (done at the count-th such node), one over the nodes open by t (done when
  // it runs out; then sorted): the first to finish answers, so a plan costs about the shorter
  // walk whether plans already hold the partition's first nodes or few nodes are free by t.
  std::vector<uint32_t> FirstFree(uint32_t p, const Eligibility& elig,
                                  const std::vector<uint32_t>& required, size_t count, int64_t t,
                                  int64_t until) const {
    if (count == 0) return {};
    auto usable = [&](uint32_t i) {
      return elig.member[i] && slots_[i] != Slot::kDown && !Contains(required, i) &&
             plans_.FreeOver(i, t, until);
    };
    const std::vector<uint32_t>& order = order_[p];
    auto next_in_order = order.begin();
    auto next_open = plans_.by_open().begin();
    const auto open_end = plans_.by_open().end();
    std::vector<uint32_t> in_order;
    std::vector<uint32_t> open;
    while (true) {
      if (next_in_order == order.end()) return in_order;
      if (usable(*next_in_order)) {
        in_order.push_back(*next_in_order);
        if (in_order.size() == count) return in_order;
      }
      ++next_in_order;
      if (next_open == open_end || next_open->first > t) {
        InPartitionOrder(p, &open);
        if (open.size() > count) open.resize(count);
        return open;
      }
      if (usable(next_open->second)) open.push_back(next_open->second);
      ++next_open;
    }
  }

  // Backfill's plan for a job that cannot start now: the earliest time, within the window and
  // on bf_resolution's grid, when min_nodes of its nodes (its -w nodes among them) are free for
  // its whole time limit; those nodes (the first such in partition order) are kept for it from
  // then. Nodes are looked at in the order they free up, so on a busy cluster a plan costs
  // about min_nodes node checks.
  void Plan(const v1::Job& job, uint32_t p, const Eligibility& elig,
            const std::vector<uint32_t>& required, uint32_t min_nodes, uint32_t limit) {
    const int64_t duration = limit == kUnlimited || limit == 0 ? kNoTime : int64_t{limit} * 60;
    const int64_t horizon = now_ + options_.bf_window_sec;
    const int64_t grid = std::max<int64_t>(1, options_.bf_resolution_sec);
    // The grid is absolute (multiples of bf_resolution since the epoch), as Slurm's node space
    // map rounds end times, so a plan stays put from one pass to the next.
    auto on_grid = [&](int64_t t) {
      if (t <= now_ || t == kNoTime) return t;
      return (t + grid - 1) / grid * grid;
    };
    const size_t others = min_nodes > required.size() ? min_nodes - required.size() : 0;
    int64_t from = now_;
    for (int round = 0; round < 64 && from <= horizon; ++round) {
      int64_t t = from;
      for (uint32_t i : required) t = std::max(t, on_grid(plans_.EarliestFree(i, from, duration)));
      // The `others` smallest earliest free times (a max-heap); a node frees no earlier than it
      // first opens, so the walk stops once that time, on the grid, reaches the heap's largest.
      std::vector<std::pair<int64_t, uint32_t>> best;
      for (const auto& [at, i] : plans_.by_open()) {
        if (others == 0 ||
            (best.size() == others && on_grid(std::max(at, from)) >= best.front().first)) {
          break;
        }
        if (!elig.member[i] || slots_[i] == Slot::kDown || Contains(required, i)) continue;
        const int64_t e = on_grid(plans_.EarliestFree(i, from, duration));
        if (e == kNoTime) continue;
        if (best.size() < others) {
          best.emplace_back(e, i);
          std::ranges::push_heap(best);
        } else if (e < best.front().first) {
          std::ranges::pop_heap(best);
          best.back() = {e, i};
          std::ranges::push_heap(best);
        }
      }
      if (best.size() < others) return;
      if (others > 0) t = std::max(t, best.front().first);
      if (t == kNoTime || t > horizon) return;
      // The nodes free for the whole run from t (a plan may end between a node's earliest free
      // time and t, or begin inside the run), first in partition order.
      const int64_t until = duration == kNoTime ? kNoTime : t + duration;
      bool required_ok = true;
      for (uint32_t i : required) required_ok = required_ok && plans_.FreeOver(i, t, until);
      const std::vector<uint32_t> fitting =
          required_ok ? FirstFree(p, elig, required, others, t, until) : std::vector<uint32_t>();
      if (required_ok && fitting.size() >= others) {
        std::vector<uint32_t> chosen = required;
        chosen.insert(chosen.end(), fitting.begin(), fitting.end());
        for (uint32_t i : chosen) {
          touched_.push_back(i);
          plans_.Keep(i, t, until);
        }
        ++planned_jobs_;
        ++planned_by_user_[job.user_id()];
        ++planned_by_partition_[p];
        out_.expected_starts.push_back({job.job_id(), t});
        return;
      }
      from = t + 1;
    }
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
      if (slots_[i] == Slot::kFree) {
        touched_.push_back(i);
        slots_[i] = Slot::kReserved;
        free_now_.erase(i);
        reserved_now_.insert(i);
      }
    }
  }

  // Whether node i can take one node's share of a job now: with `whole` (or a request for all
  // of a node's memory) only when nothing is allocated there, else in what is left.
  bool FitsNow(uint32_t i, const NodeRequest& need, bool whole) const {
    return FitsIn(used_[i], i, need, whole);
  }
  // The same with `u` held on node i.
  bool FitsIn(const Used& u, uint32_t i, const NodeRequest& need, bool whole) const {
    if (whole || need.mem_mb == 0) return u.empty();
    return u.cpus + need.cpus <= capacity_[i].cpus && MemoryAndGresLeft(u, i, need);
  }
  // Whether node i, holding `u`, has the memory and GRES of one node's share left.
  bool MemoryAndGresLeft(const Used& u, uint32_t i, const NodeRequest& need) const {
    const NodeCapacity& c = capacity_[i];
    if (u.mem_mb + need.mem_mb > c.mem_mb) return false;
    return std::ranges::all_of(need.gres, [&](const text::GresSpec& want) {
      return state::GresCount(c, want) - u.GresHeld(want) >= want.count;
    });
  }

  // Allocates: whole nodes (all CPUs; the memory asked for, else all of it), or one node's
  // share on each; a node stays free for others while CPUs are left on it.
  void StartJob(const v1::Job& job, const v1::Partition& part, const Eligibility& elig, bool whole,
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
      const NodeCapacity& c = capacity_[i];
      const bool all = whole || elig.need.mem_mb == 0;
      const uint32_t cpus = all ? c.cpus : elig.need.cpus;
      const uint64_t mem = elig.need.mem_mb == 0 ? c.mem_mb : elig.need.mem_mb;
      touched_.push_back(i);
      used_[i].Add(cpus, mem, elig.need.gres);
      if (all || used_[i].cpus >= c.cpus || used_[i].mem_mb >= c.mem_mb) {
        slots_[i] = Slot::kTaken;
        free_now_.erase(i);
      }
      plans_.FreeNoEarlierThan(i, EndOf(now_, limit));
      start.nodes.push_back(s_.nodes[i].name());
      start.num_cpus += cpus;
      start.alloc_mem_mb += mem;
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
  // Kept in the tables from pass to pass; `up` is counted again after a node went down or up.
  const Eligibility& Shape(uint32_t p, const v1::JobRequest& r) {
    ShapeKey key{p, state::CpusPerNodeOf(r), state::MemPerNodeOf(r), r.gres(), r.features()};
    auto it = t_.shapes.find(key);
    if (it == t_.shapes.end()) it = t_.shapes.emplace(std::move(key), Compute(p, r, nullptr)).first;
    Eligibility& e = it->second;
    if (e.up_as_of != t_.down_changes()) {
      e.up = static_cast<uint32_t>(
          std::ranges::count_if(e.nodes, [this](uint32_t i) { return slots_[i] != Slot::kDown; }));
      e.up_as_of = t_.down_changes();
    }
    return e;
  }

  // The partition's nodes that fit the request, without -x nodes; *required gets the -w nodes
  // (a -w node outside the partition or not fitting makes the job impossible there).
  Eligibility Compute(uint32_t p, const v1::JobRequest& r, std::vector<uint32_t>* required) {
    Eligibility e;
    e.up_as_of = t_.down_changes();
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
    e.member.assign(s_.nodes.size(), false);
    // Whether one node's share fits, by definition (a cluster has few).
    const state::NodeConfigs& configs = t_.configs();
    std::vector<bool> fits(configs.capacities.size());
    for (uint32_t k : configs.of_partition[p]) fits[k] = state::Fits(configs.capacities[k], e.need);
    for (uint32_t i : members) {
      if (Contains(excluded, i) || !fits[configs.of_node[i]]) continue;
      e.nodes.push_back(i);
      e.member[i] = true;
      if (slots_[i] != Slot::kDown) ++e.up;
    }
    if (required != nullptr) {
      for (uint32_t i : *required) {
        if (!Contains(e.nodes, i)) {
          e.nodes.clear();  // a required node that can never be used here
          e.member.assign(s_.nodes.size(), false);
          e.up = 0;
          break;
        }
      }
    }
    return e;
  }

  const ClusterState& s_;
  const int64_t now_;
  const SchedulerOptions& options_;
  PassYield* const yield_;
  // The nodes as the pass sees them (see NodeTables): the pass changes them and notes each node
  // it changed in touched_, and the destructor gives those back.
  NodeTables& t_;
  const NodeTables::Capacities& capacity_ = t_.capacity;
  std::vector<Slot>& slots_ = t_.slots;
  std::vector<Used>& used_ = t_.used;  // per node: what its jobs hold, this pass's starts included
  const std::vector<bool>& in_index_order_ = t_.in_index_order;
  std::set<uint32_t>& free_now_ = t_.free_now;  // nodes in Slot::kFree
  const std::vector<std::vector<uint32_t>>& position_ = t_.position;
  const std::vector<std::vector<uint32_t>>& order_ = t_.order;
  // When each node is free, and what the plans made so far keep (kNoTime: never).
  NodePlans& plans_ = t_.plans;
  std::vector<uint32_t> touched_;  // nodes whose tables the pass changed (repeats included)
  // Request shapes (eligibility, whole nodes, min nodes) too few free nodes fit in this pass.
  std::set<std::tuple<const Eligibility*, bool, uint32_t>> exhausted_;
  // OneGpuTypeApplies by (eligibility, min nodes), for this pass.
  std::map<std::pair<const Eligibility*, uint32_t>, bool> one_type_applies_;
  std::set<uint32_t> reserved_now_;  // nodes in Slot::kReserved (strict order)
  uint32_t planned_jobs_ = 0;
  std::map<uint32_t, uint32_t> planned_by_user_;       // uid -> jobs planned this pass
  std::map<uint32_t, uint32_t> planned_by_partition_;  // partition index -> jobs planned
  std::vector<bool> blocked_;
  AssocLimits limits_;
  const std::unique_ptr<const Preemptor> preemptor_;
  std::vector<PartitionInfo> parts_;
  std::deque<std::string> dynamic_;  // reasons built in this pass (ReqNodeNotAvail, ...)
  std::set<uint32_t> reported_;      // jobs whose dependency status this pass gave
  std::set<uint32_t> victims_;       // jobs this pass preempted
  // Preemptor shapes (eligibility, whole nodes, min nodes, QOS) that found too few nodes.
  std::set<std::tuple<const Eligibility*, bool, uint32_t, std::string_view>> no_victims_;
  Decisions out_;
};

}  // namespace

Decisions Schedule(const state::ClusterState& state, int64_t now, const SchedulerOptions& options,
                   PassYield* yield, NodeTables* tables) {
  // Nothing waits: nothing to start, plan or explain (a pass would only look at every node).
  if (state.pending.empty()) return Decisions{};
  if (tables != nullptr) return Pass(state, now, options, yield, *tables).Run();
  NodeTables own;
  return Pass(state, now, options, yield, own).Run();
}

bool MayTakeCapacity(const v1::Event& event) {
  return event.has_node_state_changed() || event.has_node_registered() || event.has_node_lost() ||
         event.has_config_loaded() || event.has_partition_updated() ||
         event.has_accounting_changed() || event.has_job_resumed() || event.has_job_started();
}

Result<SchedulerOptions> SchedulerOptions::FromConfig(std::string_view scheduler_type,
                                                      std::string_view parameters) {
  SchedulerOptions o;
  if (scheduler_type == "sched/builtin") {
    o.backfill = false;
  } else if (!scheduler_type.empty() && scheduler_type != "sched/backfill") {
    return InvalidArgument("SchedulerType: invalid value '" + std::string(scheduler_type) +
                           "' (sched/backfill or sched/builtin)");
  }
  for (std::string_view item : text::Split(parameters, ',')) {
    if (item == "gantry_minimal_victims") o.minimal_victims = true;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    struct Range {
      std::string_view key;
      int64_t low;
      int64_t high;
      int64_t scale;
      int64_t* field;
    };
    int64_t max_job_test = o.bf_max_job_test;
    int64_t max_job_user = o.bf_max_job_user;
    int64_t max_job_part = o.bf_max_job_part;
    const Range ranges[] = {{"bf_yield_interval", 0, 10000000, 1, &o.bf_yield_interval_us},
                            {"bf_yield_sleep", 1, 10000000, 1, &o.bf_yield_sleep_us},
                            {"bf_interval", -1, 10800, 1, &o.bf_interval_sec},
                            {"bf_window", 1, 43200, 60, &o.bf_window_sec},
                            {"bf_resolution", 1, 3600, 1, &o.bf_resolution_sec},
                            {"bf_max_job_test", 1, 1000000, 1, &max_job_test},
                            {"bf_max_job_user", 0, 1000000, 1, &max_job_user},
                            {"bf_max_job_part", 0, 1000000, 1, &max_job_part}};
    for (const Range& r : ranges) {
      if (key != r.key) continue;
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < r.low || n > r.high) {
        return InvalidArgument("SchedulerParameters: invalid value '" + std::string(item) + "' (" +
                               std::string(r.key) + " is a whole number from " +
                               std::to_string(r.low) + " to " + std::to_string(r.high) + ")");
      }
      *r.field = n * r.scale;
    }
    o.bf_max_job_test = static_cast<uint32_t>(max_job_test);
    o.bf_max_job_user = static_cast<uint32_t>(max_job_user);
    o.bf_max_job_part = static_cast<uint32_t>(max_job_part);
  }
  return o;
}

}  // namespace gantry::sched
