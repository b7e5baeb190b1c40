#include "state/job_limits.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/pending_reason.h"
#include "text/tres.h"

namespace gantry::state {
namespace {

using model::PendingReason;
constexpr std::string_view Reason(PendingReason reason) { return model::PendingReasonName(reason); }

constexpr uint32_t kUnlimitedTime = 0xFFFFFFFF;
constexpr double kInfinite = std::numeric_limits<double>::infinity();

template <typename Map>
double Get(const Map& m, std::string_view key) {
  const auto it = m.find(key);
  return it == m.end() ? 0 : static_cast<double>(it->second);
}

bool Sets(const std::vector<std::pair<std::string, int64_t>>& list, std::string_view tres) {
  return std::ranges::any_of(list, [&](const auto& entry) { return entry.first == tres; });
}

}  // namespace

LimitedJob LimitedJobOf(const v1::Job& job, const v1::Association* association,
                        uint32_t time_limit_min) {
  LimitedJob out;
  out.user = job.user_name();
  out.qos = job.request().qos();
  out.account = job.request().account();
  out.association = association;
  out.tres = JobTresOf(job);
  out.nodes = std::max<int64_t>(1, out.tres.Get("node"));
  out.time_limit_min = time_limit_min == 0 ? kUnlimitedTime : time_limit_min;
  return out;
}

std::string LimitUse::QosUserKey(std::string_view qos, std::string_view user) {
  std::string key(qos);
  key.push_back('\0');
  key.append(user);
  return key;
}

const std::vector<const v1::Association*>& JobLimits::ChainOf(std::string_view account) {
  auto it = chains_.find(account);
  if (it == chains_.end()) {
    it = chains_.emplace(std::string(account), AccountChain(db_, account)).first;
  }
  return it->second;
}

namespace {

template <typename Entity>
std::array<std::vector<std::pair<std::string, int64_t>>, kTresLimitKinds> Parse(const Entity& e) {
  std::array<std::vector<std::pair<std::string, int64_t>>, kTresLimitKinds> out;
  for (size_t k = 0; k < kTresLimitKinds; ++k) {
    const std::string& limit = TresLimitText(e, static_cast<TresLimitKind>(k));
    if (limit.empty()) continue;
    Result<std::vector<text::TresCount>> counts = text::ParseTresCounts(limit);
    if (!counts.ok()) continue;  // sacctmgr checked it; an unreadable limit limits nothing
    for (const text::TresCount& c : *counts) out[k].emplace_back(c.key.ToString(), c.count);
  }
  return out;
}

}  // namespace

const JobLimits::Parsed& JobLimits::ParsedQos(const v1::Qos& q) {
  auto it = qos_.find(q.name());
  if (it == qos_.end()) it = qos_.emplace(q.name(), Parse(q)).first;
  return it->second;
}

const JobLimits::Parsed& JobLimits::ParsedAssociation(const v1::Association& a) {
  auto it = associations_.find(a.id());
  if (it == associations_.end()) it = associations_.emplace(a.id(), Parse(a)).first;
  return it->second;
}

const JobLimits::Effective& JobLimits::EffectiveOf(const v1::Association& a) {
  auto it = effective_.find(a.id());
  if (it != effective_.end()) return it->second;
  Effective e;
  e.counts = EffectiveMaxLimits(db_, a);
  std::vector<const v1::Association*> levels{&a};
  for (const v1::Association* up : ChainOf(a.account())) {
    if (up != &a) levels.push_back(up);
  }
  for (TresLimitKind kind :
       {TresLimitKind::kMaxPerJob, TresLimitKind::kMaxPerNode, TresLimitKind::kMaxMinsPerJob}) {
    TresList& into = e.tres[static_cast<size_t>(kind)];
    for (const v1::Association* level : levels) {
      for (const auto& entry : ParsedAssociation(*level)[static_cast<size_t>(kind)]) {
        if (!Sets(into, entry.first)) into.push_back(entry);
      }
    }
  }
  return effective_.emplace(a.id(), std::move(e)).first->second;
}

std::string_view JobLimits::Check(const LimitedJob& job, const LimitUse& use, int64_t now) {
  return Evaluate(job, &use, now);
}

std::string_view JobLimits::CheckStandAlone(const LimitedJob& job) {
  return Evaluate(job, nullptr, 0);
}

std::string_view JobLimits::Evaluate(const LimitedJob& job, const LimitUse* use, int64_t now) {
  static const InUse kNothing;
  static const LimitUse kNoUse;
  const bool alone = use == nullptr;
  const LimitUse& u = alone ? kNoUse : *use;
  const bool unlimited = job.time_limit_min == kUnlimitedTime;
  const int64_t nodes = std::max<int64_t>(1, job.nodes);
  auto amount = [&](std::string_view tres) { return static_cast<double>(job.tres.Get(tres)); };
  auto minutes = [&](std::string_view tres) {
    const double a = amount(tres);
    if (a == 0) return 0.0;
    return unlimited ? kInfinite : a * job.time_limit_min;
  };
  const v1::Qos* qos = nullptr;
  const Parsed* qos_limits = nullptr;
  if (const auto it = db_.qos.find(job.qos); it != db_.qos.end()) {
    qos = &it->second;
    qos_limits = &ParsedQos(*qos);
  }
  auto qos_sets = [&](TresLimitKind kind, std::string_view tres) {
    return qos_limits != nullptr && Sets((*qos_limits)[static_cast<size_t>(kind)], tres);
  };
  // The first TRES of `list` the job breaks (nullptr: none); `association`: the list is an
  // association's, whose TRES the QOS's list of the same kind replaces.
  auto broken = [&](TresLimitKind kind, const TresList& list, const InUse& in,
                    const v1::UsageTally* tally, bool association = false) -> const std::string* {
    for (const auto& [tres, limit_int] : list) {
      if (association && qos_sets(kind, tres)) continue;
      const auto limit = static_cast<double>(limit_int);
      bool over = false;
      switch (kind) {
        case TresLimitKind::kMaxPerJob:
          over = amount(tres) > limit;
          break;
        case TresLimitKind::kMaxPerNode:
          over =
              (tres == "node" ? 1.0 : std::ceil(amount(tres) / static_cast<double>(nodes))) > limit;
          break;
        case TresLimitKind::kMaxMinsPerJob:
          over = minutes(tres) > limit;
          break;
        case TresLimitKind::kMinPerJob:
          over = amount(tres) < limit;
          break;
        case TresLimitKind::kGrp:
        case TresLimitKind::kMaxPerUser:
          over = static_cast<double>(in.tres.Get(tres)) + amount(tres) > limit;
          break;
        case TresLimitKind::kGrpRunMins:
          over = Get(in.run_mins, tres) + minutes(tres) > limit;
          break;
        case TresLimitKind::kGrpMins: {
          double used = Get(in.used_mins, tres);
          if (tally != nullptr) used += Get(tally->tres_sec(), tres) / 60;
          over = (!alone && used >= limit) || minutes(tres) > limit ||
                 (safe_ && !alone && used + Get(in.run_mins, tres) + minutes(tres) > limit);
          break;
        }
      }
      if (over) return &tres;
    }
    return nullptr;
  };
  auto find = [&](const auto& map, const auto& key) -> const InUse& {
    const auto it = map.find(key);
    return it == map.end() ? kNothing : it->second;
  };
  // A tally read at `now` (kept while `now` stays the same); nullptr when not needed or none.
  if (now != tallies_now_) {
    tallies_now_ = now;
    qos_tallies_.clear();
    association_tallies_.clear();
  }
  auto tally_of = [&](const auto& map, const auto& key, auto& cache,
                      bool needed) -> const v1::UsageTally* {
    if (alone || !needed) return nullptr;
    auto cached = cache.find(key);
    if (cached == cache.end()) {
      const auto it = map.find(key);
      if (it == map.end()) return nullptr;
      cached = cache.emplace(key, DecayedUsage(it->second, now, db_.usage_half_life_sec)).first;
    }
    return &cached->second;
  };
  // GrpWall: the wall minutes used reach the limit (with safe: the job's time limit would pass
  // it).
  auto wall_over = [&](const InUse& in, const v1::UsageTally* t, uint32_t limit) {
    const double used = in.wall_min + (t != nullptr ? t->wall_sec() / 60 : 0);
    if (!safe_) return used >= limit;
    return used + (unlimited ? kInfinite : static_cast<double>(job.time_limit_min)) > limit;
  };

  if (qos != nullptr) {
    const Parsed& q = *qos_limits;
    const InUse& in_qos = find(u.qos, job.qos);
    if (qos->has_max_wall_min() && job.time_limit_min > qos->max_wall_min()) {
      return Reason(PendingReason::kQosMaxWallDurationPerJobLimit);
    }
    for (TresLimitKind kind :
         {TresLimitKind::kMaxPerJob, TresLimitKind::kMaxPerNode, TresLimitKind::kMaxMinsPerJob}) {
      const std::string* tres = broken(kind, q[static_cast<size_t>(kind)], kNothing, nullptr);
      if (tres != nullptr) return TresLimitReason(true, kind, *tres);
    }
    const v1::UsageTally* t = tally_of(
        db_.qos_usage, job.qos, qos_tallies_,
        qos->has_grp_wall_min() || !q[static_cast<size_t>(TresLimitKind::kGrpMins)].empty());
    if (!alone && qos->has_grp_wall_min() && wall_over(in_qos, t, qos->grp_wall_min())) {
      return Reason(PendingReason::kQosGrpWallLimit);
    }
    for (TresLimitKind kind : {TresLimitKind::kGrpMins, TresLimitKind::kGrpRunMins}) {
      const std::string* tres = broken(kind, q[static_cast<size_t>(kind)], in_qos, t);
      if (tres != nullptr) return TresLimitReason(true, kind, *tres);
    }
    if (!alone && qos->has_grp_jobs() && in_qos.jobs >= qos->grp_jobs())
      return Reason(PendingReason::kQosGrpJobsLimit);
    const auto grp = static_cast<size_t>(TresLimitKind::kGrp);
    if (const std::string* tres = broken(TresLimitKind::kGrp, q[grp], in_qos, nullptr)) {
      return TresLimitReason(true, TresLimitKind::kGrp, *tres);
    }
    const InUse& mine = find(u.qos_user, LimitUse::QosUserKey(job.qos, job.user));
    if (!alone && qos->has_max_jobs_per_user() && mine.jobs >= qos->max_jobs_per_user()) {
      return Reason(PendingReason::kQosMaxJobsPerUserLimit);
    }
    const auto per_user = static_cast<size_t>(TresLimitKind::kMaxPerUser);
    if (const std::string* tres = broken(TresLimitKind::kMaxPerUser, q[per_user], mine, nullptr)) {
      return TresLimitReason(true, TresLimitKind::kMaxPerUser, *tres);
    }
  }

  if (job.association != nullptr) {
    const Effective& max = EffectiveOf(*job.association);
    if (max.counts.max_wall_min && !(qos != nullptr && qos->has_max_wall_min()) &&
        job.time_limit_min > *max.counts.max_wall_min) {
      return Reason(PendingReason::kAssocMaxWallDurationPerJobLimit);
    }
    for (TresLimitKind kind :
         {TresLimitKind::kMaxPerJob, TresLimitKind::kMaxPerNode, TresLimitKind::kMaxMinsPerJob}) {
      const std::string* tres =
          broken(kind, max.tres[static_cast<size_t>(kind)], kNothing, nullptr, true);
      if (tres != nullptr) return TresLimitReason(false, kind, *tres);
    }
    if (!alone && max.counts.max_jobs && !(qos != nullptr && qos->has_max_jobs_per_user())) {
      const auto it = u.association_jobs.find(job.association->id());
      if (it != u.association_jobs.end() && it->second >= *max.counts.max_jobs) {
        return Reason(PendingReason::kAssocMaxJobsLimit);
      }
    }
    for (const v1::Association* up : ChainOf(job.account)) {
      const Parsed& limits = ParsedAssociation(*up);
      const InUse& in = find(u.account, up->account());
      const v1::UsageTally* t = tally_of(
          db_.association_usage, up->id(), association_tallies_,
          up->has_grp_wall_min() || !limits[static_cast<size_t>(TresLimitKind::kGrpMins)].empty());
      if (!alone && up->has_grp_wall_min() && !(qos != nullptr && qos->has_grp_wall_min()) &&
          wall_over(in, t, up->grp_wall_min())) {
        return Reason(PendingReason::kAssocGrpWallLimit);
      }
      for (TresLimitKind kind : {TresLimitKind::kGrpMins, TresLimitKind::kGrpRunMins}) {
        const std::string* tres = broken(kind, limits[static_cast<size_t>(kind)], in, t, true);
        if (tres != nullptr) return TresLimitReason(false, kind, *tres);
      }
      if (!alone && up->has_grp_jobs() && !(qos != nullptr && qos->has_grp_jobs()) &&
          in.jobs >= up->grp_jobs()) {
        return Reason(PendingReason::kAssocGrpJobsLimit);
      }
      const std::string* tres = broken(
          TresLimitKind::kGrp, limits[static_cast<size_t>(TresLimitKind::kGrp)], in, nullptr, true);
      if (tres != nullptr) return TresLimitReason(false, TresLimitKind::kGrp, *tres);
    }
  }

  if (qos_limits != nullptr) {
    const auto min = static_cast<size_t>(TresLimitKind::kMinPerJob);
    if (const std::string* tres =
            broken(TresLimitKind::kMinPerJob, (*qos_limits)[min], kNothing, nullptr)) {
      return TresLimitReason(true, TresLimitKind::kMinPerJob, *tres);
    }
  }
  return "";
}

void JobLimits::Count(const LimitedJob& job, LimitUse* use) {
  const bool unlimited = job.time_limit_min == kUnlimitedTime;
  const double left =
      unlimited ? kInfinite
                : std::max(0.0, static_cast<double>(job.time_limit_min) - job.elapsed_min);
  auto add = [&](InUse* in) {
    ++in->jobs;
    in->wall_min += job.elapsed_min;
    for (const auto& [tres, amount] : job.tres) {
      in->tres[tres] += amount;
      if (amount == 0) continue;
      in->run_mins[tres] += static_cast<double>(amount) * left;
      in->used_mins[tres] += static_cast<double>(amount) * job.elapsed_min;
    }
  };
  add(&use->qos[job.qos]);
  add(&use->qos_user[LimitUse::QosUserKey(job.qos, job.user)]);
  if (job.association != nullptr) ++use->association_jobs[job.association->id()];
  for (const v1::Association* up : ChainOf(job.account)) add(&use->account[up->account()]);
}

}  // namespace gantry::state
