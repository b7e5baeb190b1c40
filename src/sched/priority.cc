#include "sched/priority.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "model/billing.h"
#include "state/priority.h"
#include "state/records.h"
#include "state/resources.h"
#include "state/usage.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/gres.h"

namespace gantry::sched {
namespace {

Status Bad(std::string_view key, std::string_view value, std::string_view rule) {
  return InvalidArgument(std::string(key) + ": invalid value '" + std::string(value) + "' (" +
                         std::string(rule) + ")");
}

Result<uint32_t> Weight(std::string_view key, const std::string& value) {
  uint64_t n = 0;
  if (value.empty() || value.size() > 10 ||
      value.find_first_not_of("0123456789") != std::string::npos ||
      (n = std::stoull(value)) > 0xFFFFFFFFull) {
    return Bad(key, value, "a whole number from 0 to 4294967295");
  }
  return static_cast<uint32_t>(n);
}

// Comma-separated items, empty ones dropped.
std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view item : text::Split(text, ',')) {
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

// TRES weights: "CPU=1000,Mem=2000,GRES/gpu=3000" (names case-insensitive, stored lower case).
Result<std::vector<std::pair<std::string, double>>> TresWeights(const std::string& value) {
  std::vector<std::pair<std::string, double>> out;
  for (const std::string& item : SplitList(value)) {
    const size_t eq = item.find('=');
    const std::string name = text::AsciiToLower(item.substr(0, eq));
    const std::string number = eq == std::string::npos ? "" : item.substr(eq + 1);
    char* end = nullptr;
    const double weight = number.empty() ? 0 : std::strtod(number.c_str(), &end);
    if (name.empty() || number.empty() || end == nullptr || *end != '\0' ||
        !std::isfinite(weight)) {
      return Bad("PriorityWeightTRES", value, "a list of TRES=weight, e.g. cpu=1000,mem=2000");
    }
    out.emplace_back(name, weight);
  }
  return out;
}

// Seconds `job` has been accruing age by `now`.
int64_t AgeSeconds(const v1::Job& job, int64_t now, bool accrue_always) {
  const int64_t since = accrue_always ? job.submit_time() : job.accrue_time();
  if (since <= 0 || now <= since) return 0;
  return now - since;
}

}  // namespace

Result<PriorityConfig> PriorityConfig::FromKeys(
    const std::function<std::optional<std::string>(std::string_view key)>& value) {
  PriorityConfig c;
  if (auto type = value("PriorityType")) {
    if (*type == "priority/multifactor") {
      c.multifactor = true;
    } else if (*type != "priority/basic") {
      return Bad("PriorityType", *type, "priority/basic or priority/multifactor");
    }
  }
  const std::pair<const char*, uint32_t*> weights[] = {
      {"PriorityWeightAge", &c.weight_age},
      {"PriorityWeightAssoc", &c.weight_assoc},
      {"PriorityWeightFairshare", &c.weight_fairshare},
      {"PriorityWeightJobSize", &c.weight_job_size},
      {"PriorityWeightPartition", &c.weight_partition},
      {"PriorityWeightQOS", &c.weight_qos},
  };
  for (const auto& [key, field] : weights) {
    if (auto v = value(key)) {
      GANTRY_ASSIGN_OR_RETURN(*field, Weight(key, *v));
    }
  }
  if (auto v = value("PriorityWeightTRES")) {
    GANTRY_ASSIGN_OR_RETURN(c.weight_tres, TresWeights(*v));
  }
  if (auto v = value("PriorityMaxAge")) {
    Result<int64_t> seconds = text::ParseDurationSeconds(*v);
    if (!seconds.ok() || *seconds < 0) return Bad("PriorityMaxAge", *v, "a duration, e.g. 7-0");
    c.max_age_sec = *seconds;
  }
  if (auto v = value("PriorityCalcPeriod")) {
    Result<int64_t> minutes = text::ParseDurationMinutes(*v);
    if (!minutes.ok() || *minutes <= 0) {
      return Bad("PriorityCalcPeriod", *v, "a duration of at least a minute");
    }
    c.calc_period_sec = *minutes * 60;
  }
  if (auto v = value("PriorityUsageResetPeriod")) {
    GANTRY_ASSIGN_OR_RETURN(c.usage_reset, ParseUsageResetPeriod(*v));
  }
  if (auto v = value("PriorityFavorSmall")) {
    const std::string yes = text::AsciiToLower(*v);
    if (yes != "yes" && yes != "no") return Bad("PriorityFavorSmall", *v, "YES or NO");
    c.favor_small = yes == "yes";
  }
  if (auto v = value("FairShareDampeningFactor")) {
    GANTRY_ASSIGN_OR_RETURN(const uint32_t d, Weight("FairShareDampeningFactor", *v));
    if (d == 0) return Bad("FairShareDampeningFactor", *v, "at least 1");
    c.fairshare_dampening = d;
  }
  if (auto v = value("PriorityFlags")) {
    for (const std::string& flag : SplitList(*v)) {
      const std::string f = text::AsciiToUpper(flag);
      if (f == "SMALL_RELATIVE_TO_TIME") {
        c.small_relative_to_time = true;
      } else if (f == "NO_NORMAL_ALL") {
        c.no_normal_assoc = c.no_normal_part = c.no_normal_qos = c.no_normal_tres = true;
      } else if (f == "NO_NORMAL_ASSOC") {
        c.no_normal_assoc = true;
      } else if (f == "NO_NORMAL_PART") {
        c.no_normal_part = true;
      } else if (f == "NO_NORMAL_QOS") {
        c.no_normal_qos = true;
      } else if (f == "NO_NORMAL_TRES") {
        c.no_normal_tres = true;
      } else if (f == "CALCULATE_RUNNING") {
        c.calculate_running = true;
      } else if (f == "ACCRUE_ALWAYS") {
        c.accrue_always = true;
      } else if (f == "INCR_ONLY") {
        c.incr_only = true;
      } else if (f == "NO_FAIR_TREE" || f == "DEPTH_OBLIVIOUS") {
        c.fair_share = FairShareAlgorithm::kClassic;
      } else if (f == "MAX_TRES") {
        c.max_tres = true;
      } else if (f != "FAIR_TREE") {
        return Bad("PriorityFlags", flag,
                   "flags: ACCRUE_ALWAYS, CALCULATE_RUNNING, DEPTH_OBLIVIOUS, FAIR_TREE, "
                   "INCR_ONLY, MAX_TRES, NO_FAIR_TREE, NO_NORMAL_ALL, NO_NORMAL_ASSOC, "
                   "NO_NORMAL_PART, NO_NORMAL_QOS, NO_NORMAL_TRES, SMALL_RELATIVE_TO_TIME");
      }
    }
  }
  return c;
}

PriorityCalculator::PriorityCalculator(const PriorityConfig& config,
                                       const state::ClusterState& state, int64_t now)
    : config_(config), state_(state), now_(now) {
  std::vector<const v1::Job*> running;
  for (const v1::Node& node : state.nodes) {
    for (uint32_t id : node.job_ids()) {
      const v1::Job* job = state.FindJob(id);
      if (job != nullptr && job->nodes_size() > 0 && job->nodes(0) == node.name()) {
        running.push_back(job);  // once, at its first node
      }
    }
  }
  if (config.weight_fairshare > 0) {
    fair_share_ = ComputeFairShare(state.accounting, running, now, config.fair_share,
                                   config.fairshare_dampening);
  }
  if (config.weight_fairshare > 0 || config.weight_assoc > 0) {
    // Association priorities (only with a weight for them): each one's inherited value.
    std::unordered_map<uint32_t, double> assoc_priority;
    double max_assoc_priority = 0;
    if (config.weight_assoc > 0) {
      for (const auto& [id, a] : state.accounting.associations) {
        const double p = state::EffectivePriority(state.accounting, a);
        assoc_priority.emplace(id, p);
        max_assoc_priority = std::max(max_assoc_priority, p);
      }
    }
    assoc_factors_of_.reserve(state.accounting.associations.size());
    for (const auto& [id, a] : state.accounting.associations) {
      if (a.user().empty()) continue;
      AssocFactors f;
      if (config.weight_fairshare > 0) f.fairshare = fair_share_.FactorOf(a.id());
      if (const auto p = assoc_priority.find(id); p != assoc_priority.end() && p->second > 0) {
        f.assoc = config.no_normal_assoc ? p->second : p->second / max_assoc_priority;
      }
      assoc_factors_of_.try_emplace(AssocKey(a.user(), a.account(), a.partition()), f);
    }
  }
  for (const v1::Partition& p : state.partitions) {
    max_partition_factor_ = std::max<double>(max_partition_factor_, p.priority_job_factor());
  }
  for (const auto& [name, qos] : state.accounting.qos) {
    max_qos_priority_ = std::max<double>(max_qos_priority_, qos.priority());
  }
  for (const v1::Node& node : state.nodes) {
    ++cluster_nodes_;
    cluster_cpus_ += node.cpus();
  }
  std::map<std::string, std::vector<text::GresSpec>, std::less<>> gres_of;
  for (size_t p = 0; p < state.partitions.size(); ++p) {
    state::TresAmounts totals;
    double nodes = 0;
    double cpus = 0;
    double mem = 0;
    for (uint32_t i : state.partition_nodes[p]) {
      const v1::Node& node = state.nodes[i];
      nodes += 1;
      cpus += node.cpus();
      mem += static_cast<double>(node.real_memory_mb());
      if (node.gres().empty()) continue;
      auto parsed = gres_of.find(node.gres());  // nodes of a pool share their GRES
      if (parsed == gres_of.end()) {
        Result<std::vector<text::GresSpec>> gres =
            text::ParseGres(node.gres(), text::GresSyntax::kNodeConfig);
        parsed =
            gres_of.emplace(node.gres(), gres.ok() ? *gres : std::vector<text::GresSpec>()).first;
      }
      for (const text::GresSpec& g : parsed->second) totals["gres/" + g.name] += g.count;
    }
    std::vector<std::pair<std::string, double>> list = {
        {"cpu", cpus}, {"mem", mem}, {"node", nodes}};
    for (const auto& [name, count] : totals) list.emplace_back(name, static_cast<double>(count));
    // The partition's billing: its weights applied to its totals (scontrol's TRES=billing=).
    const std::vector<text::TresWeight>& weights =
        model::BillingWeightsOf(state.partitions[p].tres_billing_weights());
    const double billing =
        weights.empty() ? cpus
                        : model::WeightedTres(weights, config.max_tres, [&](std::string_view n) {
                            for (const auto& [name, count] : list) {
                              if (name == n) return count;
                            }
                            return 0.0;
                          });
    list.emplace_back("billing", std::floor(billing));
    partition_tres_.push_back(std::move(list));
  }
}

PriorityFactors PriorityCalculator::FactorsIn(const v1::Job& job, const v1::Partition& partition,
                                              const AssocFactors& assoc, bool detailed) const {
  const PriorityConfig& c = config_;
  const v1::JobRequest& r = job.request();
  PriorityFactors f;
  if (detailed) f.partition = partition.name();
  double tres_sum = 0;
  f.nice = r.nice();
  if (c.weight_age > 0 && c.max_age_sec > 0) {
    const int64_t age = AgeSeconds(job, now_, c.accrue_always);
    f.age =
        age >= c.max_age_sec ? 1.0 : static_cast<double>(age) / static_cast<double>(c.max_age_sec);
  }
  f.fairshare = assoc.fairshare;
  f.assoc = assoc.assoc;
  if (c.weight_job_size > 0 && cluster_nodes_ > 0 && cluster_cpus_ > 0) {
    const auto nodes = static_cast<double>(cluster_nodes_);
    const auto cpus = static_cast<double>(cluster_cpus_);
    const double min_nodes = state::MinNodesOf(r);
    const double job_cpus =
        job.num_cpus() > 0 ? job.num_cpus() : static_cast<double>(state::TotalCpusOf(r));
    double js = 0;
    if (c.small_relative_to_time) {
      uint32_t limit = job.time_limit_min() != 0 ? job.time_limit_min() : r.time_limit_min();
      if (limit == 0 || limit == 0xFFFFFFFFu) limit = partition.max_time_min();
      if (limit == 0 || limit == 0xFFFFFFFFu) limit = 1;
      js = std::max(min_nodes * cpus / nodes, job_cpus) / limit / cpus;
      if (c.favor_small) js = 1.0 - js;
    } else if (c.favor_small) {
      js = (nodes - min_nodes) / nodes;
      if (job_cpus > 0) js = (js + (cpus - job_cpus) / cpus) / 2;
    } else {
      js = min_nodes / nodes;
      if (job_cpus > 0) js = (js + job_cpus / cpus) / 2;
    }
    f.job_size = std::clamp(js, 0.0, 1.0);
  }
  if (c.weight_partition > 0 && partition.priority_job_factor() > 0) {
    f.partition_factor = c.no_normal_part ? partition.priority_job_factor()
                                          : partition.priority_job_factor() / max_partition_factor_;
  }
  if (c.weight_qos > 0 && max_qos_priority_ > 0) {
    if (r.qos() != last_qos_.name || !last_qos_.known) {
      last_qos_ = {r.qos(), true, 0};
      if (auto qos = state_.accounting.qos.find(r.qos()); qos != state_.accounting.qos.end()) {
        last_qos_.factor =
            c.no_normal_qos ? qos->second.priority() : qos->second.priority() / max_qos_priority_;
      }
    }
    f.qos = last_qos_.factor;
  }
  if (!c.weight_tres.empty()) {
    std::optional<state::TresAmounts> gres;  // parsed only for a gres/ weight
    const int index = static_cast<int>(&partition - state_.partitions.data());
    for (const auto& [name, weight] : c.weight_tres) {
      double count = 0;
      if (name.rfind("gres/", 0) == 0) {
        if (!gres) gres = state::JobTresOf(job);
        count = static_cast<double>(gres->Get(name));
      } else {
        count = static_cast<double>(state::JobBaseTres(job, name));
      }
      double total = 0;
      if (index >= 0) {
        for (const auto& [tres, amount] : partition_tres_[static_cast<size_t>(index)]) {
          if (tres == name) total = amount;
        }
      }
      double factor = 0;
      if (count > 0 && total > 0) factor = c.no_normal_tres ? count : count / total;
      tres_sum += weight * factor;
      if (detailed) f.tres.emplace_back(name, factor);
    }
  }
  double sum = c.weight_age * f.age + c.weight_fairshare * f.fairshare +
               c.weight_job_size * f.job_size + c.weight_partition * f.partition_factor +
               c.weight_qos * f.qos + c.weight_assoc * f.assoc;
  sum += tres_sum;
  sum -= static_cast<double>(f.nice);
  if (sum < 1) sum = 1;
  f.priority = sum >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(sum);
  return f;
}

PriorityCalculator::AssocFactors PriorityCalculator::AssocFactorsOf(const v1::Job& job) const {
  if (assoc_factors_of_.empty()) return {};
  const AssocKey key(job.user_name(), job.request().account(), job.partition());
  if (last_assoc_ && last_key_ == key) return *last_assoc_;
  // The association of the job's partition, else the user's in that account for any partition
  // (state::FindJobAssociation's rule).
  auto it = assoc_factors_of_.find(key);
  if (it == assoc_factors_of_.end() && !job.partition().empty()) {
    it = assoc_factors_of_.find(AssocKey(job.user_name(), job.request().account(), ""));
  }
  last_key_ = key;
  last_assoc_ = it == assoc_factors_of_.end() ? AssocFactors{} : it->second;
  return *last_assoc_;
}

std::vector<PriorityFactors> PriorityCalculator::FactorsOf(const v1::Job& job) const {
  const AssocFactors assoc = AssocFactorsOf(job);
  std::vector<const v1::Partition*> partitions;
  for (const std::string& name : job.request().partitions()) {
    if (const v1::Partition* p = state_.FindPartition(name)) partitions.push_back(p);
  }
  if (partitions.empty()) {
    if (const v1::Partition* p = state_.FindPartition(job.partition())) partitions.push_back(p);
  }
  std::ranges::stable_sort(partitions, [](const v1::Partition* a, const v1::Partition* b) {
    return a->priority_tier() > b->priority_tier();
  });
  std::vector<PriorityFactors> out;
  out.reserve(partitions.size());
  for (const v1::Partition* p : partitions) out.push_back(FactorsIn(job, *p, assoc, true));
  return out;
}

uint32_t PriorityCalculator::PriorityOf(const v1::Job& job) const {
  if (!config_.multifactor) return state::PriorityFromNice(job.request().nice());
  if (last_partition_ == nullptr || last_partition_->name() != job.partition()) {
    last_partition_ = state_.FindPartition(job.partition());
  }
  const v1::Partition* own = last_partition_;
  if (own == nullptr) return 1;
  return FactorsIn(job, *own, AssocFactorsOf(job), false).priority;
}

}  // namespace gantry::sched
