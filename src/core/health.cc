#include "core/health.h"

#include <string>

#include "core/job_actions.h"
#include "model/health_report.h"
#include "model/node_state.h"
#include "state/records.h"
#include "state/resources.h"

namespace gantry::core {
namespace {

using model::NodeFlag;

v1::Event HealthStateChange(const Context& ctx, const std::string& node, const char* op,
                            const std::string& reason) {
  v1::Event event = NewEvent(ctx);
  v1::NodeStateChanged* change = event.mutable_node_state_changed();
  change->add_nodes(node);
  change->set_op(op);
  change->set_reason(reason);
  change->set_reason_uid(0);
  change->set_by_health(true);
  return event;
}

uint32_t DeclaredGpus(const v1::Node& node) {
  int64_t gpus = 0;
  for (const text::GresSpec& gres : state::CapacityOf(node).gres) {
    if (gres.name == "gpu") gpus += gres.count;
  }
  return static_cast<uint32_t>(gpus);
}

}  // namespace

v1::HealthSettings HealthSettingsFor(const state::ClusterState& state, const Config& config,
                                     const v1::Node& node) {
  const HealthConfig& health = config.health;
  v1::HealthSettings out;
  out.set_program(health.program);
  out.set_interval_sec(health.interval_sec);
  out.set_node_state(health.node_state);
  out.set_gpus(DeclaredGpus(node));
  out.set_real_memory_mb(node.real_memory_mb());
  out.set_home_storage(health.home_storage);
  out.set_tmp_fs(health.tmp_fs);
  out.set_state(node.state());
  out.set_state_flags(node.state_flags());
  const int index = state.NodeIndex(node.name());
  out.set_node_index(index < 0 ? 0 : static_cast<uint32_t>(index));
  out.set_node_count(static_cast<uint32_t>(state.nodes.size()));
  return out;
}

Result<Effects> OnHealthReport(const Context& ctx, const v1::HealthReport& report) {
  const v1::Node* node = ctx.state.FindNode(report.node());
  if (node == nullptr) return NotFound("Invalid node name specified: " + report.node());
  Effects out;
  const std::string reason = model::HealthDrainReason(report);
  const model::NodeState state = state::NodeStateOf(*node);
  const bool drained = state.Has(NodeFlag::kDrain) || state.Has(NodeFlag::kFail);
  if (reason.empty()) {
    if (node->health_drained()) {
      out.log.push_back("node " + node->name() + ": health check passed, resumed");
      out.events.push_back(HealthStateChange(ctx, node->name(), "RESUME", ""));
    }
    return out;
  }
  if (!drained || (node->health_drained() && node->reason() != reason)) {
    out.log.push_back("node " + node->name() + ": health check failed, drained: " + reason);
    out.events.push_back(HealthStateChange(ctx, node->name(), "DRAIN", reason));
  }
  for (uint32_t id : node->job_ids()) {
    const v1::Job* job = ctx.state.FindJob(id);
    if (job == nullptr || !state::IsActiveJob(*job)) continue;
    const std::string why = "health check failed on " + node->name() + ": " + reason;
    if (!job->requeue()) {
      out.log.push_back("job " + std::to_string(id) + " may not be requeued: it keeps running on " +
                        node->name() + " (" + reason + ")");
      continue;
    }
    out.log.push_back("job " + std::to_string(id) + " requeued: " + why);
    v1::Event event = RequeueEvent(ctx, *job);
    v1::JobRequeued* requeued = event.mutable_job_requeued();
    requeued->set_reason("None");
    requeued->set_state_desc(why);
    out.events.push_back(std::move(event));
    ctx.memory.prologs.erase(id);
    TerminateOnNodes(ctx, *job, &out);
  }
  return out;
}

}  // namespace gantry::core
