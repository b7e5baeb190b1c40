#include "slurm/explain.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "model/pending_reason.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/dependency.h"
#include "text/duration.h"

namespace gantry::slurm {
namespace {

using model::PendingReason;
constexpr std::string_view Name(PendingReason reason) { return model::PendingReasonName(reason); }

constexpr uint32_t kUnlimited = 0xFFFFFFFFu;

std::string Id(const v1::Job& job) { return JobIdText(job); }

model::NodeState StateOfNode(const v1::Node& node) {
  return {static_cast<model::NodeBaseState>(node.state()), node.state_flags()};
}

// Not down, drained or silent: a node that can take the job once it is free.
bool Usable(const model::NodeState& s) {
  return s.base != model::NodeBaseState::kDown && !s.Has(model::NodeFlag::kDrain) &&
         !s.Has(model::NodeFlag::kNoRespond);
}

class Explainer {
 public:
  explicit Explainer(const ExplainInput& in) : in_(in), job_(*in.job) {}

  std::string Run() {
    const model::JobState state = StateOf(job_);
    Line("Job " + Id(job_) + " (" + job_.request().name() + ", user " + UserLabel(job_) +
         ", partition " + job_.partition() + ") is " + std::string(model::JobStateName(state)) +
         ".");
    if (state.base == model::JobBaseState::kPending) {
      Pending();
    } else if (model::IsActive(state.base)) {
      Active();
    } else {
      Ended();
    }
    return out_;
  }

 private:
  void Line(const std::string& text) { out_ += text + "\n"; }
  void Item(const std::string& text) { out_ += "  " + text + "\n"; }
  std::string Time(UnixTime t) const { return TimeText(t, *in_.tz, "Unknown"); }
  static std::string Minutes(uint32_t minutes) {
    return minutes == kUnlimited ? "UNLIMITED" : text::FormatDurationMinutes(minutes);
  }

  const v1::Partition* Partition(const std::string& name) const {
    for (const v1::Partition& p : in_.nodes->partitions()) {
      if (p.name() == name) return &p;
    }
    return nullptr;
  }
  const v1::Node* Node(const std::string& name) const {
    for (const v1::Node& n : in_.nodes->nodes()) {
      if (n.name() == name) return &n;
    }
    return nullptr;
  }

  void Active() {
    Item("It runs on " + NodeList(job_) + " since " + Time(job_.start_time()) + " (" +
         text::FormatDurationSeconds(TimeUsed(job_, in_.now)) + " so far).");
    if (job_.preempted_by() != 0) {
      Item("Job " + std::to_string(job_.preempted_by()) + " preempted it at " +
           Time(job_.preempt_time()) +
           ": it is suspended, keeps its memory and GPUs, and resumes by itself once that job's "
           "CPUs are free again. Suspended time does not count against its time limit.");
    }
    if (job_.time_limit_min() == kUnlimited || job_.end_time() == 0) {
      Item("It has no time limit.");
    } else {
      Item("Its time limit (" + Minutes(job_.time_limit_min()) + ") ends it at " +
           Time(job_.end_time()) + ".");
    }
  }

  void Ended() {
    Item("It ended at " + Time(job_.end_time()) + " with exit code " +
         ExitCodeText(job_.exit_status()) +
         (job_.end_cause().empty() ? std::string() : " (" + job_.end_cause() + ")") + ".");
  }

  void Pending() {
    const std::string reason = Reason(job_);
    Item("Reason: " + reason + ".");
    if (job_.preempt_time() != 0) {
      Item("It was preempted at " + Time(job_.preempt_time()) +
           " and requeued: it starts again from the beginning when it is scheduled.");
    }
    const std::optional<PendingReason> code = model::ParsePendingReason(job_.reason());
    if (!code) return;  // a limit's or an operator's reason: the line above says it
    switch (*code) {
      case PendingReason::kJobHeldUser:
        Item(
            "Its owner held it (sbatch -H or scontrol hold). It runs once released: scontrol "
            "release " +
            Id(job_) + ".");
        break;
      case PendingReason::kJobHeldAdmin:
        Item(
            "An operator held it (or it was requeued held). Only an operator can release it: "
            "scontrol release " +
            Id(job_) + ".");
        break;
      case PendingReason::kBeginTime: {
        const UnixTime begin =
            job_.request().begin_time() != 0 ? job_.request().begin_time() : job_.start_time();
        Item("It may not start before " + Time(begin) +
             " (--begin). To allow it now: scontrol update JobId=" + Id(job_) + " StartTime=now.");
        break;
      }
      case PendingReason::kDependency:
      case PendingReason::kDependencyNeverSatisfied:
        Dependencies(*code == PendingReason::kDependencyNeverSatisfied);
        break;
      case PendingReason::kJobArrayTaskLimit:
        ArrayThrottle();
        break;
      case PendingReason::kPartitionDown:
      case PendingReason::kPartitionInactive:
        Item("Partition " + job_.partition() + " is " +
             (*code == PendingReason::kPartitionDown ? "DOWN" : "INACTIVE") +
             ": nothing starts there until an operator sets it UP (scontrol update "
             "PartitionName=" +
             job_.partition() + " State=UP), or move the job: scontrol update JobId=" + Id(job_) +
             " Partition=OTHER.");
        break;
      case PendingReason::kPartitionTimeLimit:
      case PendingReason::kPartitionNodeLimit:
      case PendingReason::kPartitionConfig:
        Limits(*code);
        break;
      case PendingReason::kReqNodeNotAvail:
        Unavailable();
        break;
      case PendingReason::kResources:
      case PendingReason::kPriority:
        Waiting(*code == PendingReason::kPriority);
        break;
      case PendingReason::kNone:
        Item(
            "The scheduler has not looked at it yet; it runs every few seconds and after each "
            "submission.");
        break;
      default:
        break;  // an association's or QOS's limit: the reason says which
    }
  }

  void Dependencies(bool never) {
    const std::string status = DependencyText(job_);
    Item("Dependency: " + status + ".");
    Result<text::Dependency> dep = text::ParseDependency(job_.request().dependency());
    if (dep.ok()) {
      for (const text::DependencyTerm& term : dep->terms) {
        if (term.type == text::DependencyType::kSingleton) {
          Item("singleton: waits while another job of " + UserLabel(job_) + " named \"" +
               job_.request().name() + "\" runs or is queued ahead of it.");
          continue;
        }
        std::vector<const v1::Job*> named;
        for (const v1::Job* other : in_.jobs) {
          if (other->job_id() == term.job_id || other->array_job_id() == term.job_id) {
            named.push_back(other);
          }
        }
        std::string states;
        for (const v1::Job* other : named) {
          if (!states.empty()) states += ", ";
          states += Id(*other) + " " + std::string(model::JobStateName(StateOf(*other)));
        }
        Item(text::FormatDependencyTerm(term) + ": " +
             (named.empty() ? "job " + std::to_string(term.job_id) +
                                  " is no longer known, which satisfies the term"
                            : states) +
             ".");
      }
    }
    if (never) {
      Item("It can never start this way. Remove the dependency (scontrol update JobId=" + Id(job_) +
           " Dependency=) or cancel it (scancel " + Id(job_) + ").");
    } else {
      Item("It becomes eligible when the terms above are met.");
    }
  }

  void ArrayThrottle() {
    std::vector<std::string> running;
    for (const v1::Job* other : in_.jobs) {
      if (other->array_job_id() == job_.array_job_id() && other->has_array_task_id() &&
          model::IsActive(StateOf(*other).base)) {
        running.push_back(Id(*other));
      }
    }
    std::string list;
    for (const std::string& id : running) list += (list.empty() ? "" : ", ") + id;
    Item("The array may run " + std::to_string(job_.array_task_throttle()) +
         " tasks at once (--array=...%" + std::to_string(job_.array_task_throttle()) +
         ") and runs " + std::to_string(running.size()) + (list.empty() ? "" : ": " + list) +
         ". Its next task starts when one of them ends.");
  }

  void Limits(PendingReason code) {
    const v1::Partition* part = Partition(job_.partition());
    if (part == nullptr) return;
    const v1::JobRequest& r = job_.request();
    if (code == PendingReason::kPartitionTimeLimit) {
      Item("Its time limit " + Minutes(job_.time_limit_min()) + " is above the partition's " +
           "MaxTime " + Minutes(part->max_time_min()) + ". Lower it: scontrol update JobId=" +
           Id(job_) + " TimeLimit=" + Minutes(part->max_time_min()) + ".");
    } else if (code == PendingReason::kPartitionNodeLimit) {
      Item("It asks for " + std::to_string(NodeCount(job_)) + " nodes; the partition allows " +
           (part->max_nodes() == kUnlimited || part->max_nodes() == 0
                ? std::string("any number")
                : "at most " + std::to_string(part->max_nodes())) +
           (part->min_nodes() > 0 ? ", at least " + std::to_string(part->min_nodes()) : "") +
           ". Change -N: scontrol update JobId=" + Id(job_) + " NumNodes=N.");
    } else {
      Item("The partition has " + std::to_string(part->nodes_size()) + " nodes, fewer than the " +
           std::to_string(std::max<uint32_t>(r.min_nodes(), 1)) +
           " it needs (or none that fit its CPUs, memory, GRES or features). Ask for fewer "
           "nodes or another partition.");
    }
  }

  void Unavailable() {
    std::vector<std::string> down;
    for (const v1::Node& node : in_.nodes->nodes()) {
      const model::NodeState s = StateOfNode(node);
      if (!Usable(s) &&
          std::ranges::find(node.partitions(), job_.partition()) != node.partitions().end()) {
        down.push_back(node.name() + " " + model::NodeStateString(s) +
                       (node.reason().empty() ? "" : " (" + node.reason() + ")"));
      }
    }
    for (const std::string& d : down) Item("Node " + d + ".");
    Item(
        "It waits until enough of these nodes are back (scontrol update NodeName=... "
        "State=RESUME) or for fewer nodes (-N, -w, -x).");
  }

  // Resources / Priority: the busy nodes of its partition, when they free up, and what is
  // queued ahead of it there.
  void Waiting(bool priority) {
    const v1::Partition* part = Partition(job_.partition());
    if (part == nullptr) return;
    const uint32_t need = std::max<uint32_t>(job_.request().min_nodes(), 1);
    uint32_t up = 0;
    uint32_t idle = 0;
    std::vector<UnixTime> frees;  // when each busy node frees up (0 = never: no time limit)
    for (const std::string& name : part->nodes()) {
      const v1::Node* node = Node(name);
      if (node == nullptr) continue;
      const model::NodeState s = StateOfNode(*node);
      if (!Usable(s)) continue;
      ++up;
      // Whole nodes: the node frees up when the last job on it reaches its time limit.
      bool busy = s.base != model::NodeBaseState::kIdle;
      UnixTime free_at = in_.now;
      for (const v1::Job* other : in_.jobs) {
        if (!model::IsActive(StateOf(*other).base) ||
            std::ranges::find(other->nodes(), name) == other->nodes().end()) {
          continue;
        }
        busy = true;
        if (free_at == 0 || other->time_limit_min() == kUnlimited || other->end_time() == 0) {
          free_at = 0;
        } else {
          free_at = std::max(free_at, other->end_time());
        }
      }
      if (!busy) {
        ++idle;
        continue;
      }
      frees.push_back(free_at);
    }
    Item("It needs " + std::to_string(need) + " whole node" + (need == 1 ? "" : "s") +
         " of partition " + part->name() + ": " + std::to_string(part->nodes_size()) + " nodes, " +
         std::to_string(up) + " up, " + std::to_string(idle) + " idle.");

    std::vector<const v1::Job*> ahead;
    for (const v1::Job* other : in_.jobs) {
      // Only jobs that compete for nodes now (not held, waiting on a dependency or a time).
      const std::string& why = other->reason();
      if (other->job_id() == job_.job_id() || !IsPendingJob(*other) ||
          other->partition() != job_.partition() || other->priority() == 0 ||
          (why != Name(PendingReason::kResources) && why != Name(PendingReason::kPriority) &&
           why != Name(PendingReason::kNone))) {
        continue;
      }
      if (other->priority() > job_.priority() ||
          (other->priority() == job_.priority() &&
           (other->submit_time() < job_.submit_time() ||
            (other->submit_time() == job_.submit_time() && other->job_id() < job_.job_id())))) {
        ahead.push_back(other);
      }
    }
    if (!ahead.empty()) {
      std::string list;
      for (size_t i = 0; i < ahead.size() && i < 3; ++i) {
        list += (i ? ", " : "") + Id(*ahead[i]) + " (priority " +
                std::to_string(ahead[i]->priority()) + ")";
      }
      Item(std::to_string(ahead.size()) + " pending job" + (ahead.size() == 1 ? "" : "s") +
           " of the partition come" + (ahead.size() == 1 ? "s" : "") + " first: " + list +
           (ahead.size() > 3 ? ", ..." : "") + ".");
    } else if (priority) {
      Item("Nodes it could use are kept for a job ahead of it in another partition.");
    }

    Preemption(*part);
    if (up < need) {
      Item("Fewer nodes are up than it needs: it cannot start until nodes come back.");
      return;
    }
    std::sort(frees.begin(), frees.end(), [](UnixTime a, UnixTime b) {
      return (a == 0 ? INT64_MAX : a) < (b == 0 ? INT64_MAX : b);
    });
    const size_t missing = need > idle ? need - idle : 0;
    if (missing == 0) {
      Item(
          "Enough nodes are idle: it starts at the next scheduling pass unless a job ahead "
          "takes them.");
    } else if (missing <= frees.size() && frees[missing - 1] != 0) {
      Item("Expected start: about " + Time(frees[missing - 1]) +
           ", when the running jobs on enough nodes reach their time limits" +
           (ahead.empty() ? "" : " (later if the jobs ahead take those nodes)") + ".");
    } else {
      Item("Expected start: unknown (the nodes it needs run jobs without a time limit).");
    }
    Item(
        "What would let it run sooner: fewer nodes (-N), another partition, or a higher "
        "priority (scontrol update JobId=" +
        Id(job_) + " Nice=-N, operators only).");
  }

  // Preemption's dry run: the running jobs on the partition's nodes that it may preempt
  // (partitions of a lower PriorityTier whose PreemptMode is not OFF; jobs the controller gave
  // a PreemptEligibleTime, which it does only when preemption is on), now or once their exempt
  // time is over. gantryd takes the first nodes in order where it then fits.
  void Preemption(const v1::Partition& part) {
    std::vector<std::string> now;
    std::vector<std::string> later;
    for (const v1::Job* other : in_.jobs) {
      const v1::Partition* theirs = Partition(other->partition());
      if (theirs == nullptr || StateOf(*other).base != model::JobBaseState::kRunning ||
          other->preempt_eligible_time() == 0 || theirs->priority_tier() >= part.priority_tier() ||
          text::EqualsIgnoreCase(theirs->preempt_mode(), "OFF") ||
          !std::ranges::any_of(other->nodes(), [&](const std::string& n) {
            return std::ranges::find(part.nodes(), n) != part.nodes().end();
          })) {
        continue;
      }
      // What preempting it does: its partition's mode less GANG (the cluster's when unset).
      std::string mode;
      for (const char* base : {"SUSPEND", "REQUEUE", "CANCEL"}) {
        if (text::AsciiToUpper(theirs->preempt_mode()).find(base) != std::string::npos) {
          mode = std::string(", ") + base;
        }
      }
      const std::string what =
          Id(*other) + " (" + theirs->name() + mode + ", " + NodeList(*other) + ")";
      if (other->preempt_eligible_time() <= in_.now) {
        now.push_back(what);
      } else {
        later.push_back(what + " from " + Time(other->preempt_eligible_time()));
      }
    }
    auto list = [](const std::vector<std::string>& items) {
      std::string out;
      for (size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? ", " : "") + items[i];
      return out + (items.size() > 5 ? ", ..." : "");
    };
    if (!now.empty()) {
      Item("It may preempt " + list(now) +
           ": the jobs in its way on the first nodes where it then fits go at the next pass.");
    }
    if (!later.empty()) {
      Item("Once their PreemptExemptTime is over it may also preempt " + list(later) + ".");
    }
  }

  const ExplainInput& in_;
  const v1::Job& job_;
  std::string out_;
};

}  // namespace

std::string ExplainJob(const ExplainInput& in) { return Explainer(in).Run(); }

}  // namespace gantry::slurm
