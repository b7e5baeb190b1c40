#include "state/admission.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "model/job_state.h"
#include "model/pending_reason.h"
#include "state/job_limits.h"
#include "state/priority.h"
#include "state/resources.h"
#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/dependency.h"
#include "text/hostlist.h"

namespace gantry::state {
namespace {

// Slurm's texts (src/common/slurm_errno.c).
constexpr char kInvalidPartition[] = "Invalid partition name specified";
constexpr char kPartitionAssoc[] =
    "Multiple partition job request not supported when a partition is set in the association";
constexpr char kNoDefaultPartition[] = "No partition specified or system default partition";
constexpr char kPartitionNotAvail[] = "Required partition not available (inactive or drain)";
constexpr char kAccessDenied[] = "Access/permission denied";
constexpr char kGroupDenied[] = "User's group not permitted to use this partition";
constexpr char kInvalidNice[] = "Invalid --nice value";
constexpr char kInvalidNodeCount[] = "Node count specification invalid";
constexpr char kInvalidNodeName[] = "Invalid node name specified";
constexpr char kNodesNotInPartition[] = "Requested nodes not in this partition";
constexpr char kInvalidGres[] = "Invalid generic resource (gres) specification";
constexpr char kInvalidFeature[] = "Invalid feature specification";
constexpr char kNodeConfig[] = "Requested node configuration is not available";
constexpr char kInvalidMemory[] = "Memory required by task is not available";
constexpr char kInvalidTimeLimit[] =
    "Requested time limit is invalid (missing or exceeds some limit)";
constexpr char kInvalidTimeMin[] =
    "Invalid time-min specification (exceeds job's time or other limits)";
constexpr char kInvalidArray[] = "Invalid job array specification";
constexpr char kDependencyProblem[] = "Job dependency problem";
constexpr char kInvalidAccount[] = "Invalid account or account/partition combination specified";
constexpr char kInvalidQos[] = "Invalid qos specification";

// Slurm's nice range (NICE_OFFSET - 3).
constexpr int64_t kMaxNice = 2147483645;

bool IsAll(std::string_view list) { return list.empty() || text::EqualsIgnoreCase(list, "ALL"); }

bool InList(std::string_view list, std::string_view item) {
  return std::ranges::any_of(text::Split(list, ','),
                             [&](std::string_view x) { return !x.empty() && x == item; });
}

// Node indexes of a -w/-x hostlist, without repeats.
Result<std::vector<uint32_t>> ResolveHosts(const ClusterState& state, std::string_view expr) {
  std::optional<std::vector<uint32_t>> nodes = state.NodeIndexesOf(expr);
  if (!nodes) return InvalidArgument(kInvalidNodeName);
  return *std::move(nodes);
}

bool Contains(const std::vector<uint32_t>& v, uint32_t x) {
  return std::ranges::find(v, x) != v.end();
}

// What the job becomes if it goes to one partition.
// The job's account and QOS under AccountingStorageEnforce: the account (given, else the user's
// default), its association for the first partition of `parts` (every other one must resolve to
// that same association, as in slurmctld), and the QOS (given, else the association's default)
// that the association allows. Without enforcement, a known user's jobs still get its
// default account and the QOS "normal".
struct AccountingChoice {
  std::string account;
  std::string qos;
  const v1::Association* association = nullptr;  // the first partition's (when enforced)
};
Result<AccountingChoice> ChooseAccounting(const ClusterState& state, const v1::JobRequest& request,
                                          const Caller& caller, const AdmitOptions& options,
                                          const std::vector<size_t>& parts) {
  const AccountingDb& db = state.accounting;
  AccountingChoice out{request.account(), request.qos()};
  const auto user = db.users.find(caller.user_name);
  if (out.account.empty() && user != db.users.end()) out.account = user->second.default_account();
  if (!options.enforce_associations) {
    if (out.qos.empty() && !db.qos.empty()) out.qos = "normal";
    return out;
  }
  if (user == db.users.end() || !db.accounts.contains(out.account)) {
    return InvalidArgument(kInvalidAccount);
  }
  // Slurm 22.05 (job_mgr.c, _check_for_part_assocs): the association of the first partition
  // named, and every other partition named must have that same association.
  const v1::Association* first =
      FindJobAssociation(db, caller.user_name, out.account, state.partitions[parts.front()].name());
  if (first == nullptr) return InvalidArgument(kInvalidAccount);
  for (size_t p : parts) {
    if (FindJobAssociation(db, caller.user_name, out.account, state.partitions[p].name()) !=
        first) {
      return InvalidArgument(kPartitionAssoc);
    }
  }
  out.association = first;
  if (out.qos.empty()) out.qos = DefaultQosOf(*first);
  if (!db.qos.contains(out.qos)) return InvalidArgument(kInvalidQos);
  if (options.enforce_qos &&
      std::find(first->qos().begin(), first->qos().end(), out.qos) == first->qos().end()) {
    return InvalidArgument(kInvalidQos);
  }
  return out;
}

// Jobs an array or a job stands for in submit limits: each pending task of an array's record.
uint32_t JobsCounted(const v1::Job& job) {
  return std::max<uint32_t>(1, static_cast<uint32_t>(job.array_pending_tasks_size()));
}

bool InAccount(const AccountingDb& db, std::string account, std::string_view ancestor) {
  for (size_t steps = 0; !account.empty() && steps <= db.accounts.size(); ++steps) {
    if (account == ancestor) return true;
    const auto it = db.accounts.find(account);
    if (it == db.accounts.end()) return false;
    account = it->second.parent();
  }
  return false;
}

constexpr char kSubmitPolicy[] =
    "\nJob violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

// The QOS's MaxSubmitJobsPerUser (the user's jobs in that QOS not finished) and GrpSubmitJobs
// (every job in it not finished).
Status CheckQosSubmitLimit(const ClusterState& state, const std::string& qos_name,
                           const std::string& user, uint32_t adding) {
  const auto qos = state.accounting.qos.find(qos_name);
  if (qos == state.accounting.qos.end()) return Status::Ok();
  const v1::Qos& q = qos->second;
  if (!q.has_max_submit_jobs_per_user() && !q.has_grp_submit_jobs()) return Status::Ok();
  uint64_t mine = 0;
  uint64_t all = 0;
  for (const auto& [id, job] : state.jobs) {
    if (model::IsFinished(static_cast<model::JobBaseState>(job.state()))) continue;
    if (job.request().qos() != qos_name) continue;
    all += JobsCounted(job);
    if (job.user_name() == user) mine += JobsCounted(job);
  }
  if (q.has_grp_submit_jobs() && all + adding > q.grp_submit_jobs()) {
    return InvalidArgument(std::string("QOSGrpSubmitJobsLimit") + kSubmitPolicy);
  }
  if (q.has_max_submit_jobs_per_user() && mine + adding > q.max_submit_jobs_per_user()) {
    return InvalidArgument(std::string("QOSMaxSubmitJobPerUserLimit") + kSubmitPolicy);
  }
  return Status::Ok();
}

// DenyOnLimit on the job's QOS: the job on its own breaks a limit of its QOS or association
// (state/job_limits.h's stand-alone check).
Status CheckDenyOnLimit(const ClusterState& state, const v1::Job& job) {
  const AccountingDb& db = state.accounting;
  const auto qos = db.qos.find(job.request().qos());
  if (qos == db.qos.end() || std::ranges::none_of(qos->second.flags(), [](const std::string& flag) {
        return text::EqualsIgnoreCase(flag, "DenyOnLimit");
      })) {
    return Status::Ok();
  }
  const LimitedJob limited = LimitedJobOf(
      job, FindJobAssociation(db, job.user_name(), job.request().account(), job.partition()),
      job.time_limit_min());
  JobLimits limits(db);
  const std::string_view reason = limits.CheckStandAlone(limited);
  if (reason.empty()) return Status::Ok();
  return InvalidArgument(std::string(reason) + kSubmitPolicy);
}

// MaxSubmitJobs (the association's, or the first set up its account chain) and GrpSubmitJobs
// (every account association above): jobs not finished, counting each pending array task.
Status CheckSubmitLimits(const ClusterState& state, const v1::Association& assoc,
                         const std::string& user, const std::string& qos_name, uint32_t adding) {
  const AccountingDb& db = state.accounting;
  MaxLimits max = EffectiveMaxLimits(db, assoc);
  // The QOS's own limits replace the association's.
  const auto qos = db.qos.find(qos_name);
  const bool qos_per_user = qos != db.qos.end() && qos->second.has_max_submit_jobs_per_user();
  const bool qos_group = qos != db.qos.end() && qos->second.has_grp_submit_jobs();
  if (qos_per_user) max.max_submit_jobs.reset();
  std::vector<const v1::Association*> groups;
  for (const v1::Association* a : AccountChain(db, assoc.account())) {
    if (a->has_grp_submit_jobs() && !qos_group) groups.push_back(a);
  }
  if (!max.max_submit_jobs && groups.empty()) return Status::Ok();
  uint64_t mine = 0;
  std::vector<uint64_t> in_group(groups.size(), 0);
  for (const auto& [id, job] : state.jobs) {
    if (model::IsFinished(static_cast<model::JobBaseState>(job.state()))) continue;
    if (max.max_submit_jobs && job.user_name() == user &&
        job.request().account() == assoc.account() &&
        FindJobAssociation(db, user, assoc.account(), job.partition()) == &assoc) {
      mine += JobsCounted(job);
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      if (InAccount(db, job.request().account(), groups[g]->account())) {
        in_group[g] += JobsCounted(job);
      }
    }
  }
  if (max.max_submit_jobs && mine + adding > *max.max_submit_jobs) {
    return InvalidArgument(std::string("AssocMaxSubmitJobLimit") + kSubmitPolicy);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (in_group[g] + adding > groups[g]->grp_submit_jobs()) {
      return InvalidArgument(std::string("AssocGrpSubmitJobsLimit") + kSubmitPolicy);
    }
  }
  return Status::Ok();
}

struct Candidate {
  v1::JobRequest request;  // with this partition's defaults
  uint32_t time_limit = 0;
};

// Checks the job against partition `p` and fills the partition's defaults; the error is the one
// Slurm would give for this partition.
Result<Candidate> CheckPartition(const ClusterState& state, size_t p, const v1::JobRequest& in,
                                 const Caller& caller, const AccountingChoice& accounting,
                                 const std::vector<uint32_t>& req, const std::vector<uint32_t>& exc,
                                 const NodeConfigs& configs, const AdmitOptions& options) {
  const v1::Partition& part = state.partitions[p];
  const std::vector<uint32_t>& members = state.partition_nodes[p];
  const bool root = caller.uid == 0;
  if (text::EqualsIgnoreCase(part.state(), "DRAIN") ||
      text::EqualsIgnoreCase(part.state(), "INACTIVE")) {
    return InvalidArgument(kPartitionNotAvail);
  }
  if (part.root_only() && !root) return PermissionDenied(kAccessDenied);
  if (!IsAll(part.allow_groups()) && !root &&
      std::ranges::none_of(caller.group_names,
                           [&](const std::string& g) { return InList(part.allow_groups(), g); }) &&
      !InList(part.allow_groups(), caller.group_name)) {
    return PermissionDenied(kGroupDenied);
  }
  if (!IsAll(part.allow_accounts()) && !InList(part.allow_accounts(), accounting.account)) {
    return InvalidArgument(kInvalidAccount);
  }
  if (!IsAll(part.allow_qos()) && !accounting.qos.empty() &&
      !InList(part.allow_qos(), accounting.qos)) {
    return InvalidArgument(kInvalidQos);
  }
  for (uint32_t i : req) {
    if (!Contains(members, i)) return InvalidArgument(kNodesNotInPartition);
  }

  Candidate c;
  c.request = in;
  v1::JobRequest& r = c.request;
  // Nodes: enough for the tasks and, when -N is not given, for all the CPUs on the largest
  // nodes of the partition.
  uint32_t nodes = std::max<uint32_t>(1, r.min_nodes());
  if (r.min_nodes() == 0) {
    if (r.num_tasks() > 0 && r.ntasks_per_node() > 0) {
      nodes = std::max(nodes, (r.num_tasks() + r.ntasks_per_node() - 1) / r.ntasks_per_node());
    }
    uint32_t largest = 0;
    if (exc.empty()) {
      for (uint32_t k : configs.of_partition[p]) {
        largest = std::max(largest, configs.capacities[k].cpus);
      }
    } else {
      for (uint32_t i : members) {
        if (!Contains(exc, i)) largest = std::max(largest, configs.Of(i).cpus);
      }
    }
    if (r.num_tasks() > 0 && largest > 0) {
      const uint64_t total = uint64_t{r.num_tasks()} * CpusPerTaskOf(r);
      nodes = std::max<uint64_t>(nodes, (total + largest - 1) / largest);
    }
    if (r.max_nodes() != 0) nodes = std::min(nodes, r.max_nodes());
  }
  nodes = std::max(nodes, static_cast<uint32_t>(req.size()));
  r.set_min_nodes(nodes);

  // Memory default.
  if (r.mem_per_node_mb() == 0 && r.mem_per_cpu_mb() == 0) {
    if (part.def_mem_per_cpu_mb() > 0) {
      r.set_mem_per_cpu_mb(part.def_mem_per_cpu_mb());
    } else if (part.def_mem_per_node_mb() > 0) {
      r.set_mem_per_node_mb(part.def_mem_per_node_mb());
    }
  }
  if (part.max_mem_per_node_mb() > 0 && MemPerNodeOf(r) > part.max_mem_per_node_mb()) {
    return InvalidArgument(kInvalidMemory);
  }
  if (part.max_mem_per_cpu_mb() > 0) {
    const uint64_t per_cpu = r.mem_per_cpu_mb() > 0
                                 ? r.mem_per_cpu_mb()
                                 : (r.mem_per_node_mb() + CpusPerNodeOf(r) - 1) / CpusPerNodeOf(r);
    if (per_cpu > part.max_mem_per_cpu_mb()) return InvalidArgument(kInvalidMemory);
  }

  // Some node of the partition must hold one node's share (the count is the scheduler's
  // business: PartitionConfig).
  auto need = NodeRequestOf(r);
  if (!need.ok()) return need.status();
  for (uint32_t i : req) {
    if (!Fits(configs.Of(i), *need)) return InvalidArgument(kNodeConfig);
  }
  const bool any_fits =
      exc.empty()
          ? std::ranges::any_of(configs.of_partition[p],
                                [&](uint32_t k) { return Fits(configs.capacities[k], *need); })
          : std::ranges::any_of(members, [&](uint32_t i) {
              return !Contains(exc, i) && Fits(configs.Of(i), *need);
            });
  if (!any_fits) return InvalidArgument(kNodeConfig);

  // Time limit.
  const uint32_t max_time = part.max_time_min() == 0 ? kUnlimited : part.max_time_min();
  c.time_limit = r.time_limit_min() != 0
                     ? r.time_limit_min()
                     : (part.default_time_min() != 0 ? part.default_time_min() : max_time);
  if (r.time_min_min() != 0 && c.time_limit != kUnlimited && r.time_min_min() > c.time_limit) {
    return InvalidArgument(kInvalidTimeMin);
  }

  if (options.enforce_part_limits) {
    const uint32_t max_nodes = r.max_nodes() != 0 ? r.max_nodes() : nodes;
    const uint32_t part_max_nodes = part.max_nodes() == 0 ? kUnlimited : part.max_nodes();
    if (nodes > members.size() || nodes > part_max_nodes || max_nodes < part.min_nodes()) {
      return InvalidArgument(kInvalidNodeCount);
    }
    if (max_time != kUnlimited && c.time_limit > max_time) {
      return InvalidArgument(kInvalidTimeLimit);
    }
  }
  return c;
}

bool ParseNumber(std::string_view text, uint64_t* out) {
  if (text.empty() || !std::ranges::all_of(text, text::IsAsciiDigit)) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

AdmitOptions AdmitOptionsFromConfig(const spec::EffectiveConfig& config) {
  AdmitOptions options;
  options.job_requeue_default = config.Get("JobRequeue") != "0";
  const std::string enforce = config.Get("EnforcePartLimits");
  options.enforce_part_limits = !enforce.empty() && !text::EqualsIgnoreCase(enforce, "NO");
  // AccountingStorageEnforce: limits, qos and safe need associations as well.
  const std::string enforce_accounting = config.Get("AccountingStorageEnforce");
  for (std::string_view word : text::Split(enforce_accounting, ',')) {
    const std::string w = text::AsciiToLower(word);
    if (w == "associations" || w == "limits" || w == "qos" || w == "safe" || w == "all") {
      options.enforce_associations = true;
    }
    if (w == "qos" || w == "all") options.enforce_qos = true;
    if (w == "limits" || w == "safe" || w == "all") options.enforce_limits = true;
    if (w == "safe") options.enforce_safe = true;
    if (w == "nojobs") options.enforce_nojobs = options.enforce_nosteps = true;
    if (w == "nosteps") options.enforce_nosteps = true;
  }
  uint64_t number = 0;
  if (ParseNumber(config.Get("MaxArraySize"), &number) && number <= UINT32_MAX) {
    options.max_array_size = static_cast<uint32_t>(number);
  }
  if (ParseNumber(config.Get("MaxJobCount"), &number) && number > 0 && number <= UINT32_MAX) {
    options.max_job_count = static_cast<uint32_t>(number);
  }
  if (ParseNumber(config.Get("MaxStepCount"), &number) && number > 0 && number <= UINT32_MAX) {
    options.max_step_count = static_cast<uint32_t>(number);
  }
  const std::string scheduler_parameters = config.Get("SchedulerParameters");
  for (std::string_view item : text::Split(scheduler_parameters, ',')) {
    constexpr std::string_view kKey = "max_script_size=";
    if (item.starts_with(kKey) && ParseNumber(item.substr(kKey.size()), &number)) {
      options.max_script_bytes = number;
    }
  }
  return options;
}

namespace {

constexpr char kTooLong[] = "Pathname of a file, directory or other parameter too long";

// The one table of text limits (slurmctld's _test_job_desc_fields): every string field of
// JobRequest not named here takes 1024 bytes.
constexpr size_t kDefaultFieldBytes = 1024;
constexpr std::pair<std::string_view, size_t> kFieldBytes[] = {
    {"work_dir", 4096},     {"std_in", 4096},          {"std_out", 4096},
    {"std_err", 4096},      {"command", 4096},         {"submit_dir", 4096},
    {"array", 4096},        {"dependency", 128 << 10}, {"export_env", 128 << 10},
    {"req_nodes", 1 << 20}, {"exc_nodes", 1 << 20},
};

size_t FieldLimit(std::string_view name) {
  for (const auto& [field, bytes] : kFieldBytes) {
    if (field == name) return bytes;
  }
  return kDefaultFieldBytes;
}

}  // namespace

// Calls fn(field name, its texts) for every string field of the request (a repeated one's
// values in order), until fn returns a non-empty text, which it returns.
template <typename Fn>
std::string FirstOfTexts(const v1::JobRequest& request, Fn fn) {
  const google::protobuf::Descriptor* d = v1::JobRequest::GetDescriptor();
  const google::protobuf::Reflection* r = v1::JobRequest::GetReflection();
  std::vector<std::string_view> texts;
  std::string scratch;
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_STRING) continue;
    texts.clear();
    if (f->is_repeated()) {
      for (int k = 0; k < r->FieldSize(request, f); ++k) {
        texts.push_back(r->GetRepeatedStringReference(request, f, k, nullptr));
      }
    } else {
      texts.push_back(r->GetStringReference(request, f, &scratch));
    }
    if (std::string found = fn(f->name(), texts); !found.empty()) return found;
  }
  return "";
}

std::string FieldTooLong(const v1::JobRequest& request) {
  return FirstOfTexts(
      request,
      [](const std::string& name, const std::vector<std::string_view>& texts) -> std::string {
        // -p a,b: the list as slurmctld gets it, commas included.
        size_t bytes = texts.empty() ? 0 : texts.size() - 1;
        for (std::string_view t : texts) bytes += t.size();
        const size_t limit = FieldLimit(name);
        if (bytes <= limit) return "";
        return name + ": " + std::to_string(bytes) + " bytes, at most " + std::to_string(limit);
      });
}

namespace {

// "<field>: holds the control character 0xNN; ..." for the first one in `text`, else "".
std::string ControlCharacterIn(std::string_view field, std::string_view text) {
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) continue;
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%02x", c);
    return std::string(field) + ": holds the control character " + hex +
           "; texts other users see may hold none";
  }
  return "";
}

}  // namespace

Status CheckRequestTexts(const v1::JobRequest& request) {
  const std::string found = FirstOfTexts(
      request,
      [](const std::string& name, const std::vector<std::string_view>& texts) -> std::string {
        if (name == "export_env") return "";  // the job's own environment
        for (std::string_view t : texts) {
          if (std::string bad = ControlCharacterIn(name, t); !bad.empty()) return bad;
        }
        return "";
      });
  return found.empty() ? Status::Ok() : InvalidArgument(found);
}

Status CheckStepName(std::string_view name) {
  if (name.size() > kDefaultFieldBytes) return InvalidArgument(kTooLong);
  if (std::string found = ControlCharacterIn("name", name); !found.empty()) {
    return InvalidArgument(found);
  }
  return Status::Ok();
}

Status CheckRequestLengths(const v1::JobRequest& request) {
  if (!FieldTooLong(request).empty()) return InvalidArgument(kTooLong);
  return Status::Ok();
}

Status CheckPayloadSize(const v1::JobPayload& payload, const AdmitOptions& options) {
  if (payload.script().size() > options.max_script_bytes) return InvalidArgument(kTooLong);
  return Status::Ok();
}

Result<v1::Job> AdmitJob(const ClusterState& state, const v1::JobRequest& request,
                         const Caller& caller, int64_t now, const AdmitOptions& options) {
  GANTRY_RETURN_IF_ERROR(CheckRequestLengths(request));
  GANTRY_RETURN_IF_ERROR(CheckRequestTexts(request));
  text::ArraySpec array;
  if (!request.array().empty()) {
    Result<text::ArraySpec> parsed = text::ParseArraySpec(request.array(), options.max_array_size);
    if (!parsed.ok()) return InvalidArgument(kInvalidArray);
    array = std::move(parsed).value();
  }
  if (!request.dependency().empty()) {
    Result<text::Dependency> dep = text::ParseDependency(request.dependency());
    if (!dep.ok()) return InvalidArgument(kDependencyProblem);
    for (const text::DependencyTerm& term : dep->terms) {
      if (term.type == text::DependencyType::kAfterBurstBuffer) {
        return InvalidArgument(
            "burst buffers are not supported (--dependency=" + request.dependency() + ")");
      }
    }
  }

  // Partitions, in the order given, without repeats.
  std::vector<size_t> parts;
  if (request.partitions().empty()) {
    const v1::Partition* def = state.DefaultPartition();
    if (def == nullptr) return InvalidArgument(kNoDefaultPartition);
    parts.push_back(static_cast<size_t>(def - state.partitions.data()));
  }
  for (const std::string& name : request.partitions()) {
    const int p = state.PartitionIndex(name);
    if (p < 0) return InvalidArgument(kInvalidPartition);
    if (std::ranges::find(parts, static_cast<size_t>(p)) == parts.end()) parts.push_back(p);
  }

  GANTRY_ASSIGN_OR_RETURN(const AccountingChoice accounting,
                          ChooseAccounting(state, request, caller, options, parts));
  if (options.enforce_limits) {
    const uint32_t adding = array.tasks.empty() ? 1 : static_cast<uint32_t>(array.tasks.size());
    GANTRY_RETURN_IF_ERROR(CheckQosSubmitLimit(state, accounting.qos, caller.user_name, adding));
    if (accounting.association != nullptr) {
      GANTRY_RETURN_IF_ERROR(CheckSubmitLimits(state, *accounting.association, caller.user_name,
                                               accounting.qos, adding));
    }
  }

  const bool privileged = caller.uid == 0 || caller.is_operator;
  if ((request.nice() < 0 && !privileged) || request.nice() > kMaxNice ||
      request.nice() < -kMaxNice) {
    return InvalidArgument(kInvalidNice);
  }
  if (request.max_nodes() != 0 && request.min_nodes() > request.max_nodes()) {
    return InvalidArgument(kInvalidNodeCount);
  }
  GANTRY_ASSIGN_OR_RETURN(const std::vector<uint32_t> req,
                          ResolveHosts(state, request.req_nodes()));
  GANTRY_ASSIGN_OR_RETURN(const std::vector<uint32_t> exc,
                          ResolveHosts(state, request.exc_nodes()));
  if (request.max_nodes() != 0 && req.size() > request.max_nodes()) {
    return InvalidArgument(kInvalidNodeCount);
  }
  if (std::ranges::any_of(req, [&](uint32_t i) { return Contains(exc, i); })) {
    return InvalidArgument(kNodeConfig);
  }

  // GRES and features must at least exist somewhere before sizes matter.
  GANTRY_ASSIGN_OR_RETURN(const NodeRequest need, NodeRequestOf(request));
  NodeConfigs scratch;
  const NodeConfigs& configs = ConfigsOf(state, &scratch);
  if (!need.gres.empty() && std::ranges::none_of(configs.capacities, [&](const NodeCapacity& c) {
        return HasGresNames(c, need.gres);
      })) {
    return InvalidArgument(kInvalidGres);
  }
  for (const std::vector<std::string>& all : need.features.alternatives) {
    for (const std::string& feature : all) {
      const bool known = std::ranges::any_of(parts, [&](size_t p) {
        return std::ranges::any_of(configs.of_partition[p], [&](uint32_t k) {
          const std::vector<std::string>& features = configs.capacities[k].features;
          return std::ranges::find(features, feature) != features.end();
        });
      });
      if (!known) return InvalidArgument(kInvalidFeature);
    }
  }

  // The first partition the job is valid for; else the first partition's error.
  Status first_error;
  Candidate chosen;
  size_t chosen_part = 0;
  bool found = false;
  for (size_t p : parts) {
    auto candidate =
        CheckPartition(state, p, request, caller, accounting, req, exc, configs, options);
    if (candidate.ok()) {
      chosen = std::move(candidate).value();
      chosen_part = p;
      found = true;
      break;
    }
    if (first_error.ok()) first_error = candidate.status();
  }
  if (!found) return first_error;

  v1::Job job;
  v1::JobRequest& r = *job.mutable_request();
  r = std::move(chosen.request);
  if (r.partitions().empty()) r.add_partitions(state.partitions[chosen_part].name());
  if (r.name().empty()) r.set_name("sbatch");
  r.set_account(accounting.account);
  r.set_qos(accounting.qos);
  job.set_user_id(caller.uid);
  job.set_group_id(caller.gid);
  job.set_user_name(caller.user_name);
  job.set_group_name(caller.group_name);
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kPending));
  job.set_state_flags(0);
  const bool held = r.hold();
  const bool later = r.begin_time() > now;
  job.set_priority(held ? 0 : PriorityFromNice(r.nice()));
  job.set_reason(std::string(model::PendingReasonName(
      held ? model::PendingReason::kJobHeldUser
           : (later ? model::PendingReason::kBeginTime : model::PendingReason::kNone))));
  job.set_batch_flag(!r.allocation_only());
  job.set_exit_status(-1);
  job.set_submit_time(now);
  job.set_eligible_time(held ? 0 : std::max(now, r.begin_time()));
  job.set_accrue_time(held || later ? 0 : now);
  job.set_partition(state.partitions[chosen_part].name());
  job.set_num_cpus(static_cast<uint32_t>(std::min<uint64_t>(TotalCpusOf(r), UINT32_MAX)));
  job.set_time_limit_min(chosen.time_limit);
  job.set_requeue(r.requeue() == 0 ? options.job_requeue_default : r.requeue() == 1);
  // An array: the caller sets array_job_id to the id it gives the record.
  for (uint32_t task : array.tasks) job.add_array_pending_tasks(task);
  job.set_array_task_throttle(array.throttle);
  if (options.enforce_limits) GANTRY_RETURN_IF_ERROR(CheckDenyOnLimit(state, job));
  // MaxJobCount last, as slurmctld's job_allocate: the records kept (finished ones too, until
  // MinJobAge) and those this submission adds.
  const uint64_t adding = array.tasks.empty() ? 1 : array.tasks.size();
  if (state.jobs.size() + adding >= options.max_job_count) return ResourceExhausted(kQueueFull);
  return job;
}

Result<v1::Job> ReadmitUpdatedJob(const ClusterState& state, const v1::Job& before,
                                  const v1::Job& after, const Caller& owner, int64_t now,
                                  const AdmitOptions& options) {
  const v1::JobRequest& was = before.request();
  const v1::JobRequest& is = after.request();
  const bool moved = !std::ranges::equal(was.partitions(), is.partitions()) ||
                     was.account() != is.account() || was.qos() != is.qos();
  if (!moved) return after;
  // Admission as the owner would have submitted the changed request; submit limits below count
  // the job once where it moves to (it is counted where it is already).
  v1::JobRequest request = is;
  request.clear_array();
  request.set_nice(0);  // who may set a nice was checked when it was set
  AdmitOptions access = options;
  access.enforce_limits = false;
  access.max_job_count = UINT32_MAX;  // the job is one of the records already kept
  GANTRY_ASSIGN_OR_RETURN(const v1::Job admitted, AdmitJob(state, request, owner, now, access));
  v1::Job out = after;
  out.mutable_request()->set_account(admitted.request().account());
  out.mutable_request()->set_qos(admitted.request().qos());
  out.set_partition(admitted.partition());
  if (options.enforce_limits) {
    const uint32_t adding = JobsCounted(after);
    const std::string& qos = out.request().qos();
    if (qos != before.request().qos()) {
      GANTRY_RETURN_IF_ERROR(CheckQosSubmitLimit(state, qos, owner.user_name, adding));
    }
    const v1::Association* assoc = FindJobAssociation(state.accounting, owner.user_name,
                                                      out.request().account(), out.partition());
    const v1::Association* old = FindJobAssociation(state.accounting, owner.user_name,
                                                    before.request().account(), before.partition());
    if (assoc != nullptr && assoc != old) {
      GANTRY_RETURN_IF_ERROR(CheckSubmitLimits(state, *assoc, owner.user_name, qos, adding));
    }
    GANTRY_RETURN_IF_ERROR(CheckDenyOnLimit(state, out));
  }
  return out;
}

}  // namespace gantry::state
