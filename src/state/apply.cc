// Apply: one event at a time. Every handler first checks everything that can fail, then changes
// the state; nothing fails after the first change, so an error leaves the state as it was.
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/billing.h"
#include "model/job_state.h"
#include "model/node_state.h"
#include "model/pending_reason.h"
#include "state/cluster_state.h"
#include "state/gpus.h"
#include "state/partition_settings.h"
#include "state/priority.h"
#include "state/records.h"
#include "state/resources.h"
#include "state/shares.h"
#include "state/usage.h"
#include "text/gres.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using model::JobFlag;
using model::NodeBaseState;
using model::NodeFlag;

constexpr char kNotResponding[] = "Not responding";
constexpr std::string_view kHeldUser = model::PendingReasonName(model::PendingReason::kJobHeldUser);
constexpr std::string_view kHeldAdmin =
    model::PendingReasonName(model::PendingReason::kJobHeldAdmin);

Status UnknownJob(uint32_t id) { return NotFound("unknown job " + std::to_string(id)); }
Status UnknownNode(std::string_view name) {
  return NotFound("unknown node \"" + std::string(name) + "\"");
}

// Node i changed, or a job running there did (ClusterState::node_stamps).
void StampNode(ClusterState* s, size_t i) {
  if (i < s->node_stamps.size()) s->node_stamps[i] = ++s->node_clock;
}

void StampNode(ClusterState* s, std::string_view name) {
  const int i = s->NodeIndex(name);
  if (i >= 0) StampNode(s, static_cast<size_t>(i));
}

// Stamps what an applied event changed beyond what RefreshNode stamps (every job event that
// changes a node's jobs or allocations refreshes the node): the nodes a node event names, the
// nodes of a running job whose record an update replaced (its time limit says when they free
// up). A partition's new nodes rebuild the indexes, which renews the lineage.
void StampChanges(ClusterState* s, const v1::Event& event) {
  switch (event.change_case()) {
    case v1::Event::kNodeRegistered:
      StampNode(s, event.node_registered().node());
      break;
    case v1::Event::kNodeStateChanged:
      for (const std::string& name : event.node_state_changed().nodes()) StampNode(s, name);
      break;
    case v1::Event::kNodeLost:
      StampNode(s, event.node_lost().node());
      break;
    case v1::Event::kJobUpdated:
      if (const v1::Job* job = s->FindJob(event.job_updated().job_id())) {
        for (const std::string& name : job->nodes()) StampNode(s, name);
      }
      break;
    default:
      break;
  }
}

// Every change to a job record goes through here (or adds a record): changed_jobs hears of it.
v1::Job* MutableJob(ClusterState* s, uint32_t id) {
  const auto it = s->jobs.find(id);
  if (it == s->jobs.end()) return nullptr;
  s->changed_jobs.push_back(id);
  return &it->second;
}

// Keeps the pending index right around a change of a job's state, priority or submit time.
void Unindex(ClusterState* s, const v1::Job& job) {
  if (IsPendingJob(job)) s->pending.erase(PendingKeyOf(job));
  s->active.erase(job.job_id());
}
void Index(ClusterState* s, const v1::Job& job) {
  if (model::IsActive(JobStateOf(job).base)) s->active.insert(job.job_id());
  if (!IsPendingJob(job)) return;
  s->pending.insert(PendingKeyOf(job));
  s->entered_pending.push_back(job.job_id());
}

std::string JobName(uint32_t id) { return "job " + std::to_string(id); }

// Job.billing from its partition's TRESBillingWeights (model/billing.h); cleared (its CPUs)
// where the partition has none.
void SetJobBilling(const ClusterState& s, v1::Job* job) {
  job->clear_billing();
  const v1::Partition* p =
      job->partition().empty() ? s.DefaultPartition() : s.FindPartition(job->partition());
  if (p == nullptr || p->tres_billing_weights().empty()) return;
  const std::vector<text::TresWeight>& weights = model::BillingWeightsOf(p->tres_billing_weights());
  if (weights.empty()) return;
  const TresAmounts tres = JobTresOf(*job);
  job->set_billing(model::WeightedTres(weights, s.billing_max_tres, [&](std::string_view name) {
    return static_cast<double>(tres.Get(name));
  }));
}

// Ids are never reused: the next one is past every id given so far.
void MovePastId(ClusterState* s, uint32_t id) {
  s->next_job_id = static_cast<uint32_t>(
      std::min<uint64_t>(std::max<uint64_t>(s->next_job_id, uint64_t{id} + 1), UINT32_MAX));
}

// Node indexes of `names`, or an error for the first unknown or repeated one.
Result<std::vector<uint32_t>> NodeIndexes(
    const ClusterState& s, const google::protobuf::RepeatedPtrField<std::string>& names) {
  std::vector<uint32_t> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    const int i = s.NodeIndex(name);
    if (i < 0) return UnknownNode(name);
    if (std::ranges::find(out, static_cast<uint32_t>(i)) != out.end()) {
      return InvalidArgument("node \"" + name + "\" is listed twice");
    }
    out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

// Adds the per-node GRES of a job request ("gpu:4", "gres:gpu:b200:2") to `sum`.
void AddGres(const std::string& request, std::vector<text::GresSpec>* sum) {
  if (request.empty()) return;
  auto gres = text::ParseGres(request, text::GresSyntax::kJobRequest);
  if (!gres.ok()) return;
  for (const text::GresSpec& g : *gres) {
    auto same = std::ranges::find_if(
        *sum, [&](const text::GresSpec& x) { return x.name == g.name && x.type == g.type; });
    if (same == sum->end()) {
      sum->push_back(g);
    } else {
      same->count += g.count;
    }
  }
}

// Whether a job on a node holds its GRES there: running, or suspended by preemption (which keeps
// them, as Slurm's gang scheduler does). RefreshNode's alloc_gres and the GPU choice agree.
bool HoldsGres(const v1::Job& job) {
  const JobBaseState base = JobStateOf(job).base;
  return base == JobBaseState::kRunning ||
         (base == JobBaseState::kSuspended && job.preempted_by() != 0);
}

// Chooses the GPUs a starting job holds on each of its nodes (state/gpus.h).
void AssignGpus(const ClusterState& s, const std::vector<uint32_t>& indexes, v1::Job* job) {
  job->clear_node_gpus();
  auto request = text::ParseGres(job->request().gres(), text::GresSyntax::kJobRequest);
  if (!request.ok() || GpuCountOf(*request) == 0) return;
  for (uint32_t i : indexes) {
    const v1::Node& node = s.nodes[i];
    std::set<uint32_t> taken;
    for (uint32_t id : node.job_ids()) {
      const v1::Job* other = s.FindJob(id);
      if (other == nullptr || other->job_id() == job->job_id() || !HoldsGres(*other)) continue;
      for (int k = 0; k < other->nodes_size() && k < other->node_gpus_size(); ++k) {
        if (other->nodes(k) == node.name()) {
          taken.insert(other->node_gpus(k).idx().begin(), other->node_gpus(k).idx().end());
        }
      }
    }
    *job->add_node_gpus() = PickGpus(GpuDevicesOf(CapacityOf(node).gres), *request, taken);
  }
}

// Recomputes a node's base state and COMPLETING flag from the jobs it holds: ALLOCATED while
// jobs running there hold all its CPUs, MIXED while they hold some, else IDLE (a suspended job
// keeps only its memory, as in Slurm); COMPLETING while a job still has to release it. DOWN,
// UNKNOWN and FUTURE nodes keep their base state. Also sums the GRES its running jobs (and the
// jobs preemption suspended) asked for per node into alloc_gres ("gpu:4").
void RefreshNode(ClusterState* s, v1::Node* node) {
  StampNode(s, static_cast<size_t>(node - s->nodes.data()));
  bool active = false;
  bool completing = false;
  std::vector<text::GresSpec> gres;
  for (uint32_t id : node->job_ids()) {
    if (const v1::Job* job = s->FindJob(id)) {
      if (JobStateOf(*job).base == JobBaseState::kRunning) active = true;
      if (HoldsGres(*job)) AddGres(job->request().gres(), &gres);
    }
    const auto it = s->completing.find(id);
    if (it != s->completing.end() && it->second.contains(node->name())) completing = true;
  }
  model::NodeState state = NodeStateOf(*node);
  if (completing) {
    state.Set(NodeFlag::kCompleting);
  } else {
    state.Clear(NodeFlag::kCompleting);
  }
  if (state.base != NodeBaseState::kDown && state.base != NodeBaseState::kUnknown &&
      state.base != NodeBaseState::kFuture) {
    state.base = !active                             ? NodeBaseState::kIdle
                 : node->alloc_cpus() < node->cpus() ? NodeBaseState::kMixed
                                                     : NodeBaseState::kAllocated;
  }
  if (node->job_ids().empty()) {
    node->set_alloc_cpus(0);
    node->set_alloc_mem_mb(0);
  }
  node->set_alloc_gres(text::FormatGres(gres));
  SetNodeState(node, state);
}

void RemoveJobId(v1::Node* node, uint32_t id) {
  auto* ids = node->mutable_job_ids();
  for (int i = 0; i < ids->size(); ++i) {
    if (ids->Get(i) == id) {
      ids->erase(ids->begin() + i);
      return;
    }
  }
}

// Gives back a job's CPUs and/or memory on its nodes.
void ReleaseShares(ClusterState* s, const v1::Job& job, bool cpus, bool mem) {
  const NodeShares shares = SharesOf(*s, job);
  for (size_t k = 0; k < shares.nodes.size(); ++k) {
    v1::Node& node = s->nodes[shares.nodes[k]];
    if (cpus) {
      node.set_alloc_cpus(static_cast<uint32_t>(
          node.alloc_cpus() > shares.cpus[k] ? node.alloc_cpus() - shares.cpus[k] : 0));
    }
    if (mem) {
      node.set_alloc_mem_mb(
          node.alloc_mem_mb() > shares.mem[k] ? node.alloc_mem_mb() - shares.mem[k] : 0);
    }
  }
}

// Gives back an active job's CPUs (a suspended job gave them back already) and memory; `from` is
// the job's base state before it ended.
void ReleaseResources(ClusterState* s, const v1::Job& job, JobBaseState from) {
  ReleaseShares(s, job, from != JobBaseState::kSuspended, true);
}

// A job leaves its nodes (end or requeue): resources back, and every node it ran on must
// release it (epilog) before the job and the nodes lose COMPLETING.
void StartCompleting(ClusterState* s, v1::Job* job, JobBaseState from) {
  ReleaseResources(s, *job, from);
  if (job->nodes().empty()) return;
  std::set<std::string>& waiting = s->completing[job->job_id()];
  for (const std::string& name : job->nodes()) waiting.insert(name);
  for (const std::string& name : job->nodes()) {
    const int i = s->NodeIndex(name);
    if (i >= 0) RefreshNode(s, &s->nodes[i]);
  }
}

void SetReason(v1::Node* node, const std::string& reason, int64_t time, uint32_t uid) {
  node->set_reason(reason);
  node->set_reason_time(time);
  node->set_reason_uid(uid);
}

void ClearReason(v1::Node* node) {
  node->clear_reason();
  node->set_reason_time(0);
  node->set_reason_uid(0);
}

// --- jobs -----------------------------------------------------------------------------------

Status ApplyJobSubmitted(ClusterState* s, const v1::JobSubmitted& e) {
  const v1::Job& job = e.job();
  const uint32_t id = job.job_id();
  if (id == 0) return InvalidArgument("JobSubmitted: job id 0 is not valid");
  if (s->jobs.contains(id)) return AlreadyExists("Duplicate job id: " + std::to_string(id));
  if (!IsPendingJob(job)) {
    return InvalidArgument("JobSubmitted: " + JobName(id) + " must be PENDING, not " +
                           std::string(model::JobStateName(JobStateOf(job))));
  }
  if (JobStateOf(job).Has(JobFlag::kCompleting) || !job.nodes().empty()) {
    return InvalidArgument("JobSubmitted: " + JobName(id) + " cannot hold nodes");
  }
  if (job.array_job_id() != 0 &&
      (job.array_job_id() != id || job.has_array_task_id() || job.array_pending_tasks().empty())) {
    return InvalidArgument("JobSubmitted: array " + JobName(id) +
                           " must be its own array record with pending tasks");
  }
  v1::Job& stored = s->jobs.emplace(id, job).first->second;
  stored.set_submit_order(s->events_applied + 1);
  SetJobBilling(*s, &stored);
  s->changed_jobs.push_back(id);
  MovePastId(s, id);
  Index(s, stored);
  if (job.array_job_id() != 0) s->arrays[id].insert(id);
  return Status::Ok();
}

Status ApplyJobArraySplit(ClusterState* s, const v1::JobArraySplit& e) {
  v1::Job* array = MutableJob(s, e.job_id());
  if (array == nullptr) return UnknownJob(e.job_id());
  if (array->array_job_id() != e.job_id() || array->has_array_task_id() || !IsPendingJob(*array)) {
    return FailedPrecondition("JobArraySplit: " + JobName(e.job_id()) +
                              " is not a pending array record");
  }
  auto* tasks = array->mutable_array_pending_tasks();
  const auto task = std::ranges::find(*tasks, e.task_id());
  if (task == tasks->end()) {
    return NotFound("JobArraySplit: " + JobName(e.job_id()) + " has no pending task " +
                    std::to_string(e.task_id()));
  }
  if (tasks->size() == 1) {
    if (e.new_job_id() != e.job_id()) {
      return InvalidArgument("JobArraySplit: the last task of " + JobName(e.job_id()) +
                             " keeps the array's id, not " + std::to_string(e.new_job_id()));
    }
    array->clear_array_pending_tasks();
    array->set_array_task_id(e.task_id());
    return Status::Ok();
  }
  if (e.new_job_id() == 0 || s->jobs.contains(e.new_job_id())) {
    return InvalidArgument("JobArraySplit: new job id " + std::to_string(e.new_job_id()) +
                           " is 0 or taken");
  }
  tasks->erase(task);
  v1::Job copy = *array;
  copy.set_job_id(e.new_job_id());
  copy.clear_array_pending_tasks();
  copy.set_array_task_id(e.task_id());
  const v1::Job& stored = s->jobs.emplace(e.new_job_id(), std::move(copy)).first->second;
  s->changed_jobs.push_back(e.new_job_id());
  MovePastId(s, e.new_job_id());
  Index(s, stored);
  s->arrays[e.job_id()].insert(e.new_job_id());
  return Status::Ok();
}

Status ApplyJobStarted(ClusterState* s, const v1::JobStarted& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  const model::JobState current = JobStateOf(*job);
  if (current.base != JobBaseState::kPending) {
    GANTRY_RETURN_IF_ERROR(model::CheckJobTransition(current.base, JobBaseState::kRunning));
    return FailedPrecondition(JobName(e.job_id()) + " is " +
                              std::string(model::JobBaseStateName(current.base)) +
                              ": only a pending job can start");
  }
  if (current.Has(JobFlag::kCompleting)) {
    return FailedPrecondition(JobName(e.job_id()) + " is still completing on its previous nodes");
  }
  if (e.nodes().empty()) {
    return InvalidArgument("JobStarted: " + JobName(e.job_id()) + " has no nodes");
  }
  GANTRY_ASSIGN_OR_RETURN(const std::vector<uint32_t> indexes, NodeIndexes(*s, e.nodes()));

  Unindex(s, *job);
  model::JobState state = current;
  state.base = JobBaseState::kRunning;
  state.Clear(JobFlag::kRequeue).Clear(JobFlag::kRequeueHold).Clear(JobFlag::kSpecialExit);
  state.Set(JobFlag::kConfiguring);
  SetJobState(job, state);
  Index(s, *job);
  const uint32_t limit = e.time_limit_min() != 0 ? e.time_limit_min() : job->time_limit_min();
  job->set_time_limit_min(limit);
  job->set_start_time(time);
  job->set_end_time(limit == kUnlimited || limit == 0 ? 0 : time + int64_t{limit} * 60);
  if (!e.partition().empty()) job->set_partition(e.partition());
  *job->mutable_nodes() = e.nodes();
  AssignGpus(*s, indexes, job);
  job->set_num_cpus(e.num_cpus());
  job->set_alloc_mem_mb(e.alloc_mem_mb());
  SetJobBilling(*s, job);
  if (s->preemption) {
    job->set_preempt_eligible_time(
        time + PreemptExemptSeconds(s->accounting, *job, s->preempt_exempt_sec));
  }
  job->set_agent_epoch(e.epoch());
  job->set_reason("None");
  job->clear_state_desc();
  job->set_last_sched_eval(time);
  if (job->eligible_time() == 0) job->set_eligible_time(time);
  if (job->accrue_time() == 0) job->set_accrue_time(time);

  const NodeShares shares = SharesOf(*s, *job);
  for (size_t k = 0; k < shares.nodes.size(); ++k) {
    v1::Node& node = s->nodes[shares.nodes[k]];
    node.add_job_ids(job->job_id());
    node.set_last_busy_time(time);
    node.set_alloc_cpus(static_cast<uint32_t>(node.alloc_cpus() + shares.cpus[k]));
    node.set_alloc_mem_mb(node.alloc_mem_mb() + shares.mem[k]);
  }
  for (uint32_t i : indexes) RefreshNode(s, &s->nodes[i]);
  return Status::Ok();
}

Status ApplyJobEnded(ClusterState* s, const v1::JobEnded& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  if (e.state() >= static_cast<uint32_t>(model::kJobBaseStateCount)) {
    return InvalidArgument("JobEnded: invalid job state " + std::to_string(e.state()));
  }
  const auto to = static_cast<JobBaseState>(e.state());
  if (!model::IsFinished(to)) {
    return InvalidArgument("JobEnded: " + std::string(model::JobBaseStateName(to)) +
                           " is not a final job state");
  }
  const model::JobState current = JobStateOf(*job);
  GANTRY_RETURN_IF_ERROR(model::CheckJobTransition(current.base, to));

  Unindex(s, *job);
  job->set_end_order(s->events_applied + 1);
  model::JobState state = current;
  state.base = to;
  state.Clear(JobFlag::kConfiguring).Clear(JobFlag::kRequeue).Clear(JobFlag::kRequeueHold);
  SetJobState(job, state);
  // Nodes see the job finished, so they turn COMPLETING rather than staying ALLOCATED.
  if (model::IsActive(current.base)) StartCompleting(s, job, current.base);
  if (s->completing.contains(job->job_id())) state.Set(JobFlag::kCompleting);
  SetJobState(job, state);
  // Slurm: a job that ends while suspended ended when it was suspended (its run time stays).
  const bool was_suspended = current.base == JobBaseState::kSuspended && job->suspend_time() != 0;
  job->set_end_time(was_suspended ? job->suspend_time() : time);
  if (model::IsActive(current.base)) AddJobUsage(*job, job->end_time(), &s->accounting);
  job->set_exit_status(e.exit_status());
  job->set_reason(e.reason().empty() ? "None" : e.reason());
  job->set_preempted_by(0);
  s->preempted.erase(job->job_id());
  if (to == JobBaseState::kPreempted) job->set_preempt_time(time);
  if (!e.end_cause().empty()) job->set_end_cause(e.end_cause());
  if (e.has_cancelled_by_uid()) job->set_cancelled_by_uid(e.cancelled_by_uid());
  if (e.has_batch_usage()) *job->mutable_batch_usage() = e.batch_usage();
  // Steps still running end with the job: cancelled, as slurmstepd reports them.
  for (v1::JobStep& step : *job->mutable_steps()) {
    if (step.end_time() != 0) continue;
    step.set_end_time(time);
    step.set_state(static_cast<uint32_t>(
        to == JobBaseState::kCompleted ? JobBaseState::kCompleted : JobBaseState::kCancelled));
    step.set_exit_status(to == JobBaseState::kCompleted ? 0 : SIGKILL);
  }
  return Status::Ok();
}

Status ApplyJobStepChanged(ClusterState* s, const v1::JobStepChanged& e) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  for (v1::JobStep& step : *job->mutable_steps()) {
    if (step.step_id() == e.step().step_id()) {
      step = e.step();
      return Status::Ok();
    }
  }
  if (e.step().step_id() != static_cast<uint32_t>(job->steps_size())) {
    return InvalidArgument("JobStepChanged: " + JobName(e.job_id()) + " has " +
                           std::to_string(job->steps_size()) + " steps, not step " +
                           std::to_string(e.step().step_id()) + " next");
  }
  *job->add_steps() = e.step();
  return Status::Ok();
}

Status ApplyJobNodeReleased(ClusterState* s, const v1::JobNodeReleased& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  const auto waiting = s->completing.find(e.job_id());
  if (waiting == s->completing.end() || !waiting->second.contains(e.node())) {
    return FailedPrecondition(JobName(e.job_id()) + " is not completing on node \"" + e.node() +
                              "\"");
  }
  const int i = s->NodeIndex(e.node());
  if (i < 0) return UnknownNode(e.node());

  v1::Node& node = s->nodes[i];
  v1::NodeRelease& release = *job->add_node_releases();
  release.set_node(e.node());
  release.set_time(time);
  release.set_order(s->events_applied + 1);
  waiting->second.erase(e.node());
  RemoveJobId(&node, e.job_id());
  node.set_last_busy_time(time);
  if (e.epilog_failed()) {
    SetNodeState(&node, NodeStateOf(node).Set(NodeFlag::kDrain));
    SetReason(&node, e.message().empty() ? "Epilog error" : e.message(), time, 0);
  }
  if (waiting->second.empty()) {
    s->completing.erase(waiting);
    // A held requeue shows REQUEUE_HOLD only while the job is still completing.
    SetJobState(job, JobStateOf(*job).Clear(JobFlag::kCompleting).Clear(JobFlag::kRequeueHold));
  }
  RefreshNode(s, &node);
  return Status::Ok();
}

Status ApplyJobRequeued(ClusterState* s, const v1::JobRequeued& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  const model::JobState current = JobStateOf(*job);
  GANTRY_RETURN_IF_ERROR(model::CheckJobTransition(current.base, JobBaseState::kPending));

  Unindex(s, *job);
  model::JobState state = current;
  state.base = JobBaseState::kPending;
  state.Clear(JobFlag::kConfiguring).Clear(JobFlag::kRequeue).Clear(JobFlag::kRequeueHold);
  state.Clear(JobFlag::kCompleting);
  SetJobState(job, state);
  if (model::IsActive(current.base)) StartCompleting(s, job, current.base);
  if (s->completing.contains(job->job_id())) state.Set(JobFlag::kCompleting);
  if (e.hold() && state.Has(JobFlag::kCompleting)) state.Set(JobFlag::kRequeueHold);
  SetJobState(job, state);
  if (model::IsActive(current.base)) {
    AddJobUsage(*job, current.base == JobBaseState::kSuspended ? job->suspend_time() : time,
                &s->accounting);
  }
  if (job->start_time() > 0) {
    // The run that ends here, for sacct -D.
    v1::JobRun& run = *job->add_earlier_runs();
    run.set_start_time(job->start_time());
    run.set_end_time(current.base == JobBaseState::kSuspended && job->suspend_time() != 0
                         ? job->suspend_time()
                         : time);
    if (e.preempted() || e.node_fail()) {
      run.set_state(static_cast<uint32_t>(e.preempted() ? JobBaseState::kPreempted
                                                        : JobBaseState::kNodeFail));
    } else {
      run.set_requeued(true);
    }
    *run.mutable_nodes() = job->nodes();
    run.set_num_cpus(job->num_cpus());
    run.set_alloc_mem_mb(job->alloc_mem_mb());
    run.set_pre_suspend_secs(job->pre_suspend_secs());
    run.set_submit_time(job->submit_time());
    run.set_begin_time(job->request().begin_time());
  }
  job->set_restarts(job->restarts() + 1);
  job->set_preempted_by(0);
  s->preempted.erase(job->job_id());
  if (e.preempted()) job->set_preempt_time(time);
  job->set_submit_time(time);
  job->set_start_time(0);
  job->set_end_time(0);
  job->set_suspend_time(0);
  job->set_pre_suspend_secs(0);
  job->set_exit_status(-1);
  job->clear_cancelled_by_uid();
  job->clear_nodes();
  job->clear_node_gpus();
  job->set_num_cpus(
      static_cast<uint32_t>(std::min<uint64_t>(TotalCpusOf(job->request()), UINT32_MAX)));
  job->set_alloc_mem_mb(0);
  SetJobBilling(*s, job);
  job->clear_end_cause();
  job->set_state_desc(e.state_desc());
  if (e.begin_time() > 0) job->mutable_request()->set_begin_time(e.begin_time());
  if (e.hold()) {
    job->set_priority(0);
    const std::string reason = e.reason().empty() ? std::string(kHeldAdmin) : e.reason();
    job->set_held_by_admin(reason != kHeldUser);
    job->set_reason(reason);
    job->set_eligible_time(0);
    job->set_accrue_time(0);
  } else if (job->priority() == 0) {
    // Held while it ran: it stays held.
    job->set_reason(std::string(job->held_by_admin() ? kHeldAdmin : kHeldUser));
  } else if (e.begin_time() > time) {  // the requeue delay
    job->set_reason(std::string(model::PendingReasonName(model::PendingReason::kBeginTime)));
    job->set_eligible_time(e.begin_time());
    job->set_accrue_time(e.begin_time());
  } else {
    job->set_reason(e.reason().empty() ? "None" : e.reason());
    job->set_eligible_time(time);
    job->set_accrue_time(time);
  }
  Index(s, *job);
  return Status::Ok();
}

Status ApplyJobHoldChanged(ClusterState* s, const v1::JobHoldChanged& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  if (model::IsFinished(JobStateOf(*job).base)) {
    return FailedPrecondition("Job/step already completing or completed");
  }
  Unindex(s, *job);
  if (e.held()) {
    job->set_priority(0);
    job->set_held_by_admin(e.by_admin());
    job->set_reason(std::string(e.by_admin() ? kHeldAdmin : kHeldUser));
  } else {
    if (job->priority() == 0) job->set_priority(PriorityFromNice(job->request().nice()));
    if (job->reason() == kHeldUser || job->reason() == kHeldAdmin) job->set_reason("None");
    job->set_held_by_admin(false);
    job->clear_state_desc();
    SetJobState(job, JobStateOf(*job).Clear(JobFlag::kRequeueHold));
    if (IsPendingJob(*job)) {
      if (job->eligible_time() == 0) {
        job->set_eligible_time(std::max(time, job->request().begin_time()));
      }
      if (job->accrue_time() == 0) job->set_accrue_time(time);
    }
  }
  Index(s, *job);
  return Status::Ok();
}

Status ApplyJobUpdated(ClusterState* s, const v1::JobUpdated& e) {
  const uint32_t id = e.job_id() != 0 ? e.job_id() : e.job().job_id();
  v1::Job* job = MutableJob(s, id);
  if (job == nullptr) return UnknownJob(id);
  if (e.job().job_id() != 0 && e.job().job_id() != id) {
    return InvalidArgument("JobUpdated: record of job " + std::to_string(e.job().job_id()) +
                           " given for " + JobName(id));
  }
  const model::JobState old_state = JobStateOf(*job);
  const model::JobState new_state = JobStateOf(e.job());
  if (new_state.base != old_state.base) {
    if (e.job().state() >= static_cast<uint32_t>(model::kJobBaseStateCount)) {
      return InvalidArgument("JobUpdated: invalid job state " + std::to_string(e.job().state()));
    }
    GANTRY_RETURN_IF_ERROR(model::CheckJobTransition(old_state.base, new_state.base));
    return InvalidArgument("JobUpdated cannot change " + JobName(id) + " from " +
                           std::string(model::JobBaseStateName(old_state.base)) + " to " +
                           std::string(model::JobBaseStateName(new_state.base)) +
                           " (use JobStarted, JobEnded or JobRequeued)");
  }
  if (!std::ranges::equal(job->nodes(), e.job().nodes())) {
    return InvalidArgument("JobUpdated cannot change the nodes of " + JobName(id));
  }
  if (job->array_job_id() != e.job().array_job_id() ||
      job->has_array_task_id() != e.job().has_array_task_id() ||
      job->array_task_id() != e.job().array_task_id()) {
    return InvalidArgument("JobUpdated cannot change the array ids of " + JobName(id));
  }
  Unindex(s, *job);
  *job = e.job();
  job->set_job_id(id);
  // COMPLETING follows the `completing` table, not the record.
  model::JobState state = JobStateOf(*job);
  if (s->completing.contains(id)) {
    state.Set(JobFlag::kCompleting);
  } else {
    state.Clear(JobFlag::kCompleting);
  }
  SetJobState(job, state);
  if (IsPendingJob(*job)) SetJobBilling(*s, job);
  Index(s, *job);
  return Status::Ok();
}

Status ApplyJobPriorityChanged(ClusterState* s, const v1::JobPriorityChanged& e) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  Unindex(s, *job);
  job->set_priority(e.priority());
  if (!e.reason().empty()) job->set_reason(e.reason());
  Index(s, *job);
  return Status::Ok();
}

// --- nodes ----------------------------------------------------------------------------------

// Brings a DOWN or UNKNOWN node back: IDLE (ALLOCATED with running jobs); the reason goes unless
// the node stays drained or failed.
void ReturnToService(ClusterState* s, v1::Node* node) {
  model::NodeState state = NodeStateOf(*node);
  state.base = NodeBaseState::kIdle;
  SetNodeState(node, state);
  if (!state.Has(NodeFlag::kDrain) && !state.Has(NodeFlag::kFail)) ClearReason(node);
  RefreshNode(s, node);
}

Status ApplyNodeRegistered(ClusterState* s, const v1::NodeRegistered& e, int64_t time) {
  const int i = s->NodeIndex(e.node());
  if (i < 0) return UnknownNode(e.node());
  v1::Node& node = s->nodes[i];
  node.set_address(e.address());
  node.set_hostname(e.hostname());
  node.set_boot_time(e.boot_time());
  node.set_version(e.version());
  node.set_os(e.os());
  node.set_last_heartbeat(time);
  model::NodeState state = NodeStateOf(node);
  state.Clear(NodeFlag::kNoRespond);
  SetNodeState(&node, state);
  if (state.base == NodeBaseState::kUnknown) {
    ReturnToService(s, &node);
  } else if (state.base == NodeBaseState::kDown) {
    const bool back =
        s->return_to_service == 2 || (s->return_to_service == 1 && node.reason() == kNotResponding);
    if (back) ReturnToService(s, &node);
  }
  return Status::Ok();
}

Status ApplyNodeStateChanged(ClusterState* s, const v1::NodeStateChanged& e, int64_t time) {
  auto op = model::ParseNodeUpdateState(e.op());
  if (!op.ok()) return op.status();
  using Op = model::NodeUpdateState;
  switch (*op) {
    case Op::kDrain:
    case Op::kFail:
    case Op::kResume:
    case Op::kUndrain:
    case Op::kDown:
    case Op::kIdle:
      break;
    default:
      return InvalidArgument("node state " + std::string(model::NodeUpdateStateName(*op)) +
                             " is not supported (use DRAIN, FAIL, RESUME, UNDRAIN, DOWN or IDLE)");
  }
  if (e.nodes().empty()) return InvalidArgument("NodeStateChanged names no nodes");
  GANTRY_ASSIGN_OR_RETURN(const std::vector<uint32_t> indexes, NodeIndexes(*s, e.nodes()));

  for (uint32_t i : indexes) {
    v1::Node& node = s->nodes[i];
    model::NodeState state = NodeStateOf(node);
    // Only the health check's own drain is its to lift; any other change takes it over.
    if (e.by_health() && *op == Op::kResume && !node.health_drained()) continue;
    node.set_health_drained(e.by_health() && *op == Op::kDrain);
    switch (*op) {
      case Op::kDrain:
        SetNodeState(&node, state.Set(NodeFlag::kDrain));
        SetReason(&node, e.reason(), time, e.reason_uid());
        break;
      case Op::kFail:
        SetNodeState(&node, state.Set(NodeFlag::kFail));
        SetReason(&node, e.reason(), time, e.reason_uid());
        break;
      case Op::kDown:
        state.base = NodeBaseState::kDown;
        SetNodeState(&node, state);
        SetReason(&node, e.reason(), time, e.reason_uid());
        break;
      case Op::kUndrain:
        SetNodeState(&node, state.Clear(NodeFlag::kDrain));
        if (state.base != NodeBaseState::kDown && !state.Has(NodeFlag::kFail)) ClearReason(&node);
        break;
      case Op::kResume:
      case Op::kIdle:
        state.Clear(NodeFlag::kDrain).Clear(NodeFlag::kFail);
        SetNodeState(&node, state);
        if (state.base == NodeBaseState::kDown || state.base == NodeBaseState::kUnknown) {
          ReturnToService(s, &node);
        } else {
          ClearReason(&node);
          RefreshNode(s, &node);
        }
        break;
      default:
        break;
    }
  }
  return Status::Ok();
}

Status ApplyNodeLost(ClusterState* s, const v1::NodeLost& e, int64_t time) {
  const int i = s->NodeIndex(e.node());
  if (i < 0) return UnknownNode(e.node());
  v1::Node& node = s->nodes[i];
  model::NodeState state = NodeStateOf(node);
  state.base = NodeBaseState::kDown;
  state.Set(NodeFlag::kNoRespond);
  SetNodeState(&node, state);
  // Slurm keeps an administrator's reason; "Not responding" only replaces itself.
  if (node.reason().empty() || node.reason().starts_with(kNotResponding)) {
    SetReason(&node, e.reason().empty() ? kNotResponding : e.reason(), time, 0);
  }
  return Status::Ok();
}

// --- configuration --------------------------------------------------------------------------

void ReapplyPartitionOverrides(ClusterState* s);

void CopyDefinition(const v1::Node& def, v1::Node* node) {
  node->set_pool(def.pool());
  node->set_cpus(def.cpus());
  node->set_real_memory_mb(def.real_memory_mb());
  node->set_gres(def.gres());
  node->set_features(def.features());
}

Status ApplyConfigLoaded(ClusterState* s, const v1::ConfigLoaded& e) {
  std::set<std::string_view> names;
  for (const v1::Node& def : e.nodes()) {
    if (def.name().empty()) return InvalidArgument("ConfigLoaded: a node has no name");
    if (!names.insert(def.name()).second) {
      return InvalidArgument("ConfigLoaded: node \"" + def.name() + "\" is defined twice");
    }
  }
  std::set<std::string_view> partition_names;
  for (const v1::Partition& p : e.partitions()) {
    if (!partition_names.insert(p.name()).second) {
      return InvalidArgument("ConfigLoaded: partition \"" + p.name() + "\" is defined twice");
    }
  }
  for (const v1::Node& node : s->nodes) {
    if (!names.contains(node.name()) && !node.job_ids().empty()) {
      return FailedPrecondition("ConfigLoaded: node \"" + node.name() +
                                "\" cannot be removed while it has jobs");
    }
  }

  std::vector<v1::Node> nodes;
  nodes.reserve(e.nodes().size());
  for (const v1::Node& def : e.nodes()) {
    const int old = s->NodeIndex(def.name());
    if (old >= 0) {
      nodes.push_back(std::move(s->nodes[old]));
      CopyDefinition(def, &nodes.back());
    } else {
      v1::Node node;
      node.set_name(def.name());
      CopyDefinition(def, &node);
      SetNodeState(&node, model::NodeState{NodeBaseState::kUnknown,
                                           static_cast<uint32_t>(NodeFlag::kNoRespond)});
      nodes.push_back(std::move(node));
    }
    nodes.back().clear_partitions();
  }
  s->nodes = std::move(nodes);
  s->partitions.assign(e.partitions().begin(), e.partitions().end());
  RebuildIndexes(s);
  ReapplyPartitionOverrides(s);
  RefreshPartitionMembers(s);
  return Status::Ok();
}

// --- suspend/resume and partition updates ----------------------------------------------------

// Refreshes every configured node of a job.
void RefreshJobNodes(ClusterState* s, const v1::Job& job) {
  for (const std::string& name : job.nodes()) {
    const int i = s->NodeIndex(name);
    if (i >= 0) RefreshNode(s, &s->nodes[i]);
  }
}

Status ApplyJobSuspended(ClusterState* s, const v1::JobSuspended& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  model::JobState state = JobStateOf(*job);
  if (state.base != JobBaseState::kRunning) {
    GANTRY_RETURN_IF_ERROR(model::CheckJobTransition(state.base, JobBaseState::kSuspended));
    return FailedPrecondition(JobName(e.job_id()) + " is " +
                              std::string(model::JobBaseStateName(state.base)) +
                              ": only a running job can be suspended");
  }
  // Slurm: pre_sus_time += now - (last resume, else start).
  const int64_t since = job->suspend_time() != 0 ? job->suspend_time() : job->start_time();
  job->set_pre_suspend_secs(job->pre_suspend_secs() + std::max<int64_t>(0, time - since));
  job->set_suspend_time(time);
  if (e.preemptor() != 0) {
    job->set_preempted_by(e.preemptor());
    job->set_preempt_time(time);
    s->preempted.insert(job->job_id());
  }
  state.base = JobBaseState::kSuspended;
  SetJobState(job, state);
  ReleaseShares(s, *job, /*cpus=*/true, /*mem=*/false);
  RefreshJobNodes(s, *job);
  return Status::Ok();
}

Status ApplyJobResumed(ClusterState* s, const v1::JobResumed& e, int64_t time) {
  v1::Job* job = MutableJob(s, e.job_id());
  if (job == nullptr) return UnknownJob(e.job_id());
  model::JobState state = JobStateOf(*job);
  if (state.base != JobBaseState::kSuspended) {
    return FailedPrecondition(JobName(e.job_id()) + " is " +
                              std::string(model::JobBaseStateName(state.base)) +
                              ": only a suspended job can resume");
  }
  job->set_suspend_time(time);
  job->set_preempted_by(0);
  s->preempted.erase(job->job_id());
  const uint32_t limit = job->time_limit_min();
  if (limit != kUnlimited && limit != 0) {
    job->set_end_time(time + int64_t{limit} * 60 - job->pre_suspend_secs());
  }
  state.base = JobBaseState::kRunning;
  SetJobState(job, state);
  const NodeShares shares = SharesOf(*s, *job);
  for (size_t k = 0; k < shares.nodes.size(); ++k) {
    v1::Node& node = s->nodes[shares.nodes[k]];
    node.set_alloc_cpus(static_cast<uint32_t>(node.alloc_cpus() + shares.cpus[k]));
  }
  RefreshJobNodes(s, *job);
  return Status::Ok();
}

// Minutes as a Slurm time ("30") or UNLIMITED, for settings taken from the older typed fields.
std::string MinutesSetting(uint32_t minutes) {
  return minutes == kUnlimited ? "UNLIMITED" : std::to_string(minutes);
}

Status ApplyPartitionUpdated(ClusterState* s, const v1::PartitionUpdated& e) {
  const int p = s->PartitionIndex(e.name());
  if (p < 0) return NotFound("unknown partition \"" + e.name() + "\"");
  std::map<std::string, std::string> settings(e.settings().begin(), e.settings().end());
  if (e.has_state()) settings["State"] = e.state();
  if (e.has_max_time_min()) settings["MaxTime"] = MinutesSetting(e.max_time_min());
  if (e.has_default_time_min()) settings["DefaultTime"] = MinutesSetting(e.default_time_min());
  // Checked first: an event applies whole or not at all.
  std::vector<std::pair<std::string, std::string>> checked;
  for (const auto& [key, value] : settings) {
    GANTRY_ASSIGN_OR_RETURN(std::string canonical, CheckPartitionSetting(key, value));
    if (canonical == "Nodes" && !s->NodeIndexesOf(value)) {
      return InvalidArgument("Invalid node name specified: Nodes=" + value);
    }
    checked.emplace_back(std::move(canonical), value);
  }
  v1::PartitionOverride& o = s->partition_overrides[e.name()];
  if (!o.has_spec()) *o.mutable_spec() = s->partitions[p];
  for (const auto& [key, value] : checked) {
    (*o.mutable_settings())[key] = value;
    GANTRY_RETURN_IF_ERROR(ApplyPartitionSetting(s, p, key, value));
  }
  return Status::Ok();
}

// Before settings, an override kept State, MaxTime and DefaultTime in fields of their own, each
// with the spec's value then: those still matching `part` (the spec now) become settings.
void TakeLegacyOverride(const v1::Partition& part, v1::PartitionOverride* o) {
  auto& settings = *o->mutable_settings();
  if (o->has_state() && part.state() == o->spec_state()) settings["State"] = o->state();
  if (o->has_max_time_min() && part.max_time_min() == o->spec_max_time_min()) {
    settings["MaxTime"] = MinutesSetting(o->max_time_min());
  }
  if (o->has_default_time_min() && part.default_time_min() == o->spec_default_time_min()) {
    settings["DefaultTime"] = MinutesSetting(o->default_time_min());
  }
  o->clear_state();
  o->clear_max_time_min();
  o->clear_default_time_min();
  if (!o->has_spec()) *o->mutable_spec() = part;
}

// After ConfigLoaded: scontrol's partition changes apply again over the new definitions, unless
// the spec now defines the partition otherwise than when they were made (the spec wins; the
// changes are dropped).
void ReapplyPartitionOverrides(ClusterState* s) {
  for (auto it = s->partition_overrides.begin(); it != s->partition_overrides.end();) {
    const int p = s->PartitionIndex(it->first);
    v1::PartitionOverride& o = it->second;
    if (p >= 0) TakeLegacyOverride(s->partitions[p], &o);
    if (p < 0 || o.settings().empty() ||
        !google::protobuf::util::MessageDifferencer::Equals(o.spec(), s->partitions[p])) {
      it = s->partition_overrides.erase(it);
      continue;
    }
    for (const auto& [key, value] : o.settings()) {
      // Checked when made; only a Nodes list can fail now (no change then), and not while the
      // partition's definition is unchanged.
      (void)ApplyPartitionSetting(s, p, key, value);
    }
    ++it;
  }
}

}  // namespace

void SetJobPriority(ClusterState* state, uint32_t job_id, uint32_t priority) {
  const auto it = state->jobs.find(job_id);
  if (it == state->jobs.end() || !IsPendingJob(it->second) || it->second.priority() == priority) {
    return;
  }
  state->pending.erase(PendingKeyOf(it->second));
  it->second.set_priority(priority);
  state->pending.insert(PendingKeyOf(it->second));
  state->changed_jobs.push_back(job_id);
}

void SetPendingPriorities(ClusterState* state,
                          const std::function<std::optional<uint32_t>(const v1::Job&)>& priority) {
  std::vector<PendingKey> keys;
  keys.reserve(state->pending.size());
  for (auto& [id, job] : state->jobs) {
    if (!IsPendingJob(job)) continue;
    if (const std::optional<uint32_t> p = priority(job); p && *p != job.priority()) {
      job.set_priority(*p);
      state->changed_jobs.push_back(id);
    }
    keys.push_back(PendingKeyOf(job));
  }
  std::sort(keys.begin(), keys.end());
  if (keys.size() != state->pending.size()) {
    state->pending = std::set<PendingKey>(keys.begin(), keys.end());
    return;
  }
  // The same jobs in a new order: the index's nodes are reused (no allocation per job).
  std::set<PendingKey> rebuilt;
  for (const PendingKey& key : keys) {
    auto node = state->pending.extract(state->pending.begin());
    node.value() = key;
    rebuilt.insert(rebuilt.end(), std::move(node));
  }
  state->pending = std::move(rebuilt);
}

namespace {

Status ApplyEvent(ClusterState* state, const v1::Event& event) {
  const int64_t t = event.time();
  switch (event.change_case()) {
    case v1::Event::kJobSubmitted:
      return ApplyJobSubmitted(state, event.job_submitted());
    case v1::Event::kJobStepChanged:
      return ApplyJobStepChanged(state, event.job_step_changed());
    case v1::Event::kJobArraySplit:
      return ApplyJobArraySplit(state, event.job_array_split());
    case v1::Event::kJobStarted:
      return ApplyJobStarted(state, event.job_started(), t);
    case v1::Event::kJobEnded:
      return ApplyJobEnded(state, event.job_ended(), t);
    case v1::Event::kJobRequeued:
      return ApplyJobRequeued(state, event.job_requeued(), t);
    case v1::Event::kJobHoldChanged:
      return ApplyJobHoldChanged(state, event.job_hold_changed(), t);
    case v1::Event::kJobUpdated:
      return ApplyJobUpdated(state, event.job_updated());
    case v1::Event::kJobNodeReleased:
      return ApplyJobNodeReleased(state, event.job_node_released(), t);
    case v1::Event::kJobPriorityChanged:
      return ApplyJobPriorityChanged(state, event.job_priority_changed());
    case v1::Event::kNodeRegistered:
      return ApplyNodeRegistered(state, event.node_registered(), t);
    case v1::Event::kNodeStateChanged:
      return ApplyNodeStateChanged(state, event.node_state_changed(), t);
    case v1::Event::kNodeLost:
      return ApplyNodeLost(state, event.node_lost(), t);
    case v1::Event::kConfigLoaded:
      return ApplyConfigLoaded(state, event.config_loaded());
    case v1::Event::kJobSuspended:
      return ApplyJobSuspended(state, event.job_suspended(), t);
    case v1::Event::kJobResumed:
      return ApplyJobResumed(state, event.job_resumed(), t);
    case v1::Event::kPartitionUpdated:
      return ApplyPartitionUpdated(state, event.partition_updated());
    case v1::Event::kAccountingChanged:
      ApplyAccountingChange(event.accounting_changed().change(), &state->accounting);
      return Status::Ok();
    case v1::Event::CHANGE_NOT_SET:
      break;
  }
  return InvalidArgument("event without a change");
}

}  // namespace

Status Apply(ClusterState* state, const v1::Event& event) {
  Status applied = ApplyEvent(state, event);
  if (applied.ok()) {
    ++state->events_applied;
    StampChanges(state, event);
  }
  return applied;
}

}  // namespace gantry::state
