#include "state/usage.h"

#include <cmath>
#include <vector>

#include "state/resources.h"

namespace gantry::state {
namespace {

void Decay(v1::UsageTally* tally, int64_t now, int64_t half_life_sec) {
  if (now <= tally->as_of()) return;
  if (half_life_sec > 0 && tally->as_of() != 0) {
    const double factor =
        std::exp2(-static_cast<double>(now - tally->as_of()) / static_cast<double>(half_life_sec));
    tally->set_wall_sec(tally->wall_sec() * factor);
    for (auto& [tres, sec] : *tally->mutable_tres_sec()) sec *= factor;
  }
  tally->set_as_of(now);
}

// Adds `wall_sec` of a job holding `tres`; billing counts exactly (`billing`), not truncated.
void Add(v1::UsageTally* tally, int64_t end, int64_t half_life_sec, double wall_sec,
         const TresAmounts& tres, double billing) {
  Decay(tally, end, half_life_sec);
  tally->set_wall_sec(tally->wall_sec() + wall_sec);
  for (const auto& [name, amount] : tres) {
    const double count = name == "billing" ? billing : static_cast<double>(amount);
    (*tally->mutable_tres_sec())[name] += count * wall_sec;
  }
}

// Takes `gone` (as of its own time) off `tally`.
void Subtract(v1::UsageTally* tally, const v1::UsageTally& gone, int64_t half_life_sec) {
  const v1::UsageTally now = DecayedUsage(gone, tally->as_of(), half_life_sec);
  tally->set_wall_sec(std::max(0.0, tally->wall_sec() - now.wall_sec()));
  for (auto& [tres, sec] : *tally->mutable_tres_sec()) {
    const auto it = now.tres_sec().find(tres);
    if (it != now.tres_sec().end()) sec = std::max(0.0, sec - it->second);
  }
}

}  // namespace

int64_t TresAmounts::Get(std::string_view tres) const {
  for (const Entry& e : entries_) {
    if (e.first == tres) return e.second;
  }
  return 0;
}

int64_t& TresAmounts::operator[](std::string_view tres) {
  for (Entry& e : entries_) {
    if (e.first == tres) return e.second;
  }
  entries_.reserve(6);
  return entries_.emplace_back(std::string(tres), 0).second;
}

int64_t JobBaseTres(const v1::Job& job, std::string_view tres) {
  const v1::JobRequest& r = job.request();
  const bool started = job.start_time() > 0 && job.nodes_size() > 0;
  const int64_t nodes = started ? job.nodes_size() : MinNodesOf(r);
  if (tres == "node") return nodes;
  if (tres == "billing" && job.has_billing()) return static_cast<int64_t>(job.billing());
  if (tres == "cpu" || tres == "billing") {
    return started ? job.num_cpus() : static_cast<int64_t>(TotalCpusOf(r));
  }
  if (tres == "mem") {
    return started ? static_cast<int64_t>(job.alloc_mem_mb())
                   : static_cast<int64_t>(MemPerNodeOf(r)) * nodes;
  }
  return 0;
}

double JobBilling(const v1::Job& job) {
  return job.has_billing() ? job.billing() : static_cast<double>(JobBaseTres(job, "cpu"));
}

TresAmounts JobTresOf(const v1::Job& job) {
  const v1::JobRequest& r = job.request();
  const int64_t nodes = JobBaseTres(job, "node");
  TresAmounts out;
  for (const char* tres : {"cpu", "mem", "node", "billing"}) out[tres] = JobBaseTres(job, tres);
  if (Result<NodeRequest> need = NodeRequestOf(r); need.ok()) {
    for (const text::GresSpec& g : need->gres) out["gres/" + g.name] += g.count * nodes;
  }
  return out;
}

v1::UsageTally DecayedUsage(const v1::UsageTally& tally, int64_t now, int64_t half_life_sec) {
  v1::UsageTally out = tally;
  Decay(&out, now, half_life_sec);
  return out;
}

std::vector<uint32_t> UsageAssociationsOf(const AccountingDb& db, const v1::Job& job) {
  std::vector<uint32_t> ids;
  if (const v1::Association* a =
          FindJobAssociation(db, job.user_name(), job.request().account(), job.partition())) {
    ids.push_back(a->id());
  }
  for (const v1::Association* up : AccountChain(db, job.request().account())) {
    ids.push_back(up->id());
  }
  return ids;
}

void AddJobUsage(const v1::Job& job, int64_t end, AccountingDb* db) {
  if (job.start_time() <= 0 || end <= job.start_time()) return;
  // The QOS's UsageFactor scales what the job counts for (0: nothing).
  const auto qos = db->qos.find(job.request().qos());
  const double factor =
      qos != db->qos.end() && qos->second.has_usage_factor() ? qos->second.usage_factor() : 1.0;
  if (factor <= 0) return;
  const double wall = static_cast<double>(end - job.start_time()) * factor;
  const TresAmounts tres = JobTresOf(job);
  const double billing = JobBilling(job);
  const int64_t half_life = db->usage_half_life_sec;
  for (uint32_t id : UsageAssociationsOf(*db, job)) {
    Add(&db->association_usage[id], end, half_life, wall, tres, billing);
  }
  if (!job.request().qos().empty() && db->qos.contains(job.request().qos())) {
    Add(&db->qos_usage[job.request().qos()], end, half_life, wall, tres, billing);
  }
}

void ResetUsage(const v1::AccountingChange& change, AccountingDb* db) {
  for (uint32_t id : change.reset_usage()) {
    const auto a = db->associations.find(id);
    const auto tally = db->association_usage.find(id);
    if (a == db->associations.end() || tally == db->association_usage.end()) continue;
    const v1::UsageTally gone = tally->second;
    // The accounts above keep their own usage less this one's.
    for (const v1::Association* up : AccountChain(*db, a->second.account())) {
      if (up->id() == id) continue;
      if (auto it = db->association_usage.find(up->id()); it != db->association_usage.end()) {
        Subtract(&it->second, gone, db->usage_half_life_sec);
      }
    }
    // An account's reset empties every association under it.
    if (a->second.user().empty()) {
      for (const auto& [other_id, other] : db->associations) {
        for (const v1::Association* up : AccountChain(*db, other.account())) {
          if (up->id() == id) db->association_usage.erase(other_id);
        }
      }
    }
    db->association_usage.erase(id);
  }
  for (const std::string& name : change.reset_qos_usage()) db->qos_usage.erase(name);
}

}  // namespace gantry::state
