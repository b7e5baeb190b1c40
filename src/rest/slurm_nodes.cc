// The /slurm/v0.0.42/ node and partition routes.

#include <nlohmann/json.hpp>

#include "model/node_state.h"
#include "rest/routes.h"
#include "slurm/command_context.h"
#include "slurm/scontrol_show.h"
#include "slurm_view/job_view.h"
#include "sys/system_time.h"
#include "text/ascii.h"

namespace gantry::rest {
namespace {

void Csv(JsonOut& out, std::string_view name, const std::string& csv) {
  out.MemberCsvArray(name, csv);
}

std::string UserOf(uint32_t uid) {
  return slurm::LookupUserName(uid).value_or(std::to_string(uid));
}

// "gpu:8" as TRES ("cpu=8,mem=32000M,billing=8,gres/gpu=8").
std::string NodeTres(uint32_t cpus, uint64_t mem_mb, const std::string& gres) {
  std::string tres = "cpu=" + std::to_string(cpus) + ",mem=" + std::to_string(mem_mb) +
                     "M,billing=" + std::to_string(cpus);
  if (const uint64_t gpus = slurm::GresCount(gres); gpus > 0) {
    tres += ",gres/gpu=" + std::to_string(gpus);
  }
  return tres;
}

void WriteNode(const v1::Node& node, const std::string& cluster, JsonOut& out) {
  const model::NodeState state = slurm::NodeDisplayState(node);
  out.BeginObject();
  out.Member("architecture", node.arch());
  out.Member("burstbuffer_network_address", "");
  out.MemberInt("boards", 1);
  out.MemberNoVal("boot_time", node.host_boot_time(), node.host_boot_time() != 0);
  out.Member("cluster_name", cluster);
  out.MemberInt("cores", node.cores_per_socket());
  out.MemberInt("specialized_cores", 0);
  out.MemberInt("cpu_binding", 0);
  out.MemberInt("cpu_load", node.has_cpu_load() ? node.cpu_load() : 0);
  out.MemberNoVal("free_mem", node.has_free_mem_mb() ? node.free_mem_mb() : 0,
                  node.has_free_mem_mb());
  out.MemberInt("cpus", node.cpus());
  out.MemberInt("effective_cpus", node.cpus());
  out.Member("specialized_cpus", "");
  out.Key("energy")
      .BeginObject()
      .MemberInt("average_watts", 0)
      .MemberInt("base_consumed_energy", 0)
      .MemberInt("consumed_energy", 0)
      .Key("current_watts")
      .NoValUnset()
      .MemberInt("previous_consumed_energy", 0)
      .MemberInt("last_collected", 0)
      .EndObject();
  out.Key("external_sensors").BeginObject().EndObject();
  out.Member("extra", "");
  out.Key("power").BeginObject().EndObject();
  Csv(out, "features", node.features());
  Csv(out, "active_features", node.features());
  out.Member("gpu_spec", "");
  out.Member("gres", node.gres());
  out.Member("gres_drained", "N/A");
  out.Member("gres_used", node.alloc_gres());
  out.Member("instance_id", "").Member("instance_type", "");
  out.MemberNoVal("last_busy", node.last_busy_time(), node.last_busy_time() != 0);
  out.Member("mcs_label", "");
  out.MemberInt("specialized_memory", 0);
  out.Member("name", node.name());
  out.Key("next_state_after_reboot").BeginArray().String("INVALID").EndArray();
  out.Member("address", node.hostname().empty() ? node.name() : node.hostname());
  out.Member("hostname", node.hostname().empty() ? node.name() : node.hostname());
  std::string words = model::NodeStateComplete(state);
  for (char& c : words) {
    if (c == '+') c = ',';
  }
  out.MemberCsvArray("state", words);
  out.Member("operating_system", node.os());
  out.Member("owner", "");
  out.Key("partitions").BeginArray();
  for (const std::string& p : node.partitions()) out.String(p);
  out.EndArray();
  out.MemberInt("port", 0);
  out.MemberInt("real_memory", static_cast<int64_t>(node.real_memory_mb()));
  out.MemberInt("res_cores_per_gpu", 0);
  out.Member("comment", "");
  out.Member("reason", node.reason());
  out.MemberNoVal("reason_changed_at", node.reason_time(), node.reason_time() != 0);
  out.Member("reason_set_by_user", node.reason().empty() ? "" : UserOf(node.reason_uid()));
  out.MemberNoVal("resume_after", 0, false);
  out.Member("reservation", "");
  out.MemberInt("alloc_memory", static_cast<int64_t>(node.alloc_mem_mb()));
  out.MemberInt("alloc_cpus", node.alloc_cpus());
  out.MemberInt("alloc_idle_cpus", static_cast<int64_t>(node.cpus()) - node.alloc_cpus());
  out.Member("tres_used",
             node.alloc_cpus() == 0 && node.alloc_mem_mb() == 0
                 ? ""
                 : NodeTres(node.alloc_cpus(), node.alloc_mem_mb(), node.alloc_gres()));
  out.Key("tres_weighted").Double(node.alloc_cpus());
  out.MemberNoVal("slurmd_start_time", node.boot_time(), node.boot_time() != 0);
  out.MemberInt("sockets", node.sockets());
  out.MemberInt("threads", node.threads_per_core());
  out.MemberInt("temporary_disk", 0);
  out.MemberInt("weight", node.weight() == 0 ? 1 : node.weight());
  out.Member("tres", NodeTres(node.cpus(), node.real_memory_mb(), node.gres()));
  out.Member("version", node.version());
  out.EndObject();
}

void Limit(JsonOut& out, std::string_view name, uint32_t value) {
  out.Key(name);
  if (value == slurm::kInfiniteMinutes) {
    out.NoValInfinite();
  } else {
    out.NoValNumber(value);
  }
}

void WritePartition(const v1::Partition& p, const v1::GetNodesReply& all,
                    const std::string& cluster, JsonOut& out) {
  uint64_t cpus = 0;
  for (const v1::Node& node : all.nodes()) {
    for (const std::string& name : p.nodes()) {
      if (name == node.name()) cpus += node.cpus();
    }
  }
  std::string hostlist;
  for (const std::string& name : p.nodes()) hostlist += (hostlist.empty() ? "" : ",") + name;
  out.BeginObject();
  out.Key("nodes")
      .BeginObject()
      .Member("allowed_allocation", "")
      .Member("configured", hostlist)
      .MemberInt("total", p.nodes_size())
      .EndObject();
  out.Key("accounts")
      .BeginObject()
      .Member("allowed", p.allow_accounts())
      .Member("deny", "")
      .EndObject();
  out.Key("groups").BeginObject().Member("allowed", p.allow_groups()).EndObject();
  out.Key("qos")
      .BeginObject()
      .Member("allowed", p.allow_qos())
      .Member("deny", "")
      .Member("assigned", "")
      .EndObject();
  out.Member("alternate", "");
  out.Key("tres")
      .BeginObject()
      .Member("billing_weights", p.tres_billing_weights())
      .Member("configured",
              "cpu=" + std::to_string(cpus) + ",node=" + std::to_string(p.nodes_size()))
      .EndObject();
  out.Member("cluster", cluster);
  out.Key("select_type").BeginArray().String("CORE").String("MEMORY").EndArray();
  out.Key("cpus").BeginObject().MemberInt("task_binding", 0).MemberInt("total", cpus).EndObject();
  out.Key("defaults").BeginObject();
  out.MemberInt("memory_per_cpu", static_cast<int64_t>(p.def_mem_per_cpu_mb()));
  out.MemberNoVal("partition_memory_per_cpu", p.def_mem_per_cpu_mb(), p.def_mem_per_cpu_mb() != 0);
  out.MemberNoVal("partition_memory_per_node", p.def_mem_per_node_mb(),
                  p.def_mem_per_node_mb() != 0);
  Limit(out, "time", p.default_time_min() == 0 ? slurm::kInfiniteMinutes : p.default_time_min());
  out.Member("job", "");
  out.EndObject();
  out.MemberInt("grace_time", p.grace_time_sec());
  out.Key("maximums").BeginObject();
  out.Key("cpus_per_node").NoValInfinite();
  out.Key("cpus_per_socket").NoValInfinite();
  out.MemberInt("memory_per_cpu", static_cast<int64_t>(p.max_mem_per_cpu_mb()));
  out.MemberNoVal("partition_memory_per_cpu", p.max_mem_per_cpu_mb(), p.max_mem_per_cpu_mb() != 0);
  out.MemberNoVal("partition_memory_per_node", p.max_mem_per_node_mb(),
                  p.max_mem_per_node_mb() != 0);
  Limit(out, "nodes", p.max_nodes() == 0 ? slurm::kInfiniteMinutes : p.max_nodes());
  out.MemberInt("shares", 1);
  out.Key("oversubscribe").BeginObject().MemberInt("jobs", 1).Key("flags").BeginArray();
  if (p.oversubscribe() == "FORCE") out.String("force");
  out.EndArray().EndObject();
  Limit(out, "time", p.max_time_min());
  out.Key("over_time_limit").NoValUnset();
  out.EndObject();
  out.Key("minimums").BeginObject().MemberInt("nodes", p.min_nodes()).EndObject();
  out.Member("name", p.name());
  out.Member("node_sets", "");
  out.Key("priority")
      .BeginObject()
      .MemberInt("job_factor", p.priority_job_factor())
      .MemberInt("tier", p.priority_tier())
      .EndObject();
  out.Key("timeouts")
      .BeginObject()
      .Key("resume")
      .NoValUnset()
      .Key("suspend")
      .NoValUnset()
      .EndObject();
  out.Key("partition").BeginObject().Key("state").BeginArray();
  out.String(p.state().empty() ? "UP" : p.state());
  out.EndArray().EndObject();
  out.Key("suspend_time").NoValUnset();
  out.EndObject();
}

void LastUpdate(JsonOut& out) { out.Key("last_update").NoValNumber(sys::SystemClock::Get().Now()); }

void Nodes(Call& call, Reply& reply, const std::string& name) {
  v1::GetNodesRequest request;
  if (!name.empty()) request.add_names(name);
  Result<v1::GetNodesReply> nodes = call.controller->GetNodes(request);
  JsonOut& out = reply.out();
  out.Key("nodes").BeginArray();
  if (nodes.ok()) {
    for (const v1::Node& node : nodes->nodes()) {
      if (name.empty() || node.name() == name) WriteNode(node, call.config.cluster_name, out);
    }
  }
  out.EndArray();
  LastUpdate(out);
  if (!nodes.ok()) return reply.Fail(nodes.status(), "Unable to query nodes", "slurm_load_node");
  if (!name.empty() && !std::any_of(nodes->nodes().begin(), nodes->nodes().end(),
                                    [&](const v1::Node& n) { return n.name() == name; })) {
    reply.Fail(NotFound("Invalid node name specified"), "Unable to query node " + name,
               "slurm_load_node");
  }
}

void Partitions(Call& call, Reply& reply, const std::string& name) {
  Result<v1::GetNodesReply> nodes = call.controller->GetNodes({});
  JsonOut& out = reply.out();
  out.Key("partitions").BeginArray();
  bool found = false;
  if (nodes.ok()) {
    for (const v1::Partition& p : nodes->partitions()) {
      if (!name.empty() && p.name() != name) continue;
      found = true;
      WritePartition(p, *nodes, call.config.cluster_name, out);
    }
  }
  out.EndArray();
  LastUpdate(out);
  if (!nodes.ok()) {
    return reply.Fail(nodes.status(), "Unable to query partitions", "slurm_load_partitions");
  }
  if (!name.empty() && !found) {
    reply.Fail(NotFound("Invalid partition name specified"), "Unable to query partition " + name,
               "slurm_load_partitions");
  }
}

}  // namespace

void ListNodes(Call& call, Reply& reply) { Nodes(call, reply, ""); }
void GetNode(Call& call, Reply& reply) { Nodes(call, reply, call.Param("node_name")); }
void ListPartitions(Call& call, Reply& reply) { Partitions(call, reply, ""); }
void GetPartition(Call& call, Reply& reply) {
  Partitions(call, reply, call.Param("partition_name"));
}

// POST /node/{name} and /nodes (update_node_msg): scontrol update NodeName= State= Reason=.
void UpdateNode(Call& call, Reply& reply) {
  const nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (!body.is_object()) {
    return reply.Fail(400, {"the body is not a JSON object (update_node_msg)", 9202,
                            "Failure parsing request body", "#"});
  }
  v1::UpdateNodeRequest request;
  if (call.params.contains("node_name")) {
    request.set_names(call.Param("node_name"));
  } else if (const auto names = body.find("name"); names != body.end()) {
    std::string joined;
    for (const auto& n : names->is_array() ? *names : nlohmann::json::array({*names})) {
      if (!n.is_string()) {
        return reply.Fail(
            400, {"name: expected strings", 9202, "Invalid node name specified", "#/name"});
      }
      joined += (joined.empty() ? "" : ",") + n.get<std::string>();
    }
    request.set_names(joined);
  }
  if (request.names().empty()) {
    return reply.Fail(
        400, {"name: which nodes to update", 2016, "Invalid node name specified", "#/name"});
  }
  for (const auto& [key, value] : body.items()) {
    if (key == "name") continue;
    if (key == "state") {
      if (!value.is_array() || value.size() != 1 || !value[0].is_string()) {
        return reply.Fail(400, {"state: expected one state, e.g. [\"DRAIN\"]", 9202,
                                "Invalid node state specified", "#/state"});
      }
      request.set_state(value[0].get<std::string>());
    } else if (key == "reason") {
      if (!value.is_string()) {
        return reply.Fail(400, {"reason: expected a string", 9202, "Invalid reason", "#/reason"});
      }
      request.set_reason(value.get<std::string>());
    } else if (key == "reason_uid") {
      continue;  // the caller sets the reason: gantryd records who
    } else {
      return reply.Fail(400, {key + ": changing it is not supported by Gantry", 9202,
                              "Invalid node update", "#/" + key});
    }
  }
  Result<v1::UpdateNodeReply> updated = call.controller->UpdateNode(request);
  if (!updated.ok()) {
    reply.Fail(updated.status(), "Unable to update node " + request.names(), "slurm_update_node");
  }
}

}  // namespace gantry::rest
