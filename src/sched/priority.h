// Job priority as Slurm's priority/multifactor computes it (priority/basic keeps the first
// scheduler's FIFO priority, state/priority.h).
//
//   priority = W_age x age + W_assoc x assoc + W_fairshare x fairshare + W_jobsize x jobsize
//            + W_partition x partition + W_qos x qos + sum over TRES (W_tres x tres) - nice
// truncated to an integer, at least 1 (0 means held) and at most 2^32-1. Factors, each in
// [0, 1]:
//   age        (now - accrue time) / PriorityMaxAge, at most 1; 0 while the job does not accrue
//   assoc      the Priority= of the job's association (inherited down the account tree,
//              state::EffectivePriority) / the largest any association has (raw: NO_NORMAL_ASSOC)
//   fairshare  the job's user association's factor (sched/fair_share.h)
//   jobsize    (min nodes / cluster nodes + CPUs / cluster CPUs) / 2; PriorityFavorSmall=YES:
//              ((nodes - min nodes) / nodes + (CPUs - job CPUs) / CPUs) / 2;
//              SMALL_RELATIVE_TO_TIME: max(min nodes x CPUs / nodes, job CPUs) / time limit
//              (minutes) / CPUs (1 - that with FavorSmall); clamped to [0, 1]
//   partition  PriorityJobFactor / the largest over all partitions (raw: NO_NORMAL_PART)
//   qos        QOS Priority / the largest over all QOS (raw: NO_NORMAL_QOS)
//   tres       per TRES with a weight: the job's count (allocated if running, else asked) / the
//              partition's total (raw: NO_NORMAL_TRES)
// A job that may run in several partitions has one priority per partition (sorted by
// PriorityTier, highest first, then as requested); its priority is its own partition's.
// Pure; thread-compatible.
#ifndef GANTRY_SCHED_PRIORITY_H_
#define GANTRY_SCHED_PRIORITY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sched/fair_share.h"
#include "sched/usage_reset.h"
#include "state/cluster_state.h"

namespace gantry::sched {

struct PriorityConfig {
  bool multifactor = false;  // PriorityType=priority/multifactor
  uint32_t weight_age = 0;
  uint32_t weight_assoc = 0;
  uint32_t weight_fairshare = 0;
  uint32_t weight_job_size = 0;
  uint32_t weight_partition = 0;
  uint32_t weight_qos = 0;
  std::vector<std::pair<std::string, double>> weight_tres;  // "cpu", "mem", "gres/gpu"... as given
  int64_t max_age_sec = int64_t{7} * 24 * 3600;             // PriorityMaxAge
  bool favor_small = false;                                 // PriorityFavorSmall
  int64_t calc_period_sec = 300;                            // PriorityCalcPeriod
  double fairshare_dampening = 1.0;                         // FairShareDampeningFactor
  // PriorityFlags.
  bool small_relative_to_time = false;
  bool no_normal_assoc = false;
  bool no_normal_part = false;
  bool no_normal_qos = false;
  bool no_normal_tres = false;
  bool calculate_running = false;
  bool accrue_always = false;
  bool incr_only = false;
  bool max_tres = false;  // billing takes the largest node TRES (model/billing.h)
  FairShareAlgorithm fair_share = FairShareAlgorithm::kFairTree;  // NO_FAIR_TREE, DEPTH_OBLIVIOUS
  UsageResetPeriod usage_reset = UsageResetPeriod::kNone;         // PriorityUsageResetPeriod

  // From slurm.conf keys (`value` gives a key's value, nullopt when unset). Errors name the key,
  // the value and the rule: InvalidArgument "PriorityFlags: unknown flag 'X' (...)".
  static Result<PriorityConfig> FromKeys(
      const std::function<std::optional<std::string>(std::string_view key)>& value);
};

// One priority of a job: its factors (normalised) and the total.
struct PriorityFactors {
  std::string partition;
  double age = 0;
  double assoc = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition_factor = 0;
  double qos = 0;
  std::vector<std::pair<std::string, double>> tres;  // per weighted TRES, in the weights' order
  int64_t nice = 0;
  uint32_t priority = 0;
};

// Computes priorities against one snapshot: the fair-share tree, the maxima the factors are
// normalised by and the partitions' totals are worked out once.
class PriorityCalculator {
 public:
  PriorityCalculator(const PriorityConfig& config, const state::ClusterState& state, int64_t now);

  // One entry per partition the job may run in (PriorityTier, highest first, then as asked);
  // the job's own partition is marked by `partition`. Held jobs (priority 0) get factors too.
  std::vector<PriorityFactors> FactorsOf(const v1::Job& job) const;
  // The priority of `job` in its own partition (its pending partition, the first it asked for).
  uint32_t PriorityOf(const v1::Job& job) const;

  const PriorityConfig& config() const { return config_; }
  const FairShare& fair_share() const { return fair_share_; }

 private:
  // The factors that come from the job's association.
  struct AssocFactors {
    double fairshare = 0;
    double assoc = 0;
  };
  // The factors in `partition`; without `detailed` only the numbers (no names: cheaper).
  PriorityFactors FactorsIn(const v1::Job& job, const v1::Partition& partition,
                            const AssocFactors& assoc, bool detailed) const;
  AssocFactors AssocFactorsOf(const v1::Job& job) const;

  const PriorityConfig& config_;
  const state::ClusterState& state_;
  int64_t now_;
  FairShare fair_share_;
  // The association factors of each user association by (user, account, partition; "" for
  // any), the strings the state's own.
  using AssocKey = std::tuple<std::string_view, std::string_view, std::string_view>;
  struct AssocKeyHash {
    size_t operator()(const AssocKey& k) const {
      const std::hash<std::string_view> h;
      return h(std::get<0>(k)) ^ (h(std::get<1>(k)) * 31) ^ (h(std::get<2>(k)) * 1009);
    }
  };
  using AssocIndex = std::unordered_map<AssocKey, AssocFactors, AssocKeyHash>;
  AssocIndex assoc_factors_of_;
  // The last lookup (jobs in a row mostly share it). Partitions are the state's own (their
  // place in state.partitions is their index).
  mutable AssocKey last_key_;
  mutable std::optional<AssocFactors> last_assoc_;
  mutable const v1::Partition* last_partition_ = nullptr;
  struct QosMemo {
    std::string name;
    bool known = false;
    double factor = 0;
  };
  mutable QosMemo last_qos_;
  double max_partition_factor_ = 1;
  double max_qos_priority_ = 0;
  uint64_t cluster_nodes_ = 0;
  uint64_t cluster_cpus_ = 0;
  // Per partition (same order as state.partitions): TRES totals by name.
  std::vector<std::vector<std::pair<std::string, double>>> partition_tres_;
};

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_PRIORITY_H_
