#include "sched/preemptor.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "state/accounting.h"
#include "text/ascii.h"

namespace gantry::sched {
namespace {

bool ModeNames(std::string_view mode, std::string_view word) {
  return text::AsciiToUpper(mode).find(word) != std::string::npos;
}

const v1::Qos* QosOf(const state::ClusterState& state, const v1::Job& job) {
  const auto it = state.accounting.qos.find(job.request().qos());
  return it == state.accounting.qos.end() ? nullptr : &it->second;
}

// What both plugins check once their rule gave `action`: PRIORITY (`by_priority`) and the
// victim's exempt time.
std::optional<PreemptAction> Checked(const state::ClusterState& state,
                                     const PreemptOptions& options, PreemptAction action,
                                     bool by_priority, const v1::Job& job, const v1::Job& victim,
                                     int64_t now) {
  if (action == PreemptAction::kOff) return std::nullopt;
  if (by_priority && victim.priority() > job.priority()) return std::nullopt;
  const int64_t exempt = state::PreemptExemptSeconds(state.accounting, victim, options.exempt_sec);
  if (victim.start_time() + exempt > now) return std::nullopt;
  return action;
}

class NoPreemption final : public Preemptor {
 public:
  bool MayPreempt(const v1::Job& /*job*/, uint32_t /*p*/) const override { return false; }
  std::optional<PreemptAction> ActionOn(const v1::Job& /*job*/, const v1::Partition& /*partition*/,
                                        const v1::Job& /*victim*/,
                                        const v1::Partition& /*victim_partition*/,
                                        int64_t /*now*/) const override {
    return std::nullopt;
  }
  std::pair<uint64_t, uint64_t> CandidateRank(const v1::Job& /*victim*/) const override {
    return {0, 0};
  }
  bool SuspendsOnly() const override { return false; }
};

// preempt/partition_prio: a partition of a higher PriorityTier preempts the jobs of lower ones
// whose PreemptMode (the partition's, else the cluster's) is not OFF.
class PartitionPrio final : public Preemptor {
 public:
  PartitionPrio(const state::ClusterState& state, const PreemptOptions& options)
      : state_(state), options_(options), may_preempt_(state.partitions.size(), false) {
    for (size_t a = 0; a < state.partitions.size(); ++a) {
      for (const v1::Partition& b : state.partitions) {
        const PreemptAction action = ActionOfMode(b.preempt_mode(), options.action);
        if (b.priority_tier() < state.partitions[a].priority_tier() &&
            action != PreemptAction::kOff) {
          may_preempt_[a] = true;
          suspends_only_ = suspends_only_ && action == PreemptAction::kSuspend;
        }
      }
    }
  }

  bool MayPreempt(const v1::Job& /*job*/, uint32_t p) const override { return may_preempt_[p]; }

  std::optional<PreemptAction> ActionOn(const v1::Job& job, const v1::Partition& partition,
                                        const v1::Job& victim,
                                        const v1::Partition& victim_partition,
                                        int64_t now) const override {
    if (partition.priority_tier() <= victim_partition.priority_tier()) return std::nullopt;
    const std::string_view mode = victim_partition.preempt_mode();
    return Checked(state_, options_, ActionOfMode(mode, options_.action),
                   options_.priority || ModeNames(mode, "PRIORITY"), job, victim, now);
  }

  std::pair<uint64_t, uint64_t> CandidateRank(const v1::Job& victim) const override {
    const v1::Partition* vp = state_.FindPartition(victim.partition());
    return {vp == nullptr ? 0 : vp->priority_tier(), std::min(victim.nodes_size(), 0xffff)};
  }

  bool SuspendsOnly() const override { return suspends_only_; }

 private:
  const state::ClusterState& state_;
  const PreemptOptions options_;
  std::vector<bool> may_preempt_;  // per partition: a lower tier's jobs may be preempted
  bool suspends_only_ = true;      // every such tier's mode suspends
};

// preempt/qos: a job preempts the jobs whose QOS its QOS's Preempt list names (or, WITHIN, its
// own QOS's jobs of a lower priority); the victim's QOS's PreemptMode says what happens.
class QosPreemption final : public Preemptor {
 public:
  QosPreemption(const state::ClusterState& state, const PreemptOptions& options)
      : state_(state), options_(options) {}

  bool MayPreempt(const v1::Job& job, uint32_t /*p*/) const override {
    const v1::Qos* qos = QosOf(state_, job);
    return qos != nullptr && !qos->preempt().empty();
  }

  std::optional<PreemptAction> ActionOn(const v1::Job& job, const v1::Partition& partition,
                                        const v1::Job& victim,
                                        const v1::Partition& victim_partition,
                                        int64_t now) const override {
    const v1::Qos* qos = QosOf(state_, job);
    const v1::Qos* victim_qos = QosOf(state_, victim);
    if (qos == nullptr || victim_qos == nullptr) return std::nullopt;
    const std::string_view mode = victim_qos->preempt_mode();
    const bool listed =
        std::ranges::find(qos->preempt(), victim_qos->name()) != qos->preempt().end();
    const bool within = qos == victim_qos && (options_.within || ModeNames(mode, "WITHIN"));
    if (!listed && !within) return std::nullopt;
    if (within && !listed && victim.priority() >= job.priority()) return std::nullopt;
    const PreemptAction action = ActionOfMode(mode == "cluster" ? "" : mode, options_.action);
    // SUSPEND only from the same partition or one of a higher tier.
    if (action == PreemptAction::kSuspend && partition.name() != victim_partition.name() &&
        partition.priority_tier() <= victim_partition.priority_tier()) {
      return std::nullopt;
    }
    return Checked(state_, options_, action, options_.priority || ModeNames(mode, "PRIORITY"), job,
                   victim, now);
  }

  std::pair<uint64_t, uint64_t> CandidateRank(const v1::Job& victim) const override {
    const v1::Qos* qos = QosOf(state_, victim);
    return {qos == nullptr ? 0 : qos->priority(), 0};
  }

  bool SuspendsOnly() const override { return false; }

 private:
  const state::ClusterState& state_;
  const PreemptOptions options_;
};

// GANG: in a time-sliced partition a job may suspend the partition's running jobs that had a
// whole slice since they (re)started; everything else is the plugin's.
class Gang final : public Preemptor {
 public:
  Gang(const state::ClusterState& state, const PreemptOptions& options, int64_t slice_sec,
       std::unique_ptr<const Preemptor> plugin)
      : state_(state), options_(options), slice_sec_(slice_sec), plugin_(std::move(plugin)) {}

  bool MayPreempt(const v1::Job& job, uint32_t p) const override {
    return TimeSliced(options_, state_.partitions[p]) || plugin_->MayPreempt(job, p);
  }

  std::optional<PreemptAction> ActionOn(const v1::Job& job, const v1::Partition& partition,
                                        const v1::Job& victim,
                                        const v1::Partition& victim_partition,
                                        int64_t now) const override {
    if (&victim_partition == &partition && TimeSliced(options_, partition)) {
      if (now - ActiveSince(victim) < slice_sec_) return std::nullopt;
      return PreemptAction::kSuspend;
    }
    return plugin_->ActionOn(job, partition, victim, victim_partition, now);
  }

  std::pair<uint64_t, uint64_t> CandidateRank(const v1::Job& victim) const override {
    return plugin_->CandidateRank(victim);
  }

  bool SuspendsOnly() const override { return plugin_->SuspendsOnly(); }

 private:
  const state::ClusterState& state_;
  const PreemptOptions options_;
  const int64_t slice_sec_;
  const std::unique_ptr<const Preemptor> plugin_;
};

}  // namespace

std::unique_ptr<const Preemptor> MakePreemptor(const state::ClusterState& state,
                                               const PreemptOptions& options, int64_t slice_sec) {
  std::unique_ptr<const Preemptor> plugin;
  switch (options.type) {
    case PreemptType::kNone:
      plugin = std::make_unique<NoPreemption>();
      break;
    case PreemptType::kPartitionPrio:
      plugin = std::make_unique<PartitionPrio>(state, options);
      break;
    case PreemptType::kQos:
      plugin = std::make_unique<QosPreemption>(state, options);
      break;
  }
  if (!options.gang) return plugin;
  return std::make_unique<Gang>(state, options, slice_sec, std::move(plugin));
}

}  // namespace gantry::sched
